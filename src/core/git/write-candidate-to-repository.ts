import git from 'isomorphic-git';
import type { FsLike } from '../ports.js';
import { treeFiles } from './tree-files.js';
import type { GitIdentity } from './commit-staged.js';
import { commitTimestamp } from './commit-staged.js';
import { GitBoundaryError } from './git-boundary-error.js';
import { commitTree, writeTreeFromFiles } from './git-objects.js';
import { GIT_ACTOR, type LedgerSink } from './ledger-sink.js';
import type { PrCandidate } from './pr-candidate.js';
import { rebuildTree, type BaseTreeFile, type ChangesReader } from './rebuild-tree.js';

export interface WriteToRepositoryResult {
  branch: string;
  commitSha: string;
  treeSha: string;
  /** False when the branch already pointed at this commit (a no-op). */
  created: boolean;
}

/**
 * Write a commit's objects into a repository: the blobs, the trees of `files` (whose root must
 * be `treeSha`), and the commit (sole parent, message, identity, dated by `createdAt`). Refs are
 * not touched; the commit id is returned so the caller can compare it before pointing a branch.
 */
export async function writeCommitObjects(options: {
  fs: FsLike;
  gitdir: string;
  blobs: Iterable<Uint8Array>;
  files: readonly BaseTreeFile[];
  treeSha: string;
  changedPaths: Iterable<string>;
  parent: string;
  message: string;
  identity: GitIdentity;
  createdAt: string | number;
}): Promise<string> {
  const { fs, gitdir, identity } = options;
  for (const blob of options.blobs) await git.writeBlob({ fs, gitdir, blob });
  const written = await writeTreeFromFiles(
    fs,
    gitdir,
    options.files.map((f) => ({ path: f.path, mode: f.mode as '100644', oid: f.oid })),
    { changedPaths: options.changedPaths },
  );
  if (written !== options.treeSha)
    throw new GitBoundaryError('TREE_MISMATCH', 'the written tree differs from the computed one', { expected: options.treeSha, actual: written });
  const person = { name: identity.name, email: identity.email, timestamp: commitTimestamp(options.createdAt), timezoneOffset: 0 };
  return git.writeCommit({
    fs,
    gitdir,
    commit: { message: options.message, tree: options.treeSha, parent: [options.parent], author: person, committer: person },
  });
}

/**
 * How a branch already at another commit may be moved: only off a commit an earlier attempt of
 * the same run made, and only while the ref still holds it.
 */
export interface BranchMove {
  /** True when `commitSha` is a commit an earlier attempt of this run made (from what the run recorded, never the branch name). */
  isEarlierAttemptCommit(commitSha: string): Promise<boolean>;
  /**
   * Compare-and-swap: point `ref` at `next` only if it still holds `expected`, atomically;
   * otherwise leave it and throw BRANCH_EXISTS_AT_OTHER_COMMIT.
   */
  swap(ref: string, next: string, expected: string): Promise<void>;
}

export interface PointedBranch {
  /** False when the branch already pointed at this commit (a no-op). */
  created: boolean;
  /** The earlier attempt's commit the branch was moved off, when it was moved. */
  movedFrom?: string;
}

/**
 * Point `refs/heads/<branch>` at `commitSha`, and nothing else (never HEAD, the index or the
 * working tree). Already there: a no-op. At an earlier attempt's commit of this run (`move`):
 * moved with a compare-and-swap. At any other commit: BRANCH_EXISTS_AT_OTHER_COMMIT, left as is.
 */
export async function pointBranch(fs: FsLike, gitdir: string, branch: string, commitSha: string, move?: BranchMove): Promise<PointedBranch> {
  const ref = `refs/heads/${branch}`;
  let existing: string | undefined;
  try {
    existing = await git.resolveRef({ fs, gitdir, ref });
  } catch {
    existing = undefined;
  }
  if (existing === commitSha) return { created: false };
  if (existing !== undefined) {
    if (!move || !(await move.isEarlierAttemptCommit(existing)))
      throw new GitBoundaryError('BRANCH_EXISTS_AT_OTHER_COMMIT', 'the branch exists at another commit', { branch, existing, commitSha });
    await move.swap(ref, commitSha, existing);
    return { created: true, movedFrom: existing };
  }
  await git.writeRef({ fs, gitdir, ref, value: commitSha, force: false });
  return { created: true };
}

/**
 * Publish a re-validated candidate into a local repository: rebuild its tree on the base, write
 * the objects and the commit (parent = base, message from the candidate, identity and createdAt
 * given), then `refs/heads/<headBranch>`. An existing branch at the same commit is a no-op; at
 * another commit, a refusal.
 */
export async function writeCandidateToRepository(options: {
  fs: FsLike;
  gitdir: string;
  candidate: PrCandidate;
  changes: ChangesReader;
  identity: GitIdentity;
  createdAt: string | number;
  ledger?: LedgerSink;
}): Promise<WriteToRepositoryResult> {
  const { fs, gitdir, candidate, ledger } = options;
  const baseTree = await commitTree(fs, gitdir, candidate.baseCommitSha);
  const { files, treeSha } = await rebuildTree(await treeFiles(fs, gitdir, baseTree), candidate, options.changes);
  const blobs: Uint8Array[] = [];
  for (const f of candidate.files) if (!('deleted' in f)) blobs.push((await options.changes(f.blobSha))!);
  const commitSha = await writeCommitObjects({
    fs,
    gitdir,
    blobs,
    files,
    treeSha,
    changedPaths: candidate.files.map((f) => f.path),
    parent: candidate.baseCommitSha,
    message: candidate.commitMessage,
    identity: options.identity,
    createdAt: options.createdAt,
  });
  const { created } = await pointBranch(fs, gitdir, candidate.headBranch, commitSha);
  if (created)
    await ledger?.append({
      actor: GIT_ACTOR,
      type: 'git.candidate.published-locally',
      payload: { runId: candidate.runId, branch: candidate.headBranch, commitSha, treeSha },
    });
  return { branch: candidate.headBranch, commitSha, treeSha, created };
}
