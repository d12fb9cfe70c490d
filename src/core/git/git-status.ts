import { writeDenial, type WritePolicy } from '../paths/write-rules.js';
import type { Workspace } from '../workspace/workspace.js';
import { readHead } from './git-objects.js';
import { compareBytes, isBinaryContent } from '../objects/object-format.js';
import { detectRenames } from './rename-detection.js';
import { commitSide, indexSide, workspaceSide, type SideFile, type TreeSide } from './tree-side.js';
import type { VirtualIndex } from './virtual-index.js';

export type GitChangeKind = 'ADDED' | 'MODIFIED' | 'DELETED' | 'RENAMED' | 'COPIED' | 'UNTRACKED' | 'TYPE_CHANGED';

export interface GitFileChange {
  path: string;
  /** For RENAMED/COPIED: the path it came from. */
  origPath?: string;
  kind: GitChangeKind;
  /** True for an index-vs-HEAD change; false for worktree-vs-index and untracked. */
  staged: boolean;
  generated: boolean;
  binary: boolean;
  allowedByPolicy: boolean;
}

/** One line of `git status --porcelain=v1`: XY, path, and the source of a rename. */
export interface PorcelainEntry {
  x: string;
  y: string;
  path: string;
  origPath?: string;
}

export interface GitStatusReport {
  /** Branch name; undefined when HEAD is detached. */
  branch?: string;
  headSha?: string;
  detachedHead: boolean;
  clean: boolean;
  changes: GitFileChange[];
  /** The same state as porcelain v1 lines (tracked changes, then untracked), for the formatter. */
  entries: PorcelainEntry[];
  warnings: string[];
}

const typeOf = (f: SideFile) => (f.mode === '120000' ? 'link' : f.mode === '160000' ? 'gitlink' : 'file');
const letter = (a: SideFile | undefined, b: SideFile | undefined): string => {
  if (!a && !b) return ' ';
  if (!a) return 'A';
  if (!b) return 'D';
  if (typeOf(a) !== typeOf(b)) return 'T';
  return a.oid !== b.oid || a.mode !== b.mode ? 'M' : ' ';
};

/** Porcelain lines for tracked paths (HEAD vs index in X, index vs workspace in Y), renames paired. */
async function trackedEntries(headSide: TreeSide, idx: TreeSide, work: TreeSide): Promise<PorcelainEntry[]> {
  const all = new Set<string>([...headSide.files.keys(), ...idx.files.keys()]);
  const deletedFromIndex: string[] = [];
  const addedToIndex: string[] = [];
  for (const path of all) {
    const h = headSide.files.get(path);
    const i = idx.files.get(path);
    if (h && !i) deletedFromIndex.push(path);
    if (!h && i) addedToIndex.push(path);
  }
  const renames = await detectRenames(deletedFromIndex.sort(compareBytes), addedToIndex.sort(compareBytes), headSide, idx);
  const renamedFrom = new Set(renames.map((r) => r.from));
  const renamedTo = new Map(renames.map((r) => [r.to, r.from]));

  const tracked: PorcelainEntry[] = [];
  for (const path of all) {
    if (renamedFrom.has(path)) continue;
    const i = idx.files.get(path);
    const orig = renamedTo.get(path);
    const x = orig ? 'R' : letter(headSide.files.get(path), i);
    const y = i ? letter(i, work.files.get(path)) : ' ';
    if (x === ' ' && y === ' ') continue;
    tracked.push(orig ? { x, y, path, origPath: orig } : { x, y, path });
  }
  return tracked.sort((a, b) => compareBytes(a.path, b.path));
}

/** Porcelain lines for untracked paths, each shown once under its topmost untracked directory. */
function untrackedEntries(work: TreeSide, idx: TreeSide, index: VirtualIndex): PorcelainEntry[] {
  const untracked: PorcelainEntry[] = [];
  const shown = new Set<string>();
  for (const path of [...work.files.keys()].sort(compareBytes)) {
    if (idx.files.has(path)) continue;
    const shownAs = untrackedDisplay(path, index);
    if (shown.has(shownAs)) continue;
    shown.add(shownAs);
    untracked.push({ x: '?', y: '?', path: shownAs });
  }
  return untracked;
}

const KINDS: Record<string, GitChangeKind> = { A: 'ADDED', D: 'DELETED', R: 'RENAMED', C: 'COPIED', T: 'TYPE_CHANGED' };
const kindOf = (c: string): GitChangeKind => KINDS[c] ?? 'MODIFIED';

/** One change per porcelain column that is not blank, then one per untracked file. */
async function describeChanges(
  sides: { headSide: TreeSide; idx: TreeSide; work: TreeSide },
  tracked: PorcelainEntry[],
  policy: WritePolicy,
): Promise<GitFileChange[]> {
  const { headSide, idx, work } = sides;
  const changes: GitFileChange[] = [];
  const describe = async (path: string, kind: GitChangeKind, staged: boolean, side: TreeSide | undefined, origPath?: string) => {
    const file = side?.files.get(path);
    const binary = file && file.mode.startsWith('100') ? isBinaryContent(await side!.read(path)) : false;
    const generated = policy.isGenerated(path);
    changes.push({ path, ...(origPath ? { origPath } : {}), kind, staged, generated, binary, allowedByPolicy: allowedByPolicy(path, policy) });
  };
  for (const e of tracked) {
    if (e.x !== ' ') await describe(e.path, kindOf(e.x), true, e.x === 'D' ? headSide : idx, e.origPath);
    if (e.y !== ' ') await describe(e.path, kindOf(e.y), false, e.y === 'D' ? idx : work);
  }
  for (const path of [...work.files.keys()].sort(compareBytes)) {
    if (!idx.files.has(path)) await describe(path, 'UNTRACKED', false, work);
  }
  return changes;
}

function statusWarnings(head: { detached: boolean; sha?: string }, changes: GitFileChange[]): string[] {
  const warnings: string[] = [];
  if (head.detached) warnings.push('HEAD is detached');
  if (!head.sha) warnings.push('HEAD has no commit yet');
  for (const c of changes) {
    if (!c.allowedByPolicy) warnings.push(`change not allowed by policy: ${c.path}`);
    else if (c.generated) warnings.push(`generated file changed: ${c.path}`);
  }
  return warnings;
}

/**
 * The status of the object-backed workspace with `git status --porcelain=v1` semantics: HEAD
 * (from the in-memory gitdir, else the base commit) vs the virtual index vs the workspace view.
 * Reads only; nothing is written to the object store, the refs or the overlay.
 */
export async function gitStatus(options: { workspace: Workspace; index: VirtualIndex; policy: WritePolicy }): Promise<GitStatusReport> {
  const { workspace, index, policy } = options;
  const { fs, gitdir } = workspace;
  const head = await readHead(fs, gitdir, workspace.baseCommitSha);
  const headSide: TreeSide = head.sha ? await commitSide(fs, gitdir, head.sha) : { files: new Map(), read: async () => new Uint8Array() };
  const idx = indexSide(fs, gitdir, index);
  const work = await workspaceSide(workspace);

  const tracked = await trackedEntries(headSide, idx, work);
  const entries = [...tracked, ...untrackedEntries(work, idx, index)];
  const changes = await describeChanges({ headSide, idx, work }, tracked, policy);
  return {
    ...(head.branch ? { branch: head.branch } : {}),
    ...(head.sha ? { headSha: head.sha } : {}),
    detachedHead: head.detached,
    clean: entries.length === 0,
    changes,
    entries,
    warnings: statusWarnings(head, changes),
  };
}

/** Whether a change to `path` could ever be staged under `policy`. */
export function allowedByPolicy(path: string, policy: WritePolicy): boolean {
  return writeDenial(path, policy) === undefined;
}

/** `git status` shows an untracked file under its topmost directory that holds nothing tracked (`dir/`). */
function untrackedDisplay(path: string, index: VirtualIndex): string {
  const segments = path.split('/');
  for (let i = 1; i < segments.length; i++) {
    const dir = segments.slice(0, i).join('/');
    if (!index.hasUnder(dir)) return `${dir}/`;
  }
  return path;
}
