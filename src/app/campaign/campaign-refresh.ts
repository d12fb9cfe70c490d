import { putArtifactIfAbsent, readArtifactIfPresent } from '../../core/artifacts/artifact-io.js';
import { campaignKeys } from '../../core/artifacts/campaign-keys.js';
import { CampaignRecord, CampaignRefreshRequest } from '../../core/campaign/campaign-record.js';
import { EVENT_REFRESH_WINDOW_MS, STATUS_REFRESH_WINDOW_MS } from '../../core/campaign/pace.js';
import { CheckSuiteCompletedPayload, PullRequestClosedPayload } from '../publisher/ci-feedback.js';
import { findAgentRun } from '../webhook/agent-run.js';
import type { PullRequestReviewSubmittedPayload } from '../webhook/webhook-payloads.js';
import type { TriggerDeps } from '../webhook/webhook-session.js';

/**
 * Refreshes of a campaign's tracking comment asked from outside its steps (docs/campaigns.md,
 * "The tracking comment"): `/agent campaign status`, and a campaign pull request's check suite
 * completing, review submitted or close. The intake holds no write token for the home issue's
 * comment and never renders it: it starts an execution of the campaign state machine that only
 * refreshes (`{refresh: true}`, the campaign function's `refresh` action), as it starts a
 * campaign. At most one per campaign per window: the first delivery of a window writes the
 * window's marker (putIfAbsent) and starts the execution; the others find the marker.
 */

export type RefreshAsked = 'asked' | 'already asked' | 'not set up';
type RefreshDeps = Pick<TriggerDeps, 'store' | 'clock' | 'logger' | 'campaigns'>;

/** `yyyymmddThhmm` of the window's start (UTC), as the marker's key and the execution's name carry it. */
const stampOf = (epochMs: number): string => new Date(epochMs).toISOString().slice(0, 16).replace(/[-:]/g, '');

/**
 * Ask the campaign function to refresh the tracking comment: a `status` at once (at most one a
 * minute), an `event` at the end of its 5-minute window, so every event of the window shows in
 * one refresh. `asker` is the delivery (or the `status` comment) asking: the one whose write
 * created the marker starts the execution, and so does its retry (a start that failed after the
 * marker was written); the window's other deliveries do not. The execution's name is the
 * window's too (`<campaign id>-refresh-<kind>-<window>`), so a retry finds the execution that
 * exists and Step Functions never runs two for one window.
 */
export async function askRefresh(deps: RefreshDeps, record: CampaignRecord, kind: 'status' | 'event', cause: string, asker: string): Promise<RefreshAsked> {
  const launcher = deps.campaigns;
  if (!launcher) return 'not set up';
  const size = kind === 'status' ? STATUS_REFRESH_WINDOW_MS : EVENT_REFRESH_WINDOW_MS;
  const now = deps.clock.now();
  const start = now - (now % size);
  const stamp = stampOf(start);
  const keys = campaignKeys(record.home.owner, record.home.repo, record.home.issue, record.campaignId);
  const key = keys.refresh(kind, stamp);
  const marker: CampaignRefreshRequest = { schemaVersion: 1, kind, cause, asker, at: new Date(now).toISOString() };
  if (!(await putArtifactIfAbsent(deps.store, key, CampaignRefreshRequest, marker))) {
    const first = await readArtifactIfPresent(deps.store, key, CampaignRefreshRequest).catch(() => undefined);
    if (first?.asker !== asker) return 'already asked';
  }
  const waitSeconds = kind === 'status' ? 0 : Math.ceil((start + size - now) / 1000);
  // An execution name is at most 80 characters: the campaign id's tail keeps its digest.
  const name = `${record.campaignId.slice(-51)}-refresh-${kind}-${stamp}`;
  const execution = await launcher.start({ campaignId: record.campaignId, key: keys.record, name, refresh: { waitSeconds } });
  deps.logger.info('campaign tracking refresh asked', { campaignId: record.campaignId, kind, cause, execution, waitSeconds });
  return 'asked';
}

/**
 * A campaign pull request changed: the branch must be a known run's agent branch (findAgentRun:
 * its intake-written `request.json` agrees), that request must name a campaign, and the
 * campaign's record must exist; then a refresh of its tracking comment (once per window).
 */
async function refreshForBranch(
  deps: RefreshDeps,
  repository: { id: number; name: string; owner: { login: string } },
  branch: string | null | undefined,
  cause: string,
  delivery: string,
): Promise<RefreshAsked | 'not a campaign pull request'> {
  const run = await findAgentRun(deps.store, repository, branch);
  const campaign = run?.request.campaign;
  const home = campaign ? /^([^/]+)\/([^/#]+)#([1-9]\d*)$/.exec(campaign.home) : null;
  if (!campaign || !home) return 'not a campaign pull request';
  const keys = campaignKeys(home[1], home[2], Number(home[3]), campaign.id);
  const record = await readArtifactIfPresent(deps.store, keys.record, CampaignRecord);
  if (!record || record.campaignId !== campaign.id) return 'not a campaign pull request';
  return askRefresh(deps, record, 'event', `${cause} ${repository.owner.login}/${repository.name}`, delivery);
}

/** `check_suite.completed` on a campaign pull request's head branch. */
export async function refreshOnCheckSuite(deps: RefreshDeps, payload: unknown, delivery: string): Promise<string> {
  const parsed = CheckSuiteCompletedPayload.safeParse(payload);
  if (!parsed.success) return 'not a completed check suite';
  return refreshForBranch(deps, parsed.data.repository, parsed.data.check_suite.head_branch, 'check_suite', delivery);
}

/** `pull_request.closed` (merged or not) of a campaign pull request. */
export async function refreshOnPullRequestClosed(deps: RefreshDeps, payload: unknown, delivery: string): Promise<string> {
  const parsed = PullRequestClosedPayload.safeParse(payload);
  if (!parsed.success) return 'not a closed pull request';
  const { pull_request: pr, repository } = parsed.data;
  if (pr.head.repo?.id !== repository.id) return 'head is in another repository';
  return refreshForBranch(deps, repository, pr.head.ref, `pull_request #${pr.number} closed`, delivery);
}

/** `pull_request_review.submitted` on a campaign pull request. */
export async function refreshOnReview(deps: RefreshDeps, payload: PullRequestReviewSubmittedPayload, delivery: string): Promise<string> {
  const { pull_request: pr, repository } = payload;
  if (pr.head.repo && pr.head.repo.id !== repository.id) return 'head is in another repository';
  return refreshForBranch(deps, repository, pr.head.ref, `pull_request_review #${pr.number}`, delivery);
}
