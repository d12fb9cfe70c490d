import { readBaseSymlinks } from '../../core/publish/base-symlinks.js';
import { readArtifactIfPresent } from '../../core/artifacts/artifact-io.js';
import type { RunKeys } from '../../core/artifacts/keys.js';
import type { PrCandidate } from '../../core/git/pr-candidate.js';
import type { BaseTreeFile } from '../../core/git/rebuild-tree.js';
import type { ArtifactStore, IssuedToken } from '../../core/ports.js';
import type { BaseState, PublicationTarget, TrustedPolicy } from '../../core/publish/publication.js';
import { ApprovalMarker, CancelMarker } from '../../core/runs/run-state.js';
import type { ApprovedPlan } from '../../core/runs/plan-gate.js';
import { readTrustedPolicy as readDefaultBranchPolicy } from '../github/read-trusted-policy.js';
import type { GitHubApi } from '../github/github-api.js';
import { orUndefinedOn404 } from './publisher-context.js';

interface Repo {
  api: GitHubApi;
  owner: string;
  repo: string;
}

/** The repository as GitHub reports it to the installation token, and its default branch head. */
export async function readGitHubTarget(r: Repo, issued: IssuedToken): Promise<{ target: PublicationTarget; defaultBranch: string; defaultHead: string }> {
  const repository = await r.api.rest.repos.get({ owner: r.owner, repo: r.repo });
  const defaultBranch = repository.data.default_branch;
  const defaultHead = (await r.api.rest.repos.getBranch({ owner: r.owner, repo: r.repo, branch: defaultBranch })).data.commit.sha;
  const target: PublicationTarget = {
    kind: 'github',
    repositoryId: repository.data.id,
    owner: repository.data.owner.login,
    repo: repository.data.name,
    tokenRepositoryIds: issued.repositoryIds,
  };
  return { target, defaultBranch, defaultHead };
}

/**
 * The trusted policy through the one reader the webhook and the worker use (default branch head,
 * never the agent branch, a fork or a PR head), in the shape the publication plan takes.
 */
export async function readTrustedPolicy(r: Repo, defaultBranch: string): Promise<TrustedPolicy> {
  const read = await readDefaultBranchPolicy(r.api, { owner: r.owner, repo: r.repo, defaultBranch });
  const ref = `${defaultBranch}@${read.commitSha}`;
  return read.ok ? { ok: true, policy: read.policy, ref } : { ok: false, ref, policyReason: read.error.reason, message: read.error.message };
}

/** One path of the base commit through the contents API (a file's blob SHA; a submodule's gitlink); undefined when absent. */
async function baseFileAt(r: Repo, ref: string, path: string): Promise<BaseTreeFile | undefined> {
  const found = await orUndefinedOn404(() => r.api.rest.repos.getContent({ owner: r.owner, repo: r.repo, path, ref }));
  const data = found?.data;
  if (!data || Array.isArray(data)) return undefined;
  return { path, mode: data.type === 'submodule' ? '160000' : data.type === 'symlink' ? '120000' : '100644', oid: data.sha };
}

/** The candidate's base as GitHub has it: the base commit's tree listed once, the changed paths' base bytes, the base branch head. */
export async function readGitHubBase(r: Repo, candidate: PrCandidate, defaultBranch: string, defaultHead: string): Promise<BaseState> {
  const { api, owner, repo } = r;
  const baseHead =
    candidate.baseBranch === defaultBranch
      ? defaultHead
      : (await orUndefinedOn404(() => api.rest.repos.getBranch({ owner, repo, branch: candidate.baseBranch })))?.data.commit.sha;
  const baseCommit = await orUndefinedOn404(() => api.rest.git.getCommit({ owner, repo, commit_sha: candidate.baseCommitSha }));
  if (!baseCommit) return { defaultBranch, baseTreeSha: undefined, baseFiles: undefined, baseBytes: new Map(), baseHead, baseOnBranch: undefined };
  const baseOnBranch = await isOnBranch(r, candidate.baseCommitSha, baseHead);
  const baseTreeSha = baseCommit.data.tree.sha;
  const listing = await api.rest.git.getTree({ owner, repo, tree_sha: baseTreeSha, recursive: 'true' });
  const files = new Map<string, BaseTreeFile>();
  for (const e of listing.data.tree) {
    if (e.type === 'tree' || !e.path || !e.sha || !e.mode) continue;
    files.set(e.path, { path: e.path, mode: e.mode, oid: e.sha });
  }
  const baseBytes = new Map<string, Uint8Array>();
  for (const f of candidate.files) {
    // A truncated listing (very large trees) may lack a changed path that the base has: without
    // its base bytes the whole file would be scanned as added, and publication would refuse a
    // line the worker's scan rightly left alone. Such a path is looked up at the base commit.
    const file = files.get(f.path) ?? (listing.data.truncated ? await baseFileAt(r, candidate.baseCommitSha, f.path) : undefined);
    if (!file || file.mode === '160000') continue;
    const blob = await api.rest.git.getBlob({ owner, repo, file_sha: file.oid });
    baseBytes.set(f.path, Buffer.from(blob.data.content, 'base64'));
  }
  const symlinks = await readBaseSymlinks([...files.values()], async (oid) =>
    Buffer.from((await api.rest.git.getBlob({ owner, repo, file_sha: oid })).data.content, 'base64'),
  );
  // A truncated listing cannot rebuild the tree locally; GitHub's tree SHA is checked instead.
  return { defaultBranch, baseTreeSha, baseFiles: listing.data.truncated ? undefined : [...files.values()], baseBytes, baseHead, baseOnBranch, symlinks };
}

/** Whether `commit` is `head` or an ancestor of it, as GitHub compares them (undefined without a head). */
async function isOnBranch(r: Repo, commit: string, head: string | undefined): Promise<boolean | undefined> {
  if (!head) return undefined;
  if (head === commit) return true;
  const compared = await orUndefinedOn404(() =>
    r.api.rest.repos.compareCommitsWithBasehead({ owner: r.owner, repo: r.repo, basehead: `${commit}...${head}`, per_page: 1 }),
  );
  return compared !== undefined && (compared.data.status === 'ahead' || compared.data.status === 'identical');
}

/** The candidate's blobs as stored (`candidate/changes/<sha>`); a missing or ill-named one is left out (re-validation names it). */
export async function readCandidateBlobs(store: ArtifactStore, keys: RunKeys, candidate: PrCandidate): Promise<Map<string, Uint8Array>> {
  const blobs = new Map<string, Uint8Array>();
  for (const f of candidate.files) {
    if ('deleted' in f || blobs.has(f.blobSha) || !/^[0-9a-f]{40}$/.test(f.blobSha)) continue;
    const object = await store.get(keys.candidate.change(f.blobSha));
    if (object) blobs.set(f.blobSha, object.body);
  }
  return blobs;
}

/** What only the trigger writes under the run's key: the cancel marker and this attempt's approval (its gate, and the plan the run is held to). */
export async function readRunControls(
  store: ArtifactStore,
  keys: RunKeys,
  runId: string,
  attempt: number,
): Promise<{ cancel?: { attempt: number; by: string }; approvedGates: string[]; approvedPlan?: ApprovedPlan }> {
  const cancel = await readArtifactIfPresent(store, keys.cancel, CancelMarker);
  const approval = await readArtifactIfPresent(store, keys.approve(attempt), ApprovalMarker);
  const own = approval && approval.runId === runId && approval.attempt === attempt ? approval : undefined;
  const approvedGates = own?.gateId ? [own.gateId] : [];
  return { cancel: cancel ? { attempt: cancel.attempt, by: cancel.by } : undefined, approvedGates, ...(own?.plan ? { approvedPlan: own.plan } : {}) };
}
