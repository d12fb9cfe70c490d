import { openWorkspace, readTreeFiles, type Workspace } from '../workspace/workspace.js';
import { AgentError } from '../errors.js';
import { applyPatch } from './apply-patch.js';
import { workspaceSide } from './tree-side.js';

export interface RecoveryReport {
  status: 'RESUMABLE' | 'NEEDS_RECONCILIATION';
  /** How many recorded patches the workspace already reflects (in order). */
  appliedPatches: number;
  /** CONTINUE: nothing to redo; APPLY_REMAINING: apply patches[appliedPatches..] with applyPatch. */
  action: 'CONTINUE' | 'APPLY_REMAINING' | 'RECONCILE';
  /** Paths where the workspace differs from every recorded state (for a human). */
  differingPaths: string[];
  reason?: string;
}

/**
 * Decide whether a run can resume: replay the recorded patches on a scratch copy of the base
 * and find the prefix the workspace equals. Reads only; it never resets, so a mismatch keeps
 * its evidence for a human.
 */
export async function checkRecovery(workspace: Workspace, patches: (string | Uint8Array)[]): Promise<RecoveryReport> {
  const files = await readTreeFiles(workspace.fs, workspace.gitdir, workspace.baseTreeSha);
  const scratch = await openWorkspace({ fs: workspace.fs, gitdir: workspace.gitdir, commitSha: workspace.baseCommitSha, files });
  const current = (await workspaceSide(workspace)).files;
  const differing = async (): Promise<string[]> => {
    const other = (await workspaceSide(scratch)).files;
    const out: string[] = [];
    for (const p of new Set([...current.keys(), ...other.keys()])) {
      const a = current.get(p);
      const b = other.get(p);
      if (!a || !b || a.oid !== b.oid || a.mode !== b.mode) out.push(p);
    }
    return out.sort();
  };
  let best: string[] = await differing();
  let matched = best.length === 0 ? 0 : -1;
  for (let k = 0; k < patches.length; k++) {
    try {
      await applyPatch(scratch, patches[k]);
    } catch (error) {
      const reason = error instanceof AgentError ? error.reason : 'PATCH_INVALID';
      return { status: 'NEEDS_RECONCILIATION', appliedPatches: 0, action: 'RECONCILE', differingPaths: best, reason: `recorded patch ${k} does not apply: ${reason}` };
    }
    const diff = await differing();
    if (diff.length === 0) matched = k + 1;
    else if (diff.length < best.length || matched < 0) best = diff;
  }
  if (matched === patches.length) return { status: 'RESUMABLE', appliedPatches: matched, action: 'CONTINUE', differingPaths: [] };
  if (matched >= 0) return { status: 'RESUMABLE', appliedPatches: matched, action: 'APPLY_REMAINING', differingPaths: [] };
  return { status: 'NEEDS_RECONCILIATION', appliedPatches: 0, action: 'RECONCILE', differingPaths: best, reason: 'the workspace matches no recorded state' };
}
