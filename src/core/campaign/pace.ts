/**
 * A campaign's pace against GitHub's secondary rate limits for content-creating requests (at
 * most 80 a minute and 500 an hour per App installation, GitHub's REST documentation, "Secondary
 * rate limits"), across the whole campaign rather than per run (docs/campaigns.md, "Limits").
 */

export const GITHUB_CONTENT_REQUESTS_PER_MINUTE = 80;
export const GITHUB_CONTENT_REQUESTS_PER_HOUR = 500;

/**
 * Content-creating GitHub requests (every POST, PATCH, PUT and DELETE) one campaign run makes
 * at most in its repository from its start to its draft pull request: the issue in the target
 * repository, the progress comment and its edits, the Git Data objects and the ref, the pull
 * request and its label, the run's last comment. Measured: 21 for a one-file migration; the
 * state machine test counts them against the GitHub stand-in and fails when a run makes more.
 */
export const CONTENT_REQUESTS_PER_RUN = 24;

/** The campaign's share of each GitHub limit: runs started by hand and the tracking comment's edits keep the rest. */
const CAMPAIGN_SHARE = 0.8;

export interface PaceLimits {
  perMinute: number;
  perHour: number;
}

/** How many runs a campaign may start a minute and an hour: the spec's rate, never past the campaign's share of GitHub's limits. */
export function paceLimits(startsPerMinute: number): PaceLimits {
  const minuteCap = Math.max(1, Math.floor((GITHUB_CONTENT_REQUESTS_PER_MINUTE * CAMPAIGN_SHARE) / CONTENT_REQUESTS_PER_RUN));
  const hourCap = Math.max(1, Math.floor((GITHUB_CONTENT_REQUESTS_PER_HOUR * CAMPAIGN_SHARE) / CONTENT_REQUESTS_PER_RUN));
  return { perMinute: Math.min(startsPerMinute, minuteCap), perHour: Math.min(startsPerMinute * 60, hourCap) };
}

/** The pace windows an instant falls in: `m-<yyyy-mm-ddThh:mm>` and `h-<yyyy-mm-ddThh>` (UTC). */
export function paceWindows(epochMs: number): { minute: string; hour: string } {
  const iso = new Date(epochMs).toISOString();
  return { minute: `m-${iso.slice(0, 16)}`, hour: `h-${iso.slice(0, 13)}` };
}

/** Seconds from `epochMs` to the start of the next minute (or hour) window, at least 1. */
export function secondsToNextWindow(epochMs: number, window: 'minute' | 'hour'): number {
  const size = window === 'minute' ? 60_000 : 3_600_000;
  return Math.max(1, Math.ceil((size - (epochMs % size)) / 1000));
}

/**
 * Content-creating requests `/agent campaign close` makes per open pull request: the comment
 * giving the reason, the close, the branch's deletion.
 */
export const CONTENT_REQUESTS_PER_CLOSE = 3;

/**
 * Pull requests one close request closes: a minute's campaign share of GitHub's content limit
 * (the client's write spacing makes it take longer than a minute). More open pull requests wait
 * for the next `close`.
 */
export const CLOSES_PER_REQUEST = Math.floor((GITHUB_CONTENT_REQUESTS_PER_MINUTE * CAMPAIGN_SHARE) / CONTENT_REQUESTS_PER_CLOSE);

/**
 * Pull requests one `/agent campaign rebase` rebuilds: each rebuild is a new attempt that
 * publishes again (about a run's content requests), so at most the campaign's starts of an hour.
 */
export function rebuildsPerCommand(startsPerMinute: number): number {
  return paceLimits(startsPerMinute).perHour;
}

/**
 * Campaign pull requests one `/agent campaign rebase` looks at (about seven reads each: the
 * repository, its policy, the sender's permission, the base and the branch), so that one command
 * fits one intake invocation; the reply says where the next command goes on.
 */
export const REBASE_LOOKS_PER_COMMAND = 25;

/**
 * The tracking comment's CI and review columns: each refresh reads at most this many pull
 * requests (four GETs each: the pull request, its check runs, its combined status, its
 * reviews), those read longest ago first, and none read less than `PULL_READ_MAX_AGE_MS` ago.
 */
export const PULL_READS_PER_REFRESH = 10;
export const PULL_READ_MAX_AGE_MS = 10 * 60_000;

/**
 * Refreshes of the tracking comment asked from outside the campaign's steps, at most one per
 * campaign per window (a create-only marker per window): a campaign pull request's CI, review
 * or close refreshes it at the end of its 5-minute window (every event of the window in one
 * refresh), `/agent campaign status` at once, at most once a minute.
 */
export const EVENT_REFRESH_WINDOW_MS = 5 * 60_000;
export const STATUS_REFRESH_WINDOW_MS = 60_000;
