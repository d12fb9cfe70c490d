import type { RunRecordStatus } from './run-status.js';

/**
 * Outcomes of runs, per repository, per installation and in all: how many started, published a
 * pull request or failed (by reason), what became of the pull requests, how long a merge took and
 * what a merged pull request cost. One module for `draftsman report` and the outcome metric, so
 * both count the same way (docs/operations.md, "Outcomes").
 */

/** What the outcome figures read of one run. */
export interface RunFacts {
  owner: string;
  repo: string;
  /** The GitHub App installation (its id as text), or `local` for a CLI run. */
  installation: string;
  runId: string;
  /** When the run was asked for (`request.json`'s `createdAt`, ISO 8601). */
  createdAt: string;
  /** Where the run stands (`run.json`); absent when no attempt has written it yet. */
  status: RunRecordStatus | undefined;
  reason?: string;
  /** When the pull request closed (`run.json`'s `updatedAt` once MERGED or CLOSED). */
  closedAt?: string;
  /** Model spend of every attempt of the run, in micro-dollars; null when no call was priced. */
  spendMicroUsd: number | null;
}

/** The installation of a run that did not come from GitHub (the CLI). */
export const LOCAL_INSTALLATION = 'local';

/** How a run ended up, for counting: one class per run. */
export type RunOutcome = 'merged' | 'closed' | 'open' | 'failed' | 'cancelled' | 'waiting' | 'active' | 'done';

const FAILED_STATUSES: ReadonlySet<RunRecordStatus> = new Set(['FAILED', 'BLOCKED', 'BUDGET_EXCEEDED']);

/**
 * The class of a run by its status: a published pull request open, merged or closed unmerged;
 * failed (FAILED, BLOCKED, BUDGET_EXCEEDED); cancelled; waiting for approval; still queued or
 * running (or not started); done without a pull request (an analysis, a CLI run).
 */
export function runOutcome(status: RunRecordStatus | undefined): RunOutcome {
  if (status === undefined || status === 'QUEUED' || status === 'RUNNING') return 'active';
  if (status === 'MERGED') return 'merged';
  if (status === 'CLOSED') return 'closed';
  if (status === 'PUBLISHED') return 'open';
  if (status === 'CANCELLED') return 'cancelled';
  if (status === 'NEEDS_APPROVAL') return 'waiting';
  if (FAILED_STATUSES.has(status)) return 'failed';
  return 'done';
}

/**
 * The reason a failed run is counted under: its reason code (upper case, as the errors name them),
 * else its status. Free text is counted as its status, so the set stays small.
 */
export function failureReason(status: RunRecordStatus, reason: string | undefined): string {
  return reason !== undefined && /^[A-Z][A-Z0-9_]{0,63}$/.test(reason) ? reason : status;
}

/** From the request to the merge, in milliseconds; undefined unless the run merged at a readable time. */
export function timeToMergeMs(facts: Pick<RunFacts, 'status' | 'createdAt' | 'closedAt'>): number | undefined {
  if (facts.status !== 'MERGED' || facts.closedAt === undefined) return undefined;
  const ms = Date.parse(facts.closedAt) - Date.parse(facts.createdAt);
  return Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}

/** The figures of one group of runs. Spend is in US dollars; null where nothing was priced (or nothing merged). */
export interface OutcomeFigures {
  started: number;
  published: number;
  failed: number;
  /** Failed runs by `failureReason`, keys sorted. */
  failedByReason: Record<string, number>;
  cancelled: number;
  waitingForApproval: number;
  active: number;
  doneWithoutPullRequest: number;
  pullRequests: { merged: number; closedUnmerged: number; open: number };
  /** Median time from the request to the merge, in seconds (the mean of the middle two for an even count). */
  medianTimeToMergeSeconds: number | null;
  /** Model spend of every run of the group. */
  spendUsd: number | null;
  /** The mean spend of the merged runs (all their attempts). */
  spendPerMergedPullRequestUsd: number | null;
}

export interface OutcomeReport {
  /** Only runs asked for at or after this instant (ISO 8601), when given. */
  since?: string;
  /** By `owner/repo`, sorted; `installation` lists every installation its runs came through (comma-separated). */
  repositories: ({ repository: string; installation: string } & OutcomeFigures)[];
  /** By installation, sorted. */
  installations: ({ installation: string } & OutcomeFigures)[];
  total: OutcomeFigures;
}

/** The median of the values; null for none. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function sumSpend(runs: readonly RunFacts[]): number | null {
  const priced = runs.filter((r) => r.spendMicroUsd !== null);
  return priced.length === 0 ? null : priced.reduce((sum, r) => sum + (r.spendMicroUsd ?? 0), 0);
}

/** The figures of a group of runs. */
export function outcomeFigures(runs: readonly RunFacts[]): OutcomeFigures {
  const count = (outcome: RunOutcome) => runs.filter((r) => runOutcome(r.status) === outcome).length;
  const failedByReason: Record<string, number> = {};
  for (const run of runs) {
    if (run.status === undefined || runOutcome(run.status) !== 'failed') continue;
    const reason = failureReason(run.status, run.reason);
    failedByReason[reason] = (failedByReason[reason] ?? 0) + 1;
  }
  const merged = runs.filter((r) => r.status === 'MERGED');
  const mergeTimes = merged.map(timeToMergeMs).filter((ms): ms is number => ms !== undefined);
  const mergedSpend = sumSpend(merged);
  const spend = sumSpend(runs);
  const pullRequests = { merged: merged.length, closedUnmerged: count('closed'), open: count('open') };
  const mid = median(mergeTimes);
  return {
    started: runs.length,
    published: pullRequests.merged + pullRequests.closedUnmerged + pullRequests.open,
    failed: count('failed'),
    failedByReason: Object.fromEntries(Object.entries(failedByReason).sort(([a], [b]) => a.localeCompare(b))),
    cancelled: count('cancelled'),
    waitingForApproval: count('waiting'),
    active: count('active'),
    doneWithoutPullRequest: count('done'),
    pullRequests,
    medianTimeToMergeSeconds: mid === null ? null : mid / 1000,
    spendUsd: spend === null ? null : spend / 1_000_000,
    spendPerMergedPullRequestUsd: mergedSpend === null || merged.length === 0 ? null : mergedSpend / merged.length / 1_000_000,
  };
}

function groupBy(runs: readonly RunFacts[], keyOf: (run: RunFacts) => string): [string, RunFacts[]][] {
  const groups = new Map<string, RunFacts[]>();
  for (const run of runs) {
    const group = groups.get(keyOf(run));
    if (group) group.push(run);
    else groups.set(keyOf(run), [run]);
  }
  return [...groups.entries()].sort(([a], [b]) => a.localeCompare(b));
}

/** Is the run asked for at or after `since` (epoch ms)? A run whose time cannot be read is kept only without `since`. */
export function askedSince(run: Pick<RunFacts, 'createdAt'>, since: number | undefined): boolean {
  return since === undefined || Date.parse(run.createdAt) >= since;
}

/** The report over runs: per repository, per installation and in all, of the runs asked for since `since` (epoch ms). */
export function outcomeReport(runs: readonly RunFacts[], since?: number): OutcomeReport {
  const kept = runs.filter((r) => askedSince(r, since));
  return {
    ...(since !== undefined ? { since: new Date(since).toISOString() } : {}),
    repositories: groupBy(kept, (r) => `${r.owner}/${r.repo}`).map(([repository, group]) => ({
      repository,
      installation: [...new Set(group.map((r) => r.installation))].sort().join(','),
      ...outcomeFigures(group),
    })),
    installations: groupBy(kept, (r) => r.installation).map(([installation, group]) => ({ installation, ...outcomeFigures(group) })),
    total: outcomeFigures(kept),
  };
}
