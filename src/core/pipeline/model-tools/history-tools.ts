import git from 'isomorphic-git';
import { z } from 'zod';
import { defineLlmTool, type LlmTool } from '../../engines/llm/index.js';
import { diffLineArrays } from '../../text/line-diff.js';
import { redactSecrets, type SecretPathRules } from '../../secrets/secret-scan.js';
import type { PhaseContext } from '../../phases/orchestrator.js';
import { normalizeRepoPath } from '../../util/repo-path.js';
import type { Workspace } from '../../workspace/workspace.js';

/** Entries one `git_log` call returns at most. */
const MAX_LOG = 100;
/** Lines one `git_blame` call attributes at most. */
const MAX_BLAME_LINES = 200;
/** Commits one call walks at most (the fetched history is bounded anyway). */
const MAX_WALK = 500;
/** Files larger than this are not blamed: every version would be read and diffed. */
const MAX_BLAME_BYTES = 200_000;

interface CommitInfo {
  oid: string;
  parent?: string;
  /** The parent is not in the object store: the history is shallow here. */
  boundary: boolean;
  tree: string;
  date: string;
  author: string;
  subject: string;
}

/**
 * Read-only history over what the fetch brought: first-parent walks from the base commit. A
 * commit whose parent was not fetched is a shallow boundary and is named as one; the model
 * asking for more history than that deepens it once per call, within the ingestion's byte cap
 * and depth bound (recorded in the ledger). Output is redacted before the model sees it.
 */
export function historyTools({
  workspace,
  ledger,
  phase,
  rules,
}: {
  workspace: Workspace;
  ledger: PhaseContext['ledger'];
  phase: PhaseContext['phase'];
  rules: SecretPathRules;
}): LlmTool<any>[] {
  const { fs, gitdir } = workspace;
  const cache = {};

  const shallowSet = async (): Promise<Set<string>> => {
    try {
      const text = String(await fs.promises.readFile(`${gitdir}/shallow`, 'utf8'));
      return new Set(text.split('\n').filter((l) => /^[0-9a-f]{40}$/.test(l)));
    } catch {
      return new Set();
    }
  };

  const readInfo = async (oid: string, shallow: Set<string>): Promise<CommitInfo> => {
    const { commit } = await git.readCommit({ fs, gitdir, oid, cache });
    const parent = commit.parent[0];
    const boundary = parent !== undefined && shallow.has(oid);
    return {
      oid,
      ...(parent !== undefined && !boundary ? { parent } : {}),
      boundary,
      tree: commit.tree,
      date: new Date(commit.committer.timestamp * 1000).toISOString().slice(0, 10),
      author: commit.author.name,
      subject: commit.message.split('\n')[0].slice(0, 120),
    };
  };

  /** First-parent chain from the base, at most `limit` commits; `shallowAt` when it stopped at a boundary. */
  const walk = async (limit: number): Promise<{ commits: CommitInfo[]; shallowAt?: number }> => {
    const shallow = await shallowSet();
    const commits: CommitInfo[] = [];
    let oid: string | undefined = workspace.baseCommitSha;
    while (oid && commits.length < limit) {
      const info = await readInfo(oid, shallow);
      commits.push(info);
      if (info.boundary) return { commits, shallowAt: commits.length };
      oid = info.parent;
    }
    return { commits };
  };

  /** The blob id of `path` in a tree, or undefined (trees are always fetched, blobs may not be). */
  const blobIdAt = async (tree: string, path: string): Promise<string | undefined> => {
    const names = path.split('/');
    let oid = tree;
    for (let i = 0; i < names.length; i++) {
      const { tree: entries } = await git.readTree({ fs, gitdir, oid, cache });
      const found = entries.find((e) => e.path === names[i]);
      if (!found || (found.type === 'blob') !== (i === names.length - 1)) return undefined;
      oid = found.oid;
    }
    return oid;
  };

  const blobText = async (oid: string): Promise<string> => {
    try {
      return new TextDecoder().decode((await git.readBlob({ fs, gitdir, oid, cache })).blob);
    } catch (error) {
      if (!workspace.missing?.blobs || (error as { code?: string }).code !== 'NotFoundError') throw error;
      await workspace.missing.blobs([oid]);
      return new TextDecoder().decode((await git.readBlob({ fs, gitdir, oid, cache })).blob);
    }
  };

  /** Deepen once when a walk stopped at the boundary before it had what it needed. */
  const deepenFor = async (tool: string, shallowAt: number | undefined, wanted: number): Promise<string | undefined> => {
    const deepen = workspace.missing?.deepen;
    if (shallowAt === undefined || !deepen) return undefined;
    const target = Math.max(shallowAt * 2, shallowAt + wanted, shallowAt + 50);
    const result = await deepen(target);
    await ledger.append({
      actor: 'orchestrator',
      phase,
      type: 'HISTORY_DEEPENED',
      payload: { tool, from: shallowAt, requested: target, depth: result.depth, bytes: result.bytes, ...(result.refused ? { refused: result.refused } : {}) },
    });
    return result.refused;
  };

  const line = (c: CommitInfo) => `${c.boundary ? '^' : ''}${c.oid.slice(0, 12)} ${c.date} ${c.author}: ${c.subject}`;
  const shallowNote = (at: number) => `history is shallow at ${at} commits: older commits were not fetched`;

  return [
    defineLlmTool({
      name: 'git_log',
      description:
        'Commits of the base branch, newest first (first parent), optionally only those that changed one path. Says when the fetched history is shallow.',
      args: z.object({ path: z.string().optional(), maxCount: z.number().int().positive().max(MAX_LOG).optional() }),
      run: async ({ path, maxCount }) => {
        const p = path === undefined ? undefined : normalizeRepoPath(path);
        const want = maxCount ?? 20;
        const collect = async () => {
          const { commits, shallowAt } = await walk(p === undefined ? want : MAX_WALK);
          if (p === undefined) return { picked: commits, shallowAt };
          const picked: CommitInfo[] = [];
          for (const c of commits) {
            if (picked.length >= want) break;
            const here = await blobIdAt(c.tree, p);
            const before = c.parent ? await blobIdAt((await readInfo(c.parent, new Set())).tree, p) : undefined;
            if (here !== before) picked.push(c);
          }
          return { picked, shallowAt: picked.length >= want ? undefined : shallowAt };
        };
        let result = await collect();
        const refused = result.picked.length < want ? await deepenFor('git_log', result.shallowAt, want) : undefined;
        if (result.picked.length < want && result.shallowAt !== undefined && refused === undefined && workspace.missing?.deepen) result = await collect();
        const out = result.picked.map(line);
        if (out.length === 0) out.push(p === undefined ? 'no commits' : `no commit in the fetched history changed ${p}`);
        if (result.shallowAt !== undefined) out.push(shallowNote(result.shallowAt) + (refused ? ` (not deepened: ${refused})` : ''));
        return redactSecrets(out.join('\n')).text;
      },
    }),
    defineLlmTool({
      name: 'git_blame',
      description: `Which commit last changed each line of a file at the base commit (first-parent history; at most ${MAX_BLAME_LINES} lines). Lines marked ^ reach the shallow boundary and may be older.`,
      args: z.object({ path: z.string(), startLine: z.number().int().positive(), endLine: z.number().int().positive() }),
      run: async ({ path, startLine, endLine }) => {
        const p = normalizeRepoPath(path);
        if (endLine < startLine) throw new Error('endLine is before startLine');
        const last = Math.min(endLine, startLine + MAX_BLAME_LINES - 1);
        const blame = async () => {
          const { commits, shallowAt } = await walk(MAX_WALK);
          const headBlob = await blobIdAt(commits[0].tree, p);
          if (!headBlob) throw new Error(`no such file at the base commit: ${p}`);
          // Through the workspace, so the phase's read rules apply as they do to file.read.
          const text = new TextDecoder().decode(await workspace.readBase(p));
          if (text.length > MAX_BLAME_BYTES) throw new Error(`${p} is over ${MAX_BLAME_BYTES} bytes; blame a smaller file`);
          const finalLines = text.split('\n');
          if (startLine > finalLines.length) throw new Error(`${p} has ${finalLines.length} lines`);
          // pending: requested line number -> its index in the version being examined.
          let pending = new Map<number, number>();
          for (let n = startLine; n <= Math.min(last, finalLines.length); n++) pending.set(n, n - 1);
          const owner = new Map<number, CommitInfo>();
          let lines = finalLines;
          let blob = headBlob;
          for (let i = 0; i < commits.length && pending.size > 0; i++) {
            const c = commits[i];
            const parent = commits[i + 1];
            const parentBlob = parent ? await blobIdAt(parent.tree, p) : undefined;
            if (parentBlob === blob) continue;
            if (!parent || !parentBlob) {
              for (const n of pending.keys()) owner.set(n, c);
              pending = new Map();
              break;
            }
            const older = (await blobText(parentBlob)).split('\n');
            // Walk the diff: kept lines move to their index in the parent, added lines are this commit's.
            const toParent = new Map<number, number>();
            let a = 0;
            let b = 0;
            for (const run of diffLineArrays(older, lines)) {
              if (run.removed) a += run.value.length;
              else if (run.added) b += run.value.length;
              else for (let k = 0; k < run.value.length; k++) toParent.set(b++, a++);
            }
            const next = new Map<number, number>();
            for (const [n, index] of pending) {
              const moved = toParent.get(index);
              if (moved === undefined) owner.set(n, c);
              else next.set(n, moved);
            }
            pending = next;
            lines = older;
            blob = parentBlob;
          }
          return { owner, finalLines, shallowAt, pendingLeft: pending.size };
        };
        let result = await blame();
        const boundaryOwned = [...result.owner.values()].some((c) => c.boundary);
        const refused = boundaryOwned ? await deepenFor('git_blame', result.shallowAt, 50) : undefined;
        if (boundaryOwned && refused === undefined && workspace.missing?.deepen && result.shallowAt !== undefined) result = await blame();
        const out: string[] = [];
        for (const [n, c] of [...result.owner].sort(([x], [y]) => x - y)) {
          out.push(`${c.boundary ? '^' : ''}${c.oid.slice(0, 12)} ${c.date} ${c.author} L${n}: ${result.finalLines[n - 1].slice(0, 200)}`);
        }
        if (result.shallowAt !== undefined && [...result.owner.values()].some((c) => c.boundary))
          out.push(shallowNote(result.shallowAt) + (refused ? ` (not deepened: ${refused})` : ''));
        return redactSecrets(out.join('\n'), { path: p, rules }).text;
      },
    }),
  ];
}
