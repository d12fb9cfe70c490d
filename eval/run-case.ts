import { introducedNameProblems } from '../src/core/syntax/name-bindings.js';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { git, gitEnv } from '../test/fixtures/make-repo.js';
import { cli, CLI_NOW, makeWorkingCopy } from '../test/integration/cli/cli-harness.js';
import { compareCase, type CaseComparison } from './compare.js';
import type { CorpusCase } from './corpus-case.js';

/** What `draftsman run --publish` did with one case, and how its commit compares with the human's. */
export interface CaseResult {
  id: string;
  published: boolean;
  /** The run's final status, and its reason when it did not complete. */
  status: string;
  reason?: string;
  /** The CLI's publish note, or its last stderr line when the run itself failed. */
  note?: string;
  comparison?: CaseComparison;
  /** Lockfile refresh commands the case expects and the run report did not contain. */
  refreshMissing: string[];
  /** What the published change did to names, measured on the published files against `before/`. */
  names?: { unresolved: number; unusedImports: number; problems: string[] };
  elapsedMs: number;
}

/** Blob content at `rev:path`, byte for byte (the shared `git` helper trims its output). */
function blobAt(repo: string, rev: string, path: string): Buffer {
  return execFileSync('git', ['cat-file', 'blob', `${rev}:${path}`], { cwd: repo, env: gitEnv(), maxBuffer: 64 * 1024 * 1024 });
}

function publishedChanges(repo: string, base: string, branch: string): { changed: string[]; ours: Map<string, Buffer | undefined> } {
  const out = git(['diff', '--no-renames', '--name-status', '-z', `${base}..${branch}`], { cwd: repo });
  const fields = out.split('\0').filter(Boolean);
  const ours = new Map<string, Buffer | undefined>();
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const [status, path] = [fields[i], fields[i + 1]];
    ours.set(path, status === 'D' ? undefined : blobAt(repo, branch, path));
  }
  return { changed: [...ours.keys()].sort(), ours };
}

/** Every string in a JSON document, so a refresh command is found wherever the report keeps it. */
function stringsOf(value: unknown, into: string[] = []): string[] {
  if (typeof value === 'string') into.push(value);
  else if (Array.isArray(value)) value.forEach((v) => stringsOf(v, into));
  else if (value && typeof value === 'object') Object.values(value).forEach((v) => stringsOf(v, into));
  return into;
}

/**
 * One case end to end: `before/` committed on `main` in a fresh working copy (fixed identity and
 * date), the real CLI in-process as `run --publish` with the case's task, then the published
 * branch against `after/`.
 */
export async function runCase(c: CorpusCase, root: string, clock: () => number = () => 0): Promise<CaseResult> {
  const started = clock();
  const dir = join(root, c.manifest.id);
  const repo = join(dir, c.manifest.repository.split('/')[1]);
  mkdirSync(repo, { recursive: true });
  const base = makeWorkingCopy(repo, Object.fromEntries([...c.before].map(([p, b]) => [p, b.toString('utf8')])));
  const taskFile = join(dir, 'task.md');
  writeFileSync(taskFile, c.manifest.task);
  // A fixed run id per case: with the fixed clock and identity, the published commit is the same on every run.
  const run = await cli(['run', repo, '--task-file', taskFile, '--out', join(dir, 'state'), '--json', '--publish', '--run-id', `eval-${c.manifest.id}`], {
    now: CLI_NOW,
  });
  const json = run.json ?? {};
  const status = typeof json.status === 'string' ? json.status : `exit ${run.code}`;
  const note = typeof json.publish === 'string' ? json.publish : run.stderr.trim().split('\n').pop() || undefined;
  const branch = typeof json.agentBranch === 'string' ? json.agentBranch : undefined;
  const published = status === 'COMPLETED' && !!branch && /^published /.test(note ?? '');
  const result: CaseResult = {
    id: c.manifest.id,
    published,
    status,
    reason: typeof json.reason === 'string' ? json.reason : undefined,
    note,
    refreshMissing: [],
    elapsedMs: 0,
  };
  if (published && branch) {
    const { changed, ours } = publishedChanges(repo, base, branch);
    result.comparison = compareCase(c.before, c.after, changed, ours);
    result.names = nameMeasure(c.before, ours);
  }
  const expected = Object.values(c.manifest.refresh ?? {});
  if (published && expected.length > 0) {
    const text = `${stringsOf(json).join('\n')}\n${prBody(json)}`;
    result.refreshMissing = expected.filter((cmd) => !text.includes(cmd));
  }
  result.elapsedMs = clock() - started;
  return result;
}

/** Introduced unresolved names and unused imports of the published files (the verification check's own rule, measured here independently of the run). */
function nameMeasure(before: ReadonlyMap<string, Buffer>, ours: ReadonlyMap<string, Buffer | undefined>): NonNullable<CaseResult['names']> {
  const problems = [...ours].flatMap(([path, bytes]) =>
    bytes ? introducedNameProblems(path, before.get(path)?.toString('utf8'), bytes.toString('utf8')) : [],
  );
  return {
    unresolved: problems.filter((p) => p.kind === 'unresolved').length,
    unusedImports: problems.filter((p) => p.kind === 'unused-import').length,
    problems: problems.map((p) => (p.kind === 'unresolved' ? `${p.path}:${p.line} ${p.name} unresolved` : `${p.path}:${p.line} ${p.import} unused`)),
  };
}

/** The PR body of the run's candidate, where the lockfiles to refresh are listed with their command. */
function prBody(json: Record<string, unknown>): string {
  const path = typeof json.runDir === 'string' ? join(json.runDir, 'candidate', 'pr-body.md') : undefined;
  return path && existsSync(path) ? readFileSync(path, 'utf8') : '';
}
