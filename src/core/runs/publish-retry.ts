import { z } from 'zod';

/**
 * `control/publish-retry.json`: a publication that GitHub would not take yet, and when to try
 * again (docs/operations.md, "A branch without a pull request"). Written by the publisher when a
 * rate limit is longer than an invocation may wait, and by the sweeper when it re-drives a
 * publication (its write starts the publisher); no worker can write it (docs/trust-chain.md).
 */
export const PublishRetry = z.object({
  schemaVersion: z.literal(1),
  runId: z.string().min(1),
  attempt: z.number().int().positive(),
  /** When the publication first failed; the retries end `PUBLISH_RETRY_WINDOW_MS` later. */
  firstFailedAt: z.string(),
  /** Not before this instant: what GitHub's `retry-after` (or rate-limit reset) said. */
  notBefore: z.string(),
  /** Publisher tries that met a rate limit. */
  tries: z.number().int().nonnegative(),
  /** Re-drives by the sweeper. */
  redrives: z.number().int().nonnegative().default(0),
  /** Why it is not published: `GITHUB_RATE_LIMITED`, or `PUBLISHER_FAILED` (found by the sweeper). */
  reason: z.string().min(1),
  /** The GitHub route that refused (a template: never an identifier or token). */
  route: z.string().optional(),
  /** Set when the sweeper gave up: nothing re-drives it any more. */
  endedAt: z.string().optional(),
  updatedAt: z.string(),
});
export type PublishRetry = z.infer<typeof PublishRetry>;

/** One hour in all, from the first failure: then the run ends with a comment saying how to replay it. */
export const PUBLISH_RETRY_WINDOW_MS = 60 * 60 * 1000;

/** When the retries of `record` end. */
export function publishRetryDeadline(record: Pick<PublishRetry, 'firstFailedAt'>): number {
  return Date.parse(record.firstFailedAt) + PUBLISH_RETRY_WINDOW_MS;
}

/** The progress comment's line while a publication waits for GitHub. */
export function describeRetry(record: PublishRetry): string {
  const until = new Date(publishRetryDeadline(record)).toISOString();
  return `GitHub's rate limit held back ${record.route ?? 'a request'}; the publisher tries again after ${record.notBefore} (until ${until}, then this comment says how to replay it)`;
}

/** Whether `record` is the live retry of `runId`'s `attempt` (not another attempt's, not ended). */
export function isLiveRetry(record: PublishRetry | undefined, runId: string, attempt: number): record is PublishRetry {
  return record !== undefined && record.runId === runId && record.attempt === attempt && record.endedAt === undefined;
}
