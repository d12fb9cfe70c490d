import { readArtifactIfPresent, readArtifactVersioned } from '../../core/artifacts/artifact-io.js';
import { intakeKey, issueLatestKey, runKeys } from '../../core/artifacts/keys.js';
import { QUEUE_WAITING_PREFIX } from '../../core/artifacts/queue-keys.js';
import type { ArtifactStore, Clock, Logger, TokenBroker } from '../../core/ports.js';
import { releaseIssueLock } from '../../core/runs/issue-lock.js';
import { parseIssueKey } from '../../core/runs/run-key.js';
import { RunRecord, RunRequest } from '../../core/runs/run-request.js';
import { findWaiting } from '../../core/runs/run-queue.js';
import { IssueLatest, IssueLock } from '../../core/runs/run-state.js';
import { ACTIVE_RUN_STATUSES } from '../../core/runs/run-status.js';
import { withAttempt } from '../../core/runs/update-run-record.js';
import { writeRunTransition } from '../../core/runs/write-run-transition.js';
import type { GitHubApi } from '../github/github-api.js';
import { renderProgressComment } from '../github/progress-comment.js';
import { emitMetric, runOutcomeMetric, sweepMetric } from '../metrics/run-metrics.js';
import { deadWorker, type DeadWorker } from './worker-liveness.js';
import { withRepositoryApi } from './repository-api.js';
import { INTAKE_GRACE_MS, sweepIntakes, type EndedIntake } from './sweep-intakes.js';
import { sweepPublications, type SweptPublication } from './sweep-publications.js';

/** Default: a run whose record has not moved for 2 h 15 min (the lock's 2 h plus a sweep) is stuck. */
export const DEFAULT_STUCK_AFTER_MS = 135 * 60 * 1000;

export interface SweepDeps {
  store: ArtifactStore;
  /** A read-role broker (token-read): enough to edit a progress comment, never to write code. */
  tokens: TokenBroker;
  github: (token: string) => GitHubApi;
  clock: Clock;
  logger: Logger;
  /** `<slug>[bot]`: the App's own comments are found by their marker and author. */
  botLogin?: string;
  /** How long an active run may go without its run.json (or, before the worker wrote one, its lock) changing. */
  stuckAfterMs?: number;
  /**
   * Optional CI poll hook, called with every repository that has runs (from `issues/`): in
   * production `sweepOpenAgentPullRequests` of src/app/publisher/ci-feedback.ts, which writes
   * `ci/poll-<sha>.json` when an open agent PR's checks changed. Returns the keys written.
   */
  pollCi?: (repositories: { owner: string; repo: string }[]) => Promise<string[]>;
  /**
   * Wakes the dispatcher's admission pass (the run queue's SQS queue): sent when runs wait, so a
   * start slot that frees as the hour moves on is used within one sweep.
   */
  wake?: (reason: string) => Promise<void>;
}

export interface SweptRun {
  owner: string;
  repo: string;
  issue: number;
  runId: string;
  attempt: number;
  /** The status before the sweep (`QUEUED` when the worker never wrote run.json). */
  was: string;
  commentUpdated: boolean;
}

export interface SweepReport {
  /** Triggers the intake began and never finished, ended (docs/operations.md, "Dead letters"). */
  intakesEnded: EndedIntake[];
  /** Lock keys deleted. */
  locksReleased: string[];
  /** Locks of runs waiting in the queue: left alone, never stuck for waiting. */
  waiting: string[];
  /** Whether the dispatcher was woken for the runs waiting. */
  woke: boolean;
  runsFailed: SweptRun[];
  /** Keys the CI poll hook wrote. */
  ciPolled: string[];
  /** Completed runs with no pull request: re-driven to the publisher, or ended (sweep-publications.ts). */
  publications: SweptPublication[];
  /** Per-lock problems; one bad lock never stops the sweep. */
  problems: { key: string; message: string }[];
}

/**
 * One sweep over the bucket: every issue lock is checked against its run. A run that is still
 * QUEUED or RUNNING but whose lock expired, or whose record has not changed for `stuckAfterMs`,
 * is marked FAILED (reason `STUCK`) with a compare-and-swap on run.json, its progress comment
 * says so (through a token-read token), and its lock is released. An expired lock of a run that
 * already ended is just released. A live lock of a live run is left alone. Then the optional
 * CI poll runs.
 *
 * The lock is deleted only if it is still the object that was read (same etag just before the
 * delete): a webhook that took an expired lock over in between keeps it. The ArtifactStore has
 * no conditional delete, so a take-over in the few milliseconds between that check and the
 * delete is possible; its cost is a second run on the issue, not lost work.
 */
export async function sweep(deps: SweepDeps): Promise<SweepReport> {
  const report: SweepReport = { intakesEnded: [], locksReleased: [], waiting: [], woke: false, runsFailed: [], ciPolled: [], publications: [], problems: [] };
  const now = deps.clock.now();
  report.intakesEnded = await sweepIntakes(deps, now, report.problems);
  report.publications = await sweepPublications(deps, report);
  for (const key of await deps.store.list('locks/')) {
    const parsed = parseIssueKey(key);
    if (parsed?.kind !== 'lock') continue;
    const { owner, repo, issue } = parsed;
    try {
      await sweepLock(deps, report, { key, owner, repo, issue }, now);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      report.problems.push({ key, message });
      deps.logger.error('sweep of a lock failed', { key, error: message });
    }
  }
  await wakeForWaiting(deps, report);
  if (deps.pollCi) {
    const repositories = await repositoriesWithRuns(deps.store);
    try {
      report.ciPolled = await deps.pollCi(repositories);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      report.problems.push({ key: 'issues/', message });
      deps.logger.error('CI poll failed', { error: message });
    }
  }
  deps.logger.info('sweep finished', {
    intakesEnded: report.intakesEnded.length,
    locksReleased: report.locksReleased.length,
    runsFailed: report.runsFailed.length,
    ciPolled: report.ciPolled.length,
    problems: report.problems.length,
  });
  emitMetric(deps.logger, sweepMetric(report, deps.clock.now()));
  return report;
}

interface LockRef {
  key: string;
  owner: string;
  repo: string;
  issue: number;
}

async function sweepLock(deps: SweepDeps, report: SweepReport, ref: LockRef, now: number): Promise<void> {
  const { store } = deps;
  const lock = await readArtifactVersioned(store, ref.key, IssueLock);
  if (!lock) return;
  // A run waiting in the queue is not stuck, however long it waits: the admission pass keeps its lock.
  if (await findWaiting(store, ref.owner, ref.repo, lock.value.runId)) {
    report.waiting.push(ref.key);
    return;
  }
  const keys = runKeys(ref.owner, ref.repo, lock.value.runId);
  const run = await readArtifactVersioned(store, keys.run, RunRecord);
  if (!run && (await lockWithoutRun(deps, ref, lock.value, now))) {
    if (await releaseIssueLock(store, ref, { runId: lock.value.runId, attempt: lock.value.attempt, etag: lock.etag })) {
      report.locksReleased.push(ref.key);
      deps.logger.warn('lock without a run released', { key: ref.key, runId: lock.value.runId });
    }
    return;
  }
  const { status, expired, lastMove, silent, stuck } = await liveness(deps, ref, run?.value, lock.value, now);
  if (!stuck && !expired) return;

  // A run that moved while we looked is alive after all: its live lock stays.
  if (stuck && !(await failStuckRun(deps, report, ref, { keys, run, lock: lock.value, status, lastMove, silent, now })) && !expired) return;

  if (await releaseIssueLock(store, ref, { runId: lock.value.runId, attempt: lock.value.attempt, etag: lock.etag })) {
    report.locksReleased.push(ref.key);
    deps.logger.info('issue lock released', { key: ref.key, runId: lock.value.runId, expired });
  }
}

/**
 * Whether a locked run is still alive: its lock expired, its record has not moved for
 * `stuckAfterMs`, or its worker went silent (a stale `running` heartbeat) make an active run stuck.
 */
async function liveness(deps: SweepDeps, ref: LockRef, run: RunRecord | undefined, lock: IssueLock, now: number) {
  const status = run?.status ?? 'QUEUED';
  const expired = Date.parse(lock.expiresAt) <= now;
  const lastMove = Date.parse(run?.updatedAt ?? lock.acquiredAt);
  const active = ACTIVE_RUN_STATUSES.has(status);
  const target = { owner: ref.owner, repo: ref.repo, runId: lock.runId };
  const silent = active ? await deadWorker(deps.store, target, Math.max(run?.attempt ?? 1, lock.attempt), now) : undefined;
  const stuck = active && (expired || now - lastMove > (deps.stuckAfterMs ?? DEFAULT_STUCK_AFTER_MS) || silent !== undefined);
  return { status, expired, lastMove, silent, stuck };
}

/** Mark a stuck run FAILED and say why on its progress comment; false when the run moved since the sweep read it. */
async function failStuckRun(
  deps: SweepDeps,
  report: SweepReport,
  ref: LockRef,
  stuck: {
    keys: ReturnType<typeof runKeys>;
    run: { value: RunRecord; etag: string } | undefined;
    lock: IssueLock;
    status: string;
    lastMove: number;
    silent: DeadWorker | undefined;
    now: number;
  },
): Promise<boolean> {
  const { keys, run, lock, status, lastMove, silent, now } = stuck;
  const request = await readArtifactIfPresent(deps.store, keys.request, RunRequest);
  const marked = await markFailed(deps, { keys, run, request, lock, now });
  if (!marked) return false;
  const message = !silent
    ? `no progress for ${minutesSince(lastMove, now)} minutes; stopped by the sweeper. \`/agent retry\` starts it again`
    : silent.kind === 'never-started'
      ? `the worker never started: it was dispatched ${minutesSince(silent.at, now)} minutes ago (continuation ${silent.continuation}) and never sent a heartbeat (a crash at start, or the worker's deployment or configuration: see its logs); stopped by the sweeper. \`/agent retry\` starts it again`
      : `the worker stopped answering: its last heartbeat was ${minutesSince(silent.at, now)} minutes ago (killed by its time limit, out of memory or crashed, during continuation ${silent.continuation}); stopped by the sweeper. \`/agent retry\` starts it again`;
  const commentUpdated = await updateProgressComment(deps, ref, request, lock, message);
  const swept = { owner: ref.owner, repo: ref.repo, issue: ref.issue, runId: lock.runId, attempt: marked.attempt, was: status };
  report.runsFailed.push({ ...swept, commentUpdated });
  deps.logger.warn('stuck run marked failed', { ...swept, ...(silent ? { worker: silent.kind, since: silent.at } : {}) });
  return true;
}

/**
 * A lock no trigger will use: past the intake's grace period, with neither a request nor an
 * intake record for its run (an intake that took it and died before recording anything).
 */
async function lockWithoutRun(deps: SweepDeps, ref: LockRef, lock: IssueLock, now: number): Promise<boolean> {
  if (now - Date.parse(lock.acquiredAt) < INTAKE_GRACE_MS) return false;
  if (await deps.store.get(runKeys(ref.owner, ref.repo, lock.runId).request)) return false;
  return !(await deps.store.get(intakeKey(ref.owner, ref.repo, ref.issue, lock.runId)));
}

/**
 * FAILED/STUCK in run.json; undefined when the record moved since the sweep read it (the run
 * is alive after all, or another writer ended it).
 */
async function markFailed(
  deps: SweepDeps,
  input: {
    keys: ReturnType<typeof runKeys>;
    run: { value: RunRecord; etag: string } | undefined;
    request: RunRequest | undefined;
    lock: IssueLock;
    now: number;
  },
): Promise<{ attempt: number } | undefined> {
  const { keys, run, request, lock } = input;
  const at = new Date(input.now).toISOString();
  const attempt = Math.max(run?.value.attempt ?? 1, lock.attempt);
  const reason = 'STUCK';
  const written = await writeRunTransition(deps.store, keys.run, 'sweeper', (current) => {
    if (current?.updatedAt !== run?.value.updatedAt || current?.status !== run?.value.status) return undefined;
    const startedAt = current?.attempts.find((a) => a.n === attempt)?.startedAt ?? lock.acquiredAt;
    return {
      schemaVersion: 1,
      runId: lock.runId,
      agentBranch: request?.agentBranch ?? '',
      progressCommentId: request?.issue?.progressCommentId,
      ...current,
      status: 'FAILED',
      reason,
      attempt,
      attempts: withAttempt(current?.attempts ?? [], {
        ...current?.attempts.find((a) => a.n === attempt),
        n: attempt,
        status: 'FAILED',
        reason,
        startedAt,
        endedAt: at,
      }),
      updatedAt: at,
    };
  });
  if (written && request)
    emitMetric(deps.logger, runOutcomeMetric({ outcome: 'failed', reason }, request, { fn: 'sweeper', runId: lock.runId, attempt, timestamp: input.now }));
  return written ? { attempt } : undefined;
}

/** Edit the run's progress comment to say it was failed by the sweeper; false when there is none or GitHub refused. */
async function updateProgressComment(deps: SweepDeps, ref: LockRef, request: RunRequest | undefined, lock: IssueLock, message: string): Promise<boolean> {
  if (!request || request.source.kind !== 'github') return false;
  let commentId = request.issue?.progressCommentId;
  if (commentId === undefined) {
    const latest = await readArtifactIfPresent(deps.store, issueLatestKey(ref.owner, ref.repo, ref.issue), IssueLatest);
    if (latest?.runId === lock.runId) commentId = latest.progressCommentId;
  }
  if (commentId === undefined) return false;
  const id = commentId;
  return withRepositoryApi(deps, request.source, lock.runId, (api) =>
    api.rest.issues.updateComment({
      owner: ref.owner,
      repo: ref.repo,
      comment_id: id,
      body: renderProgressComment({
        runId: lock.runId,
        attempt: Math.max(lock.attempt, 1),
        status: 'FAILED',
        phases: [],
        message,
      }),
    }),
  );
}

function minutesSince(at: string | number, now: number): number {
  return Math.round((now - (typeof at === 'number' ? at : Date.parse(at))) / 60_000);
}

/** Wake the admission pass when runs wait in the queue (the hour may have moved on since the last one). */
async function wakeForWaiting(deps: SweepDeps, report: SweepReport): Promise<void> {
  if (!deps.wake || (await deps.store.list(QUEUE_WAITING_PREFIX)).length === 0) return;
  try {
    await deps.wake('sweep');
    report.woke = true;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    report.problems.push({ key: QUEUE_WAITING_PREFIX, message });
    deps.logger.error('waking the run queue failed', { error: message });
  }
}

/** Every owner/repo with an issue pointer, sorted. */
async function repositoriesWithRuns(store: ArtifactStore): Promise<{ owner: string; repo: string }[]> {
  const seen = new Map<string, { owner: string; repo: string }>();
  for (const key of await store.list('issues/')) {
    const parsed = parseIssueKey(key);
    if (parsed?.kind === 'latest') seen.set(`${parsed.owner}/${parsed.repo}`, { owner: parsed.owner, repo: parsed.repo });
  }
  return [...seen.keys()].sort().map((k) => seen.get(k)!);
}
