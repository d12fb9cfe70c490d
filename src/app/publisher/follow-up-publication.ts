import { readArtifactIfPresent } from '../../core/artifacts/artifact-io.js';
import type { RunKeys } from '../../core/artifacts/keys.js';
import type { PrCandidate } from '../../core/git/pr-candidate.js';
import type { PublicationPlan } from '../../core/publish/publication.js';
import { describeRefusal, type PublishError } from '../../core/publish/publish-error.js';
import { replaceRevisionsSection, type RevisionEntry } from '../../core/runs/revisions.js';
import type { ArtifactStore } from '../../core/ports.js';
import type { FollowUp } from '../../core/runs/follow-up.js';
import { AttemptRequest } from '../../core/runs/run-request.js';
import type { GitHubApi } from '../github/github-api.js';
import { orUndefinedOn404 } from './publisher-context.js';
import { PublishRecord } from './publish-record.js';

/** The follow-up of an attempt, from the attempt request only the webhook writes (attempt 1 has none). */
export async function readFollowUp(store: ArtifactStore, keys: RunKeys, attempt: number): Promise<FollowUp | undefined> {
  if (attempt < 2) return undefined;
  const request = await readArtifactIfPresent(store, keys.attempt(attempt).request, AttemptRequest);
  return request?.followUp;
}

/** Where the agent branch is now (the follow-up must find it where it built). */
export async function readBranchHead(api: GitHubApi, owner: string, repo: string, branch: string): Promise<string | undefined> {
  const ref = await orUndefinedOn404(() => api.rest.git.getRef({ owner, repo, ref: `heads/${branch}` }));
  return ref?.data.object.sha;
}

/** The Revisions entry of a follow-up attempt's commit. */
export function revisionEntry(
  followUp: FollowUp,
  candidate: PrCandidate,
  plan: PublicationPlan | undefined,
  commitSha: string | undefined,
  note?: string,
): RevisionEntry {
  return {
    attempt: candidate.attempt,
    kind: followUp.kind,
    sender: followUp.sender,
    commitSha,
    parentSha: candidate.baseCommitSha,
    files: candidate.diffSummary.files.map((f) => ({ path: f.path, insertions: f.insertions, deletions: f.deletions })),
    checks: (plan?.verification.checks ?? candidate.verification.checks).map((c) => ({ name: c.name, status: c.status })),
    note,
  };
}

/**
 * The earlier record's revisions plus this one (an entry for the same attempt is replaced),
 * and the PR body with its Revisions section re-rendered from them; every other section,
 * including the Verification section CI feedback writes, is kept.
 */
export async function updateRevisions(
  api: GitHubApi,
  owner: string,
  repo: string,
  prNumber: number,
  previous: PublishRecord | undefined,
  entry: RevisionEntry,
): Promise<RevisionEntry[]> {
  const revisions = [...(previous?.revisions ?? []).filter((r) => r.attempt !== entry.attempt), entry];
  const pull = await api.rest.pulls.get({ owner, repo, pull_number: prNumber });
  const body = replaceRevisionsSection(pull.data.body ?? '', revisions);
  if (body !== (pull.data.body ?? '')) await api.rest.pulls.update({ owner, repo, pull_number: prNumber, body });
  return revisions;
}

/**
 * A follow-up that could not be published is said on its pull request too (the progress
 * comment on the issue says it as for any refusal). A branch that moved is never forced: the
 * maintainer asks again on the new head.
 */
export async function noteRefusedFollowUp(api: GitHubApi, owner: string, repo: string, followUp: FollowUp, error: PublishError): Promise<void> {
  const hint = error.reason === 'BRANCH_MOVED' ? ' Someone pushed to the branch meanwhile; nothing was overwritten. Ask again to build on the new head.' : '';
  await api.rest.issues.createComment({
    owner,
    repo,
    issue_number: followUp.onto.pullRequest,
    body: `The ${followUp.kind === 'revise' ? 'revision' : 'CI repair'} was not published: ${describeRefusal(error)}.${hint}`,
  });
}
