import { z } from 'zod';
import { canonicalJson, sha256Hex, shortId } from '../util/digest.js';
import { CampaignSpec } from './campaign-spec.js';

/**
 * What the App keeps of a campaign (docs/campaigns.md, "The App"): the record the intake writes
 * once when a campaign starts from its home issue, and one item per target repository that the
 * campaign function moves as that repository's run goes.
 */

/** `campaigns/.../campaign.json`: written once (putIfAbsent) by the intake; a redelivered start finds it. */
export const CampaignRecord = z.object({
  schemaVersion: z.literal(1),
  campaignId: z.string().regex(/^[a-z0-9][a-z0-9-]{0,79}$/),
  home: z.object({
    owner: z.string(),
    repo: z.string(),
    repositoryId: z.number().int(),
    installationId: z.number().int(),
    issue: z.number().int().positive(),
    defaultBranch: z.string(),
    cloneUrl: z.string(),
  }),
  /** The spec as the intake parsed it from the home issue's `agent` block, and its digest. */
  spec: CampaignSpec,
  specDigest: z.string(),
  /** Who started it (an admin of the home repository when it started) and by which trigger. */
  sender: z.string(),
  trigger: z.string(),
  createdAt: z.string(),
});
export type CampaignRecord = z.infer<typeof CampaignRecord>;

/**
 * Where one target repository stands: `pending` (not started), `waiting` (pace or limits),
 * `running` (its run exists), then how it ended: `changed` (a pull request, or a commit for an
 * analysis), `unchanged` (nothing to do there), `declined` (its own policy said no or waits for
 * an approval), `failed`, or `closed` (its pull request was closed without a merge, or the
 * campaign was closed before it started). `merged`: a `changed` repository whose pull request was
 * merged, as the tracking comment last read it (`withPullReadings`, tracking-comment.ts).
 */
export const CampaignItemState = z.enum(['pending', 'waiting', 'running', 'changed', 'merged', 'unchanged', 'declined', 'failed', 'closed']);
export type CampaignItemState = z.infer<typeof CampaignItemState>;

/** States a repository's run ended in; the rest are still moving. */
export const ENDED_ITEM_STATES: ReadonlySet<CampaignItemState> = new Set(['changed', 'merged', 'unchanged', 'declined', 'failed', 'closed']);

/** `campaigns/.../items/<owner>/<repo>.json`: one target repository (written by the campaign function). */
export const CampaignItem = z.object({
  schemaVersion: z.literal(1),
  repository: z.string(),
  state: CampaignItemState,
  /** The run's status and reason as `run.json` (or the campaign function) says. */
  status: z.string().optional(),
  reason: z.string().optional(),
  repositoryId: z.number().int().optional(),
  /** The installation the target was found in: the home's, or the App's other installation on it. */
  installationId: z.number().int().optional(),
  /** The issue the run belongs to in the target repository, and the run. */
  issue: z.number().int().positive().optional(),
  runId: z.string().optional(),
  /** How many times the campaign started it (`retry-failed` starts attempt n+1). */
  starts: z.number().int().nonnegative().default(0),
  /** How many times the start waited on the target's own limits. */
  waits: z.number().int().nonnegative().optional(),
  pullRequest: z.object({ number: z.number().int(), url: z.string() }).optional(),
  ci: z.string().optional(),
  review: z.string().optional(),
  risk: z.string().optional(),
  /** Pace slots this item holds (so a retried start never takes a second one). */
  slots: z.array(z.string()).default([]),
  startedAt: z.string().optional(),
  endedAt: z.string().optional(),
  updatedAt: z.string(),
});
export type CampaignItem = z.infer<typeof CampaignItem>;

/** `campaigns/.../tracking.json`: the one tracking comment on the home issue. */
export const CampaignTracking = z.object({ schemaVersion: z.literal(1), commentId: z.number().int() });
export type CampaignTracking = z.infer<typeof CampaignTracking>;

/**
 * Who did what to a campaign, when and why (the intake writes them): `closed.json` and
 * `paused.json`, and each `close-requests/<commentId>.json`, an admin's `/agent campaign close`
 * for the publisher (once per comment, with the reason `closed.json` keeps).
 */
export const CampaignClosed = z.object({ schemaVersion: z.literal(1), by: z.string(), reason: z.string(), at: z.string() });
export type CampaignClosed = z.infer<typeof CampaignClosed>;

/**
 * `campaigns/.../closures/<owner>/<repo>.json`: what the publisher found and did on close, once
 * per repository: `closed` (with the reason, and the branch deleted unless someone else's
 * commits are on it), or left alone because it was `merged` or `already-closed`.
 */
export const CampaignClosure = z.object({
  schemaVersion: z.literal(1),
  repository: z.string(),
  pullRequest: z.object({ number: z.number().int().positive(), url: z.string() }),
  outcome: z.enum(['closed', 'merged', 'already-closed']),
  branch: z.string(),
  branchDeleted: z.boolean(),
  at: z.string(),
});
export type CampaignClosure = z.infer<typeof CampaignClosure>;

/** A pull request's combined check state and review state, as the tracking comment shows them. */
export const PullCi = z.enum(['pass', 'fail', 'pending', 'none']);
export const PullReview = z.enum(['approved', 'changes requested', 'none']);
/** Whether a pull request is still open; `merged` and `closed` (without a merge) have ended and are not read again. */
export const PullState = z.enum(['open', 'merged', 'closed']);

/**
 * `campaigns/.../pull-states.json`: the CI, review and open/merged/closed states the tracking
 * comment last read, by `owner/repo#number` (a cache: last writer wins). `state` is absent in a
 * reading made before it was recorded (read as open).
 */
export const CampaignPullStates = z.object({
  schemaVersion: z.literal(1),
  pulls: z.record(z.string(), z.object({ ci: PullCi, review: PullReview, state: PullState.optional(), readAt: z.string() })),
});
export type CampaignPullStates = z.infer<typeof CampaignPullStates>;

/**
 * `campaigns/.../refreshes/<kind>-<window>.json`: a request to refresh the tracking comment
 * (`/agent campaign status`, or a campaign pull request's CI, review or close), written once per
 * window by the intake (putIfAbsent): the delivery whose write creates it asks the campaign
 * function, the others of the window find it (docs/campaigns.md, "The tracking comment").
 */
export const CampaignRefreshRequest = z.object({
  schemaVersion: z.literal(1),
  kind: z.enum(['status', 'event']),
  /** What asked: `status by @login`, or the event and the pull request (`check_suite acme/orders`). */
  cause: z.string(),
  /** The delivery (or the `status` comment) that wrote it: its retry starts the execution again, the others do not. */
  asker: z.string(),
  at: z.string(),
});
export type CampaignRefreshRequest = z.infer<typeof CampaignRefreshRequest>;

/** The digest of a parsed spec: equal specs, equal digests, whatever their YAML layout. */
export function campaignSpecDigest(spec: CampaignSpec): string {
  return sha256Hex(canonicalJson(spec));
}

/**
 * A campaign's id: its name and 12 characters of a digest of the home repository, the issue and
 * the spec. The same start (a redelivery, a retried intake, the label and the command on one
 * issue with one spec) gives the same id; an edited spec is another campaign. At most 76
 * characters of `[a-z0-9-]`, a valid Step Functions execution name.
 */
export function campaignIdFor(spec: CampaignSpec, homeRepositoryId: number, issue: number, specDigest: string): string {
  return `${spec.name}-${shortId(homeRepositoryId, issue, specDigest).toLowerCase()}`;
}
