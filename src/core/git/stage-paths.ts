import git from 'isomorphic-git';
import { AgentError } from '../errors.js';
import { normalizeRepoPath, resolveLinkTarget } from '../util/repo-path.js';
import type { SymlinkLookup } from '../paths/symlinks.js';
import { writeDenial, type WritePolicy } from '../paths/write-rules.js';
import type { Workspace } from '../workspace/workspace.js';
import { GitBoundaryError, type GitBoundaryReason } from './git-boundary-error.js';
import { hashBlobBytes } from './git-objects.js';
import { GIT_ACTOR, type LedgerSink } from './ledger-sink.js';
import type { VirtualIndex } from './virtual-index.js';

export interface StageDenial {
  path: string;
  reason: GitBoundaryReason;
  message: string;
}

export interface StageRequest {
  workspace: Workspace;
  index: VirtualIndex;
  /** Explicit repository paths; there is no "stage everything". */
  paths: string[];
  policy: WritePolicy;
  runId?: string;
  ledger?: LedgerSink;
}

export interface StageResult {
  staged: { path: string; change: 'ADDED' | 'MODIFIED' | 'DELETED'; oid?: string }[];
}

/**
 * The write-policy rules alone (workflows, forbidden, allowlist, task scope, lockfiles,
 * generated files, judged on the symlink-resolved path too when the base tree's symlinks are
 * given), shared by stage, commit and publish-side re-validation.
 */
export function policyDenial(p: string, policy: WritePolicy, symlinks?: SymlinkLookup): StageDenial | undefined {
  return writeDenial(p, policy, symlinks);
}

/** The denial for a path that goes through a symlinked directory, or is a symlink leaving the workspace. */
async function symlinkDenial(p: string, workspace: Workspace, index: VirtualIndex): Promise<StageDenial | undefined> {
  const segments = p.split('/');
  for (let i = 1; i < segments.length; i++) {
    const parent = segments.slice(0, i).join('/');
    if (workspace.entry(parent)?.mode === '120000' || index.get(parent)?.mode === '120000') {
      return { path: p, reason: 'PATH_THROUGH_SYMLINK', message: `path goes through the symlink ${parent}` };
    }
  }
  if (workspace.entry(p)?.mode !== '120000') return undefined;
  const target = await workspace.readText(p);
  if (resolveLinkTarget(p, target) === undefined) return { path: p, reason: 'PATH_THROUGH_SYMLINK', message: 'symlink points outside the workspace' };
  return undefined;
}

/** The denial for a submodule pointer, or a path with nothing to stage (absent, or equal to the index). */
async function changeDenial(p: string, workspace: Workspace, index: VirtualIndex): Promise<StageDenial | undefined> {
  const entry = workspace.entry(p);
  const staged = index.get(p);
  if (entry?.mode === '160000' || staged?.mode === '160000')
    return { path: p, reason: 'SUBMODULE_CHANGE_NOT_PERMITTED', message: 'submodule pointers are read-only' };
  if (!entry && !staged) return { path: p, reason: 'PATH_NOT_CHANGED', message: 'no such file in the workspace or the index' };
  if (entry && staged && entry.mode === staged.mode) {
    const oid = entry.oid && !entry.changed ? entry.oid : await hashBlobBytes(await workspace.read(p));
    if (oid === staged.oid) return { path: p, reason: 'PATH_NOT_CHANGED', message: 'the workspace file equals the staged one' };
  }
  return undefined;
}

/**
 * Check one path against the stage preconditions (inside the workspace, not through or to an
 * escaping symlink, allowed by the write policy and the task scope, lockfile/generated rules,
 * not a workflow, actually changed). Returns the denial, or undefined when it may be staged.
 */
export async function checkStagePath(path: string, workspace: Workspace, index: VirtualIndex, policy: WritePolicy): Promise<StageDenial | undefined> {
  let p: string;
  try {
    p = normalizeRepoPath(path);
  } catch (error) {
    const code = error instanceof AgentError ? error.reason : 'PATH_INVALID';
    return { path, reason: 'PATH_OUTSIDE_WORKSPACE', message: `path is not inside the workspace (${code})` };
  }
  return (await symlinkDenial(p, workspace, index)) ?? policyDenial(p, policy) ?? (await changeDenial(p, workspace, index));
}

/**
 * Stage an explicit list of paths into the virtual index (blobs are written to the object
 * store). All-or-nothing: if any path is denied, nothing is staged and the error lists every
 * denial in `data.denials`.
 */
export async function stagePaths(request: StageRequest): Promise<StageResult> {
  const { workspace, index, policy, ledger } = request;
  if (request.paths.length === 0) throw new GitBoundaryError('NOTHING_STAGED', 'no paths given to stage', {});
  const denials: StageDenial[] = [];
  for (const path of request.paths) {
    const denial = await checkStagePath(path, workspace, index, policy);
    if (denial) denials.push(denial);
  }
  if (denials.length > 0) {
    await ledger?.append({ actor: GIT_ACTOR, type: 'git.stage.refused', payload: { runId: request.runId, denials } });
    throw new GitBoundaryError(denials[0].reason, `cannot stage ${denials.length} path(s): ${denials.map((d) => `${d.path} (${d.reason})`).join(', ')}`, {
      denials,
    });
  }
  const result: StageResult = { staged: [] };
  for (const path of [...new Set(request.paths.map((p) => normalizeRepoPath(p)))]) {
    const entry = workspace.entry(path);
    if (!entry) {
      index.remove(path);
      result.staged.push({ path, change: 'DELETED' });
      continue;
    }
    const oid = await git.writeBlob({ fs: workspace.fs, gitdir: workspace.gitdir, blob: await workspace.read(path) });
    const change = index.has(path) ? 'MODIFIED' : 'ADDED';
    index.set({ path, mode: entry.mode, oid });
    result.staged.push({ path, change, oid });
  }
  await ledger?.append({ actor: GIT_ACTOR, type: 'git.staged', payload: { runId: request.runId, files: result.staged } });
  return result;
}
