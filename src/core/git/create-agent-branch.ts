import git from 'isomorphic-git';
import type { FsLike } from '../ports.js';
import type { WritePolicy } from '../paths/write-rules.js';
import type { Workspace } from '../workspace/workspace.js';
import { assertAgentBranchName } from './branch-name.js';
import { GitBoundaryError } from './git-boundary-error.js';
import { gitStatus } from './git-status.js';
import { GIT_ACTOR, type LedgerSink } from './ledger-sink.js';
import type { VirtualIndex } from './virtual-index.js';

/** Where the owner run of each agent branch is recorded, inside the in-memory gitdir (git ignores it). */
const OWNERS_FILE = 'draftsman-ref-owners.json';

async function readOwners(fs: FsLike, gitdir: string): Promise<Record<string, string>> {
  try {
    return JSON.parse(String(await fs.promises.readFile(`${gitdir}/${OWNERS_FILE}`, 'utf8'))) as Record<string, string>;
  } catch {
    return {};
  }
}

/** The run that owns `branch` in this gitdir, if recorded. */
export async function branchOwner(fs: FsLike, gitdir: string, branch: string): Promise<string | undefined> {
  return (await readOwners(fs, gitdir))[branch];
}

export interface CreateBranchRequest {
  workspace: Workspace;
  index: VirtualIndex;
  branch: string;
  runId: string;
  /** The base SHA the ingestion recorded; the workspace must be on exactly this commit. */
  ingestionBaseSha: string;
  /** The run's path rules, for the status the branch is created from. */
  policy: WritePolicy;
  ledger?: LedgerSink;
}

export interface CreateBranchResult {
  branch: string;
  baseCommitSha: string;
  /** The branch's commit (the base, or the run's earlier commit when reused). */
  headSha: string;
  created: boolean;
}

/**
 * Create the agent branch at the recorded base SHA in the in-memory gitdir and point HEAD at
 * it (`git checkout -B` without touching files). Preconditions: a valid name under `agent/`,
 * a clean workspace, the base equal to the ingestion's. An existing branch is reused only by
 * the run that owns it; when reused, open the index from `headSha`.
 */
export async function createAgentBranch(request: CreateBranchRequest): Promise<CreateBranchResult> {
  const { workspace, branch, runId, ledger } = request;
  const { fs, gitdir } = workspace;
  assertAgentBranchName(branch);
  if (workspace.baseCommitSha !== request.ingestionBaseSha) {
    throw new GitBoundaryError('BASE_MISMATCH', 'the workspace base is not the ingested base commit', {
      workspaceBase: workspace.baseCommitSha,
      ingestionBase: request.ingestionBaseSha,
    });
  }
  const status = await gitStatus({ workspace, index: request.index, policy: request.policy });
  if (!status.clean)
    throw new GitBoundaryError('WORKSPACE_NOT_CLEAN', 'the workspace has changes; a branch is created on a clean workspace', {
      changes: status.entries.length,
    });

  const ref = `refs/heads/${branch}`;
  let existing: string | undefined;
  try {
    existing = await git.resolveRef({ fs, gitdir, ref });
  } catch {
    existing = undefined;
  }
  const owners = await readOwners(fs, gitdir);
  if (existing !== undefined) {
    if (owners[branch] !== runId) {
      throw new GitBoundaryError('BRANCH_OWNED_BY_OTHER_RUN', 'the branch exists and belongs to another run', { branch, owner: owners[branch] ?? null });
    }
    await git.writeRef({ fs, gitdir, ref: 'HEAD', value: ref, symbolic: true, force: true });
    await ledger?.append({ actor: GIT_ACTOR, type: 'git.branch.reused', payload: { runId, branch, headSha: existing } });
    return { branch, baseCommitSha: workspace.baseCommitSha, headSha: existing, created: false };
  }
  await git.writeRef({ fs, gitdir, ref, value: workspace.baseCommitSha, force: false });
  await git.writeRef({ fs, gitdir, ref: 'HEAD', value: ref, symbolic: true, force: true });
  owners[branch] = runId;
  await fs.promises.writeFile(`${gitdir}/${OWNERS_FILE}`, JSON.stringify(owners, null, 2));
  await ledger?.append({ actor: GIT_ACTOR, type: 'git.branch.created', payload: { runId, branch, baseCommitSha: workspace.baseCommitSha } });
  return { branch, baseCommitSha: workspace.baseCommitSha, headSha: workspace.baseCommitSha, created: true };
}
