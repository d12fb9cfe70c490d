import git from 'isomorphic-git';
import { readBaseSymlinks } from '../../core/publish/base-symlinks.js';
import { runGit } from '../git/run-git.js';
import { readArtifact } from '../../core/artifacts/artifact-io.js';
import type { RunKeys } from '../../core/artifacts/keys.js';
import type { GitIdentity } from '../../core/git/commit-staged.js';
import { GitBoundaryError } from '../../core/git/git-boundary-error.js';
import { commitTree } from '../../core/git/git-objects.js';
import { PrCandidate } from '../../core/git/pr-candidate.js';
import { pointBranch, writeCommitObjects, type BranchMove } from '../../core/git/write-candidate-to-repository.js';
import { Checkpoint } from '../../core/phases/orchestrator.js';
import { PrepareOutput } from '../../core/pipeline/phases/prepare-phase.js';
import { POLICY_FILE_NAME } from '../../core/policy/agent-policy.js';
import { parsePolicy } from '../../core/policy/parse-policy.js';
import { PolicyError } from '../../core/policy/policy-error.js';
import type { ArtifactStore, FsLike } from '../../core/ports.js';
import type { Publisher } from '../../core/publish/publication.js';
import { storageBinding } from '../../core/publish/check-binding.js';
import { planPublication } from '../../core/publish/plan-publication.js';
import type { BaseState, PublicationApplied, PublicationPlan, TrustedPolicy } from '../../core/publish/publication.js';
import { describeRefusal, PublishError } from '../../core/publish/publish-error.js';
import { hasRunIdTrailer } from '../../core/runs/run-branch.js';
import { trustedAttemptState } from '../../core/runs/attempts.js';
import { AttemptRequest, RunRequest } from '../../core/runs/run-request.js';
import type { FileMode, TreeFile } from '../../core/workspace/workspace.js';
import { identityFromLocalPath } from '../git/repo-identity.js';
import { sortByPath } from '../../core/util/path-order.js';

/** A local publication; `movedFrom` is the earlier attempt's commit the branch was moved off. */
export type LocalPublicationApplied = PublicationApplied & { movedFrom?: string };

/**
 * Applies a plan to a local repository (`draftsman run --publish`): the blobs, trees and the
 * commit (identity and date of the attempt, so it is the candidate's own commit), then
 * `refs/heads/<agentBranch>` only; never HEAD, the index or the working tree. The branch already
 * at that commit is a no-op; at an earlier attempt's commit of this run (`move`), moved with a
 * compare-and-swap; at any other commit, BRANCH_NOT_OURS.
 */
export class LocalPublisher implements Publisher {
  constructor(private readonly options: { fs: FsLike; gitdir: string; identity: GitIdentity; createdAt: string | number; move?: BranchMove }) {}

  async apply(plan: PublicationPlan): Promise<LocalPublicationApplied> {
    const { fs, gitdir } = this.options;
    if (!plan.tree.files) throw new PublishError('TREE_MISMATCH', 'the plan has no complete tree to write', { expected: plan.expectedTreeSha });
    try {
      const commitSha = await writeCommitObjects({
        fs,
        gitdir,
        blobs: plan.blobs.map((b) => b.bytes),
        files: plan.tree.files,
        treeSha: plan.expectedTreeSha,
        changedPaths: plan.tree.changes.map((c) => c.path),
        parent: plan.parent,
        message: plan.commit.message,
        identity: this.options.identity,
        createdAt: this.options.createdAt,
      });
      // Checked before the branch moves: a branch never holds a commit that is not the candidate's.
      if (commitSha !== plan.commit.candidateCommitSha) {
        throw new PublishError('OBJECT_MISMATCH', `the rebuilt commit ${commitSha} differs from the candidate's ${plan.commit.candidateCommitSha}`, {
          commitSha,
          expected: plan.commit.candidateCommitSha,
        });
      }
      const { created, movedFrom } = await pointBranch(fs, gitdir, plan.ref.branch, commitSha, this.options.move);
      return { branch: plan.ref.branch, commitSha, treeSha: plan.expectedTreeSha, created, ...(movedFrom ? { movedFrom } : {}), warnings: [] };
    } catch (error) {
      if (!(error instanceof GitBoundaryError)) throw error;
      const reason = error.reason === 'BRANCH_EXISTS_AT_OTHER_COMMIT' ? 'BRANCH_NOT_OURS' : 'TREE_MISMATCH';
      throw new PublishError(reason, error.message, { detail: error.reason, ...error.data }, { cause: error });
    }
  }
}

async function resolveCommit(fs: FsLike, gitdir: string, ref: string): Promise<string | undefined> {
  for (const candidate of [`refs/heads/${ref}`, ref]) {
    try {
      return await git.resolveRef({ fs, gitdir, ref: candidate });
    } catch {
      // not this spelling
    }
  }
  return /^[0-9a-f]{40}$/.test(ref) ? ref : undefined;
}

/** The candidate's base as the local repository has it: the base tree, the changed paths' base bytes, the base branch head. */
export async function readLocalBase(fs: FsLike, gitdir: string, candidate: PrCandidate): Promise<BaseState> {
  const defaultBranch = (await git.currentBranch({ fs, gitdir, fullname: false }).catch(() => undefined)) ?? 'HEAD';
  const baseHead = await resolveCommit(fs, gitdir, candidate.baseBranch);
  const baseTreeSha = await commitTree(fs, gitdir, candidate.baseCommitSha).catch(() => undefined);
  if (!baseTreeSha) return { defaultBranch, baseTreeSha, baseFiles: undefined, baseBytes: new Map(), baseHead, baseOnBranch: undefined };
  const baseOnBranch =
    baseHead === undefined
      ? undefined
      : baseHead === candidate.baseCommitSha ||
        (await git.isDescendent({ fs, gitdir, oid: baseHead, ancestor: candidate.baseCommitSha, depth: -1 }).catch(() => false));
  const baseFiles = await listTree(gitdir, baseTreeSha);
  const byPath = new Map(baseFiles.map((f) => [f.path, f]));
  const baseBytes = new Map<string, Uint8Array>();
  for (const f of candidate.files) {
    const file = byPath.get(f.path);
    if (!file || file.mode === '160000') continue;
    baseBytes.set(f.path, (await git.readBlob({ fs, gitdir, oid: file.oid })).blob);
  }
  const symlinks = await readBaseSymlinks(baseFiles, async (oid) => (await git.readBlob({ fs, gitdir, oid })).blob);
  return { defaultBranch, baseTreeSha, baseFiles, baseBytes, baseHead, baseOnBranch, symlinks };
}

/**
 * Every file of a tree in the local repository, as `readTreeFiles` lists them (sorted by path),
 * from one `git ls-tree -r`: walking a 10k-file tree object by object on disk took seconds.
 */
export async function listTree(gitdir: string, treeSha: string): Promise<TreeFile[]> {
  const out = (await runGit(['--git-dir', gitdir, 'ls-tree', '-r', '-z', '--full-tree', treeSha])).toString('utf8');
  const files: TreeFile[] = [];
  for (const line of out.split('\0')) {
    if (!line) continue;
    // `<mode> SP <type> SP <oid> TAB <path>`; with -z the path is as stored, never quoted.
    const tab = line.indexOf('\t');
    const [mode, , oid] = line.slice(0, tab).split(' ');
    files.push({ path: line.slice(tab + 1), mode: mode as FileMode, oid });
  }
  return sortByPath(files, (f) => f.path);
}

/** The CLI's trusted policy: `--policy` when given, else the base commit's `.agent-policy.yaml`. */
export async function readLocalPolicy(fs: FsLike, gitdir: string, baseCommitSha: string, given?: { text: Uint8Array; file: string }): Promise<TrustedPolicy> {
  const ref = given ? given.file : `${baseCommitSha}:${POLICY_FILE_NAME}`;
  const text =
    given?.text ??
    (await git.readBlob({ fs, gitdir, oid: baseCommitSha, filepath: POLICY_FILE_NAME }).then(
      (r) => r.blob,
      () => undefined,
    ));
  try {
    return { ok: true, policy: parsePolicy({ text, file: given?.file ?? POLICY_FILE_NAME }), ref };
  } catch (error) {
    if (!(error instanceof PolicyError)) throw error;
    return { ok: false, ref, policyReason: error.reason, message: error.message };
  }
}

/** The attempt's createdAt, which dated the candidate's commit, and the gates and plan `--approve` passed for it. */
async function attemptOf(
  store: ArtifactStore,
  keys: RunKeys,
  request: RunRequest,
  attempt: number,
): Promise<Pick<AttemptRequest, 'createdAt' | 'approvedGates' | 'approvedPlan'>> {
  if (attempt === 1) return { createdAt: request.createdAt, approvedGates: [] };
  const next = await readArtifact(store, keys.attempt(attempt).request, AttemptRequest);
  return { createdAt: next.createdAt, approvedGates: next.approvedGates, approvedPlan: next.approvedPlan };
}

/**
 * The commits earlier attempts of this run made (head -> the base it stands on), from their
 * pr_preparation checkpoints: what the run recorded, not what the branch is called. A record
 * that does not parse vouches for nothing.
 */
export async function earlierAttemptCommits(store: ArtifactStore, keys: RunKeys, runId: string, attempt: number): Promise<Map<string, string>> {
  const commits = new Map<string, string>();
  for (let n = 1; n < attempt; n++) {
    for (const key of await store.list(keys.attempt(n).checkpointsPrefix)) {
      if (!key.endsWith('-pr_preparation.json')) continue;
      const checkpoint = await readArtifact(store, key, Checkpoint).catch(() => undefined);
      const output = PrepareOutput.safeParse(checkpoint?.output);
      if (checkpoint?.runId === runId && checkpoint.attempt === n && output.success) commits.set(output.data.headCommitSha, checkpoint.baseCommitSha);
    }
  }
  return commits;
}

/**
 * Moves a local agent branch off an earlier attempt's commit: the commit must be one the run
 * recorded, and the repository must agree (its only parent is the base that attempt recorded, its
 * message carries this run's `Run-id:` trailer). The move is `git update-ref <ref> <new> <old>`,
 * which rewrites the ref under git's own lock only while it still holds the old commit.
 */
export function localBranchMove(options: { fs: FsLike; gitdir: string; runId: string; earlier: ReadonlyMap<string, string>; message: string }): BranchMove {
  const { fs, gitdir, runId, earlier } = options;
  return {
    async isEarlierAttemptCommit(commitSha) {
      const base = earlier.get(commitSha);
      if (base === undefined) return false;
      const commit = await git.readCommit({ fs, gitdir, oid: commitSha }).then(
        (c) => c.commit,
        () => undefined,
      );
      if (!commit || commit.parent.length !== 1 || commit.parent[0] !== base) return false;
      return hasRunIdTrailer(commit.message, runId);
    },
    async swap(ref, next, expected) {
      try {
        await runGit(['--git-dir', gitdir, 'update-ref', '-m', options.message, ref, next, expected]);
      } catch (error) {
        const existing = await git.resolveRef({ fs, gitdir, ref }).catch(() => undefined);
        throw new GitBoundaryError(
          'BRANCH_EXISTS_AT_OTHER_COMMIT',
          'the branch moved while it was being updated',
          { branch: ref.replace(/^refs\/heads\//, ''), existing, expected, commitSha: next },
          { cause: error },
        );
      }
    },
  };
}

async function gitDir(location: string): Promise<string> {
  return (await runGit(['-C', location, 'rev-parse', '--absolute-git-dir'])).toString('utf8').trim();
}

/**
 * `draftsman run --publish`: the same decision as the App's publisher (planPublication), from the
 * run's own store and the local repository, applied by LocalPublisher. Returns the note the CLI
 * prints: `published ...`, `updated refs/heads/... from <old> to <new>` (a rerun moving the
 * branch off an earlier attempt's commit), `refs/heads/... is already at ...`, or
 * `refused: REASON: ...`.
 */
export async function publishToLocalRepository(options: {
  fs: FsLike;
  store: ArtifactStore;
  keys: RunKeys;
  location: string;
  identity: GitIdentity;
  policy?: { text: Uint8Array; file: string };
}): Promise<string> {
  const { fs, store, keys, location } = options;
  const request = await readArtifact(store, keys.request, RunRequest);
  const object = await store.get(keys.candidate.prCandidate);
  let stored: unknown;
  try {
    stored = object ? JSON.parse(new TextDecoder().decode(object.body)) : undefined;
  } catch {
    stored = undefined;
  }
  const parsed = PrCandidate.safeParse(stored);
  if (!parsed.success) return 'refused: CANDIDATE_INVALID: pr-candidate.json is missing or fails its schema';
  const raw = parsed.data;
  const gitdir = await gitDir(location);
  const attempt = await attemptOf(store, keys, request, raw.attempt);
  const blobs = new Map<string, Uint8Array>();
  for (const f of raw.files) {
    if ('deleted' in f) continue;
    const object = await store.get(keys.candidate.change(f.blobSha));
    if (object) blobs.set(f.blobSha, object.body);
  }
  const decision = await planPublication({
    binding: storageBinding(keys.prefix),
    request,
    candidate: stored,
    attemptState: await trustedAttemptState(store, keys, request.runId, raw.attempt),
    target: { kind: 'local', ...identityFromLocalPath(location) },
    trustedPolicy: await readLocalPolicy(fs, gitdir, raw.baseCommitSha, options.policy),
    base: await readLocalBase(fs, gitdir, raw),
    blobs,
    approvedGates: attempt.approvedGates,
    approvedPlan: attempt.approvedPlan,
  });
  if (decision.kind === 'refuse') return `refused: ${describeRefusal(decision.error, 20)}`;
  if (decision.kind === 'rerun') return `refused: BASE_MOVED: ${raw.baseBranch} moved from ${decision.from} to ${decision.to}; run again on the new base`;
  try {
    const earlier = await earlierAttemptCommits(store, keys, request.runId, raw.attempt);
    const move = localBranchMove({ fs, gitdir, runId: request.runId, earlier, message: `draftsman: run ${request.runId} attempt ${raw.attempt}` });
    const applied = await new LocalPublisher({ fs, gitdir, identity: options.identity, createdAt: attempt.createdAt, move }).apply(decision.plan);
    if (applied.movedFrom) return `updated refs/heads/${applied.branch} from ${applied.movedFrom} to ${applied.commitSha}`;
    return applied.created
      ? `published ${applied.commitSha} to refs/heads/${applied.branch}`
      : `refs/heads/${applied.branch} is already at ${applied.commitSha}`;
  } catch (error) {
    if (error instanceof PublishError) return `refused: ${describeRefusal(error, 20)}`;
    throw error;
  }
}
