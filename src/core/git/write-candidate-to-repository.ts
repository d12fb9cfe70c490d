import git from 'isomorphic-git';
import type { FsLike } from '../ports.js';
import { readTreeFiles } from '../workspace/workspace.js';
import type { GitIdentity } from './commit-staged.js';
import { commitTimestamp } from './commit-staged.js';
import { GitBoundaryError } from './git-boundary-error.js';
import { commitTree, writeTreeFromFiles } from './git-objects.js';
import { GIT_ACTOR, type LedgerSink } from './ledger-sink.js';
import type { PrCandidate } from './pr-candidate.js';
import { rebuildTree, type ChangesReader } from './rebuild-tree.js';

export interface WriteToRepositoryResult {
  branch: string;
  commitSha: string;
  treeSha: string;
  /** False when the branch already pointed at this commit (a no-op). */
  created: boolean;
}

/**
 * Publish a re-validated candidate into a local repository (CLI `--publish`): write its blobs,
 * trees and the commit (parent = base, message from the candidate, identity and createdAt
 * given), then `refs/heads/<headBranch>`. Nothing else: never HEAD, the index or the working
 * tree. An existing branch at the same commit is a no-op; at another commit, a refusal.
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
  const { fs, gitdir, candidate, identity, ledger } = options;
  const baseTree = await commitTree(fs, gitdir, candidate.baseCommitSha);
  const { files, treeSha } = await rebuildTree(await readTreeFiles(fs, gitdir, baseTree), candidate, options.changes);
  for (const f of candidate.files) {
    if ('deleted' in f) continue;
    const bytes = (await options.changes(f.blobSha))!;
    await git.writeBlob({ fs, gitdir, blob: bytes });
  }
  const written = await writeTreeFromFiles(fs, gitdir, files.map((f) => ({ path: f.path, mode: f.mode as '100644', oid: f.oid })), { changedPaths: candidate.files.map((f) => f.path) });
  if (written !== treeSha) throw new GitBoundaryError('TREE_MISMATCH', 'the written tree differs from the computed one', { expected: treeSha, actual: written });
  const person = { name: identity.name, email: identity.email, timestamp: commitTimestamp(options.createdAt), timezoneOffset: 0 };
  const commitSha = await git.writeCommit({ fs, gitdir, commit: { message: candidate.commitMessage, tree: treeSha, parent: [candidate.baseCommitSha], author: person, committer: person } });
  const ref = `refs/heads/${candidate.headBranch}`;
  let existing: string | undefined;
  try {
    existing = await git.resolveRef({ fs, gitdir, ref });
  } catch {
    existing = undefined;
  }
  if (existing === commitSha) return { branch: candidate.headBranch, commitSha, treeSha, created: false };
  if (existing !== undefined) throw new GitBoundaryError('BRANCH_EXISTS_AT_OTHER_COMMIT', 'the branch exists at another commit', { branch: candidate.headBranch, existing, commitSha });
  await git.writeRef({ fs, gitdir, ref, value: commitSha, force: false });
  await ledger?.append({ actor: GIT_ACTOR, type: 'git.candidate.published-locally', payload: { runId: candidate.runId, branch: candidate.headBranch, commitSha, treeSha } });
  return { branch: candidate.headBranch, commitSha, treeSha, created: true };
}
