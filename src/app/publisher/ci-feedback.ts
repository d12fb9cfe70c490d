import { z } from 'zod';
import { readArtifactIfPresent, writeArtifact } from '../../core/artifacts/artifact-io.js';
import type { RunKeys } from '../../core/artifacts/keys.js';
import { renderVerificationSection, replaceVerificationSection } from '../../core/phases/verification-section.js';
import type { ArtifactStore, Clock, Logger, TokenBroker } from '../../core/ports.js';
import { RunRequest } from '../../core/runs/run-request.js';
import { listOpenAgentRuns } from '../../core/runs/open-runs.js';
import { findAgentRun } from '../webhook/agent-run.js';
import { CiEvent, readCiSnapshot, type CiSnapshot } from '../webhook/ci-event.js';
import type { GitHubApi } from '../github/github-api.js';
import { renderProgressComment } from '../github/progress-comment.js';
import type { PublishDeps } from './publish-candidate.js';
import { PublishRecord } from './publish-record.js';
import { closeRun } from './pull-request-outcome.js';
import { orUndefinedOn404 } from './publisher-context.js';

/**
 * CI feedback for agent pull requests: real CI results replace the PR
 * body's Verification section.
 *
 * Which webhook events (GitHub's "Webhook events and payloads", availability of each event):
 * - `check_suite.completed`: an App with checks:read receives `completed` for every check suite
 *   in the repositories it is installed on, whichever App made the suite (GitHub Actions
 *   included); `requested`/`rerequested` need checks:write and go to the requested App only.
 *   This is the main signal.
 * - `status`: an App with the statuses permission receives every commit status; its
 *   `branches` (at most 10) name the agent branch. Handled, for CI that reports statuses.
 * - `workflow_run`: needs the actions or contents permission. Not used: every workflow run
 *   belongs to a GitHub Actions check suite, whose `check_suite.completed` already arrives,
 *   and subscribing would only duplicate events.
 * - `pull_request.closed`: for agent PRs, recorded so the publisher can update the progress
 *   comment and delete an unmerged agent branch.
 *
 * Least privilege: checks and statuses are read with token-read (checks:read,
 * statuses:read) by the webhook and the sweeper, which store what the API said in the `ci/`
 * object; the publisher (token-write: contents, pull_requests, issues; no checks scope) only
 * confirms the object is about the PR's current head and writes the PR body.
 */

export interface CiRecorderDeps {
  store: ArtifactStore;
  /** Built for the `read` role (token-read). */
  tokens: TokenBroker;
  github: (token: string) => GitHubApi;
  clock: Clock;
  logger: Logger;
}

export type CiRecordOutcome = { kind: 'recorded'; key: string; runId: string } | { kind: 'ignored'; why: string };

const RepositoryPayload = z.object({ id: z.number().int(), name: z.string(), owner: z.object({ login: z.string() }) });

export const CheckSuiteCompletedPayload = z.object({
  action: z.literal('completed'),
  check_suite: z.object({
    id: z.number().int(),
    head_branch: z.string().nullable(),
    head_sha: z.string(),
    status: z.string().nullable().optional(),
    conclusion: z.string().nullable(),
    url: z.string().optional(),
    app: z.object({ id: z.number().int(), slug: z.string().optional(), name: z.string().optional() }).nullable().optional(),
  }),
  repository: RepositoryPayload,
});

export const CommitStatusPayload = z.object({
  id: z.number().int(),
  sha: z.string(),
  state: z.string(),
  context: z.string(),
  target_url: z.string().nullable().optional(),
  branches: z.array(z.object({ name: z.string(), commit: z.object({ sha: z.string() }) })),
  repository: RepositoryPayload,
});

export const PullRequestClosedPayload = z.object({
  action: z.literal('closed'),
  pull_request: z.object({
    number: z.number().int().positive(),
    merged: z.boolean().nullable().optional(),
    head: z.object({ ref: z.string(), sha: z.string(), repo: z.object({ id: z.number().int() }).nullable() }),
  }),
  repository: RepositoryPayload,
});

/** The run an agent branch belongs to (one rule, shared with the PR commands). */
const findRun = findAgentRun;

async function snapshotFor(
  deps: CiRecorderDeps,
  source: { installationId: number; repositoryId: number },
  owner: string,
  repo: string,
  sha: string,
): Promise<CiSnapshot> {
  const issued = await deps.tokens.token({ installationId: source.installationId, repositoryId: source.repositoryId, role: 'read' });
  return readCiSnapshot(deps.github(issued.token), owner, repo, sha);
}

/** Webhook, `check_suite.completed` on an `agent/` head: write `ci/<check suite id>.json`. */
export async function recordCheckSuite(deps: CiRecorderDeps, payload: unknown): Promise<CiRecordOutcome> {
  const parsed = CheckSuiteCompletedPayload.safeParse(payload);
  if (!parsed.success) return { kind: 'ignored', why: 'not a completed check suite' };
  const { check_suite: suite, repository } = parsed.data;
  const run = await findRun(deps.store, repository, suite.head_branch);
  if (!run) return { kind: 'ignored', why: 'not an agent branch of a known run' };
  const snapshot = await snapshotFor(deps, run.source, repository.owner.login, repository.name, suite.head_sha);
  const key = run.keys.ci(suite.id);
  await writeArtifact(deps.store, key, CiEvent, {
    schemaVersion: 1,
    kind: 'check_suite',
    runId: run.request.runId,
    owner: repository.owner.login,
    repo: repository.name,
    branch: run.request.agentBranch,
    headSha: suite.head_sha,
    checkSuite: { id: suite.id, conclusion: suite.conclusion, app: suite.app?.slug ?? suite.app?.name ?? 'unknown', url: suite.url },
    snapshot,
    recordedAt: new Date(deps.clock.now()).toISOString(),
  });
  deps.logger.info('check suite recorded', { runId: run.request.runId, suite: suite.id, conclusion: suite.conclusion });
  return { kind: 'recorded', key, runId: run.request.runId };
}

/** Webhook, `status` on a commit that is the head of an `agent/` branch: write `ci/status-<id>.json`. */
export async function recordCommitStatus(deps: CiRecorderDeps, payload: unknown): Promise<CiRecordOutcome> {
  const parsed = CommitStatusPayload.safeParse(payload);
  if (!parsed.success) return { kind: 'ignored', why: 'not a commit status' };
  const { repository, sha } = parsed.data;
  for (const b of parsed.data.branches) {
    if (b.commit.sha !== sha) continue;
    const run = await findRun(deps.store, repository, b.name);
    if (!run) continue;
    const snapshot = await snapshotFor(deps, run.source, repository.owner.login, repository.name, sha);
    const key = run.keys.ci(`status-${parsed.data.id}`);
    await writeArtifact(deps.store, key, CiEvent, {
      schemaVersion: 1,
      kind: 'status',
      runId: run.request.runId,
      owner: repository.owner.login,
      repo: repository.name,
      branch: run.request.agentBranch,
      headSha: sha,
      status: { id: parsed.data.id, context: parsed.data.context, state: parsed.data.state, url: parsed.data.target_url ?? undefined },
      snapshot,
      recordedAt: new Date(deps.clock.now()).toISOString(),
    });
    return { kind: 'recorded', key, runId: run.request.runId };
  }
  return { kind: 'ignored', why: 'no agent branch at this commit' };
}

/**
 * Webhook, `pull_request.closed` on an agent PR: write `ci/pr-closed-<n>.json`. The webhook
 * holds no contents:write, so the publisher deletes an unmerged branch when it sees this.
 */
export async function onPullRequestClosed(deps: Pick<CiRecorderDeps, 'store' | 'clock' | 'logger'>, payload: unknown): Promise<CiRecordOutcome> {
  const parsed = PullRequestClosedPayload.safeParse(payload);
  if (!parsed.success) return { kind: 'ignored', why: 'not a closed pull request' };
  const { pull_request: pr, repository } = parsed.data;
  if (pr.head.repo?.id !== repository.id) return { kind: 'ignored', why: 'head is in another repository' };
  const run = await findRun(deps.store, repository, pr.head.ref);
  if (!run) return { kind: 'ignored', why: 'not an agent branch of a known run' };
  const key = run.keys.ci(`pr-closed-${pr.number}`);
  await writeArtifact(deps.store, key, CiEvent, {
    schemaVersion: 1,
    kind: 'pr-closed',
    runId: run.request.runId,
    owner: repository.owner.login,
    repo: repository.name,
    branch: pr.head.ref,
    headSha: pr.head.sha,
    pullRequest: { number: pr.number, merged: pr.merged === true },
    recordedAt: new Date(deps.clock.now()).toISOString(),
  });
  deps.logger.info('agent pull request closed', { runId: run.request.runId, prNumber: pr.number, merged: pr.merged === true });
  return { kind: 'recorded', key, runId: run.request.runId };
}

export type CiUpdateOutcome =
  | { kind: 'updated'; prNumber: number; state: CiSnapshot['state']; readyForReview?: true }
  | { kind: 'unchanged'; prNumber: number }
  | { kind: 'closed'; prNumber: number; merged: boolean; branchDeleted: boolean }
  | { kind: 'skipped'; why: string };

/**
 * Publisher, on a `ci/*.json` object: replace the PR body's Verification section with the
 * newest CI snapshot of the PR's current head (older heads and other runs' PRs are left
 * alone), or, for `pr-closed`, close the run out.
 */
export async function updateVerificationFromCi(options: PublishDeps & { runKeys: RunKeys; key: string }): Promise<CiUpdateOutcome> {
  const { store, runKeys: keys, logger } = options;
  const event = await readArtifactIfPresent(store, options.key, CiEvent);
  if (!event) return { kind: 'skipped', why: 'the ci object is gone' };
  const record = await readArtifactIfPresent(store, keys.publish, PublishRecord);
  if (!record) return { kind: 'skipped', why: 'nothing published for this run yet' };
  const request = await readArtifactIfPresent(store, keys.request, RunRequest);
  if (!request || request.source.kind !== 'github') return { kind: 'skipped', why: 'not a GitHub run' };
  const issued = await options.tokens.token({ installationId: request.source.installationId, repositoryId: request.source.repositoryId, role: 'write' });
  const api = options.github(issued.token);
  const { owner, repo } = record;
  if (event.kind === 'pr-closed') return closeOut(options, api, request, record, event);

  const pull = await api.rest.pulls.get({ owner, repo, pull_number: record.prNumber });
  if (pull.data.state !== 'open') return { kind: 'skipped', why: 'the pull request is closed' };
  const headSha = pull.data.head.sha;
  if (event.headSha !== headSha) return { kind: 'skipped', why: 'the ci object is about an older head' };
  const newest = await newestSnapshot(store, keys.ciPrefix, { key: options.key, event }, headSha);
  if (!newest?.snapshot) return { kind: 'skipped', why: 'no CI snapshot for the head' };
  const v = record.verification ?? { checks: [], notRun: [], ciCommands: [] };
  const section = renderVerificationSection({ ...v, ci: { state: newest.snapshot.state, commitSha: headSha, checks: newest.snapshot.checks } });
  const body = replaceVerificationSection(pull.data.body ?? '', section);
  const changed = body !== (pull.data.body ?? '');
  if (changed) {
    await api.rest.pulls.update({ owner, repo, pull_number: record.prNumber, body });
    logger.info('verification section updated from CI', {
      runId: record.runId,
      prNumber: record.prNumber,
      state: newest.snapshot.state,
      checks: newest.snapshot.checks.length,
    });
  }
  const ready = await markReadyWhenGreen(api, record, pull.data, newest.snapshot, logger);
  if (!changed && !ready) return { kind: 'unchanged', prNumber: record.prNumber };
  return { kind: 'updated', prNumber: record.prNumber, state: newest.snapshot.state, ...(ready ? { readyForReview: true } : {}) };
}

const MARK_READY = `mutation MarkReady($id: ID!) {
  markPullRequestReadyForReview(input: { pullRequestId: $id }) {
    pullRequest { isDraft }
  }
}`;

/**
 * A draft whose CI passed leaves draft when the publish record says so (decided at publication
 * from the trusted policy, `agent.readyForReview: ci-green`, for a complete change only): every
 * check on its head concluded in success, none pending. GitHub's REST API cannot do this; the
 * GraphQL mutation `markPullRequestReadyForReview` can, with the same pull_requests scope.
 */
async function markReadyWhenGreen(
  api: GitHubApi,
  record: PublishRecord,
  pull: { draft?: boolean; node_id: string },
  snapshot: CiSnapshot,
  logger: Logger,
): Promise<boolean> {
  if (!record.readyWhenCiGreen || pull.draft !== true || snapshot.state !== 'success' || snapshot.checks.length === 0) return false;
  await api.graphql(MARK_READY, { id: pull.node_id });
  logger.info('pull request marked ready for review: CI passed', { runId: record.runId, prNumber: record.prNumber, checks: snapshot.checks.length });
  return true;
}

/** The newest snapshot of `headSha` among every ci object (the one just read counts as read), so event order does not matter. */
async function newestSnapshot(
  store: PublishDeps['store'],
  prefix: string,
  current: { key: string; event: CiEvent },
  headSha: string,
): Promise<CiEvent | undefined> {
  let newest: CiEvent | undefined;
  for (const key of await store.list(prefix)) {
    if (!key.endsWith('.json')) continue;
    const e = key === current.key ? current.event : await readArtifactIfPresent(store, key, CiEvent).catch(() => undefined);
    if (!e?.snapshot || e.headSha !== headSha) continue;
    if (!newest || e.recordedAt >= newest.recordedAt) newest = e;
  }
  return newest;
}

/**
 * Delete an agent branch that still ends at the App's last commit; a branch with commits someone
 * else pushed on top of ours is kept (never delete their work). Whether it was deleted.
 */
export async function deleteOwnBranch(api: GitHubApi, record: Pick<PublishRecord, 'owner' | 'repo' | 'branch' | 'publishedCommitSha'>): Promise<boolean> {
  const { owner, repo } = record;
  const ref = await orUndefinedOn404(() => api.rest.git.getRef({ owner, repo, ref: `heads/${record.branch}` }));
  if (!ref || ref.data.object.sha !== record.publishedCommitSha) return false;
  await api.rest.git.deleteRef({ owner, repo, ref: `heads/${record.branch}` });
  return true;
}

/** A closed agent PR: progress comment and run.json say so; an unmerged branch still at our commit is deleted. */
async function closeOut(
  options: PublishDeps & { runKeys: RunKeys },
  api: GitHubApi,
  request: RunRequest,
  record: PublishRecord,
  event: CiEvent,
): Promise<CiUpdateOutcome> {
  const merged = event.pullRequest?.merged === true;
  const { owner, repo } = record;
  const branchDeleted = !merged && (await deleteOwnBranch(api, record));
  const id = request.issue?.progressCommentId;
  if (id !== undefined) {
    await api.rest.issues.updateComment({
      owner,
      repo,
      comment_id: id,
      body: renderProgressComment({
        runId: record.runId,
        attempt: record.attempt,
        status: merged ? 'MERGED' : 'CLOSED',
        phases: [],
        pullRequestUrl: record.prUrl,
        baseCommitSha: record.baseCommitSha,
        message: merged
          ? `pull request #${record.prNumber} was merged`
          : `pull request #${record.prNumber} was closed without merging${branchDeleted ? `; branch \`${record.branch}\` deleted` : ''}`,
      }),
    });
  }
  await closeRun(options, options.runKeys, request, { merged, attempt: record.attempt });
  options.logger.info('agent pull request closed out', { runId: record.runId, prNumber: record.prNumber, merged, branchDeleted });
  return { kind: 'closed', prNumber: record.prNumber, merged, branchDeleted };
}

/** At most this many open agent pull requests are polled per repository and sweep. */
export const SWEEP_MAX_OPEN_RUNS = 200;

/**
 * Scheduled sweeper: for every published, not-closed run of the given repositories, read the
 * agent branch head's CI with token-read and write `ci/poll-<sha>.json` when it differs from
 * the last poll, so the Verification section catches up even when a webhook was lost.
 * Returns the keys written.
 */
export async function sweepOpenAgentPullRequests(deps: CiRecorderDeps, repositories: { owner: string; repo: string }[]): Promise<string[]> {
  const written: string[] = [];
  for (const { owner, repo } of repositories) {
    for (const { keys, record, request } of await listOpenAgentRuns(deps.store, owner, repo, SWEEP_MAX_OPEN_RUNS)) {
      if (request.source.kind !== 'github') continue;
      const runId = request.runId;
      const issued = await deps.tokens.token({ installationId: request.source.installationId, repositoryId: request.source.repositoryId, role: 'read' });
      const api = deps.github(issued.token);
      const branch = await api.rest.repos.getBranch({ owner, repo, branch: record.branch }).catch((error: unknown) => {
        if ((error as { status?: number }).status === 404) return undefined;
        throw error;
      });
      if (!branch) continue;
      const sha = branch.data.commit.sha;
      const snapshot = await readCiSnapshot(api, owner, repo, sha);
      const key = keys.ci(`poll-${sha}`);
      const previous = await readArtifactIfPresent(deps.store, key, CiEvent);
      if (previous?.snapshot && JSON.stringify(previous.snapshot) === JSON.stringify(snapshot)) continue;
      await writeArtifact(deps.store, key, CiEvent, {
        schemaVersion: 1,
        kind: 'poll',
        runId,
        owner,
        repo,
        branch: record.branch,
        headSha: sha,
        snapshot,
        recordedAt: new Date(deps.clock.now()).toISOString(),
      });
      written.push(key);
    }
  }
  return written;
}
