import { z } from 'zod';
import { readArtifactIfPresent, readArtifactVersioned, writeArtifact } from '../../core/artifacts/artifact-io.js';
import { runKeys } from '../../core/artifacts/keys.js';
import { releaseIssueLock } from '../../core/runs/issue-lock.js';
import { PublishRecord } from '../../core/runs/publish-record.js';
import { isLiveRetry, PublishRetry, publishRetryDeadline } from '../../core/runs/publish-retry.js';
import { parseIssueKey } from '../../core/runs/run-key.js';
import { RunRecord, RunRequest } from '../../core/runs/run-request.js';
import { IssueLock } from '../../core/runs/run-state.js';
import { withAttempt } from '../../core/runs/update-run-record.js';
import { writeRunTransition } from '../../core/runs/write-run-transition.js';
import { renderProgressComment } from '../github/progress-comment.js';
import { emitMetric, runOutcomeMetric } from '../metrics/run-metrics.js';
import { withRepositoryApi } from './repository-api.js';
import type { SweepDeps } from './sweep.js';

/*
 * The publication pass of the sweep (docs/operations.md, "A branch without a pull request"): a
 * run the worker left COMPLETED with a candidate, still holding its issue's lock, and not
 * published. The publisher may have recorded a rate limit (`control/publish-retry.json`), or
 * dead-lettered with nothing recorded. Each such run is re-driven (the sweeper writes the retry
 * record; its creation starts the publisher, which re-validates everything and finds before it
 * creates) or, an hour after the first failure or when its lock runs out, ended: FAILED with
 * reason NOT_PUBLISHED, a progress comment that says what is on GitHub and how to replay, and
 * the lock released.
 */

/** How long the publisher's own tries (Lambda's two retries, a minute or two apart) may take before the sweeper steps in. */
export const PUBLISHER_GRACE_MS = 20 * 60 * 1000;

export interface SweptPublication {
  owner: string;
  repo: string;
  issue: number;
  runId: string;
  attempt: number;
  action: 'redriven' | 'ended';
  /** `ended`: whether the progress comment now says so. */
  commentUpdated?: boolean;
}

/** The part of a candidate the sweeper reads: that there is one, and for which attempt (the publisher re-validates the rest). */
const CandidateAttempt = z.object({ attempt: z.number().int().positive() });

interface Owed {
  ref: { owner: string; repo: string; issue: number };
  lock: { value: IssueLock; etag: string };
  run: RunRecord;
  keys: ReturnType<typeof runKeys>;
  retry: PublishRetry | undefined;
}

/** Every lock-holding run whose publication is owed, re-driven or ended; one bad run never stops the pass. */
export async function sweepPublications(deps: SweepDeps, report: { problems: { key: string; message: string }[] }): Promise<SweptPublication[]> {
  const swept: SweptPublication[] = [];
  const now = deps.clock.now();
  for (const key of await deps.store.list('locks/')) {
    const parsed = parseIssueKey(key);
    if (parsed?.kind !== 'lock') continue;
    try {
      const owed = await publicationOwed(deps, { owner: parsed.owner, repo: parsed.repo, issue: parsed.issue }, key);
      const done = owed && (await settle(deps, owed, now));
      if (done) swept.push(done);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      report.problems.push({ key, message });
      deps.logger.error('publication sweep of a lock failed', { key, error: message });
    }
  }
  return swept;
}

async function publicationOwed(deps: SweepDeps, ref: Owed['ref'], lockKey: string): Promise<Owed | undefined> {
  const { store } = deps;
  // An unreadable lock is the lock pass's to report (sweep.ts), not this one's.
  const lock = await readArtifactVersioned(store, lockKey, IssueLock).catch(() => undefined);
  if (!lock) return undefined;
  const keys = runKeys(ref.owner, ref.repo, lock.value.runId);
  const run = await readArtifactIfPresent(store, keys.run, RunRecord);
  if (run?.status !== 'COMPLETED' || run.runId !== lock.value.runId) return undefined;
  const published = await readArtifactIfPresent(store, keys.publish, PublishRecord);
  if (published && published.attempt >= run.attempt) return undefined;
  const candidate = await readArtifactIfPresent(store, keys.candidate.prCandidate, CandidateAttempt).catch(() => undefined);
  if (candidate?.attempt !== run.attempt) return undefined;
  const stored = await readArtifactIfPresent(store, keys.publishRetry, PublishRetry).catch(() => undefined);
  if (stored?.endedAt && stored.runId === run.runId && stored.attempt === run.attempt) return undefined;
  return { ref, lock, run, keys, retry: isLiveRetry(stored, run.runId, run.attempt) ? stored : undefined };
}

/** Re-drive, end, or leave alone (the publisher may still be at it, or GitHub's wait is not over). */
async function settle(deps: SweepDeps, owed: Owed, now: number): Promise<SweptPublication | undefined> {
  const { run, retry, lock } = owed;
  if (!retry && now - Date.parse(run.updatedAt) < PUBLISHER_GRACE_MS) return undefined;
  const deadline = Math.min(publishRetryDeadline({ firstFailedAt: retry?.firstFailedAt ?? run.updatedAt }), Date.parse(lock.value.expiresAt));
  const base = { ...owed.ref, runId: run.runId, attempt: run.attempt };
  if (now >= deadline) return { ...base, action: 'ended', commentUpdated: await end(deps, owed, now) };
  if (retry && Date.parse(retry.notBefore) > now) return undefined;
  const at = new Date(now).toISOString();
  // Its creation starts the publisher (the bucket's notification): notBefore is now, so it publishes.
  const record = retryRecord(owed, at, { redrives: (retry?.redrives ?? 0) + 1 });
  await writeArtifact(deps.store, owed.keys.publishRetry, PublishRetry, record);
  deps.logger.warn('publication re-driven', { ...base, reason: record.reason, redrives: record.redrives });
  return { ...base, action: 'redriven' };
}

/**
 * The retry record the sweeper writes: the publisher's, carried over, or (a publisher that
 * dead-lettered with nothing recorded) one that starts when the worker completed, due now.
 */
function retryRecord(owed: Owed, at: string, changes: Partial<PublishRetry>): PublishRetry {
  const { run, retry } = owed;
  return {
    schemaVersion: 1,
    runId: run.runId,
    attempt: run.attempt,
    firstFailedAt: retry?.firstFailedAt ?? run.updatedAt,
    notBefore: retry?.notBefore ?? at,
    tries: retry?.tries ?? 0,
    redrives: retry?.redrives ?? 0,
    reason: retry?.reason ?? 'PUBLISHER_FAILED',
    route: retry?.route,
    updatedAt: at,
    ...changes,
  };
}

/** FAILED/NOT_PUBLISHED, the retry record closed, the comment, the lock; false when the comment could not be edited. */
async function end(deps: SweepDeps, owed: Owed, now: number): Promise<boolean> {
  const { store } = deps;
  const { run, retry, keys } = owed;
  const at = new Date(now).toISOString();
  const reason = 'NOT_PUBLISHED';
  const written = await writeRunTransition(store, keys.run, 'sweeper', (current) => {
    if (current?.status !== 'COMPLETED' || current.attempt !== run.attempt) return undefined;
    const attempt = current.attempts.find((a) => a.n === run.attempt);
    return {
      ...current,
      status: 'FAILED',
      reason,
      attempts: withAttempt(current.attempts, {
        ...attempt,
        n: run.attempt,
        status: 'FAILED',
        reason,
        startedAt: attempt?.startedAt ?? run.updatedAt,
        endedAt: at,
      }),
      updatedAt: at,
    };
  });
  if (!written) return false;
  const request = await readArtifactIfPresent(store, keys.request, RunRequest);
  if (request)
    emitMetric(
      deps.logger,
      runOutcomeMetric({ outcome: 'failed', reason }, request, { fn: 'sweeper', runId: run.runId, attempt: run.attempt, timestamp: now }),
    );
  await writeArtifact(store, keys.publishRetry, PublishRetry, retryRecord(owed, at, { endedAt: at }));
  const commented = await sayNotPublished(deps, owed, request);
  await releaseIssueLock(store, owed.ref, { runId: run.runId, attempt: owed.lock.value.attempt, etag: owed.lock.etag });
  deps.logger.warn('publication ended unpublished', { ...owed.ref, runId: run.runId, attempt: run.attempt, reason: retry?.reason ?? 'PUBLISHER_FAILED' });
  return commented;
}

/** The truth on the progress comment: what GitHub holds (the branch or not), why, and how to replay. */
async function sayNotPublished(deps: SweepDeps, owed: Owed, request: RunRequest | undefined): Promise<boolean> {
  const { run, retry, keys, ref } = owed;
  const commentId = request?.issue?.progressCommentId;
  if (request?.source.kind !== 'github' || commentId === undefined) return false;
  return withRepositoryApi(deps, request.source, run.runId, async (api) => {
    const branch = request.agentBranch;
    const head = await api.rest.git.getRef({ owner: ref.owner, repo: ref.repo, ref: `heads/${branch}` }).then(
      (r) => r.data.object.sha,
      () => undefined,
    );
    const why =
      retry?.reason === 'GITHUB_RATE_LIMITED'
        ? `GitHub's rate limit held back ${retry.route ?? 'the publisher'} for over an hour`
        : 'the publisher failed on every try for over an hour (its dead letters and logs say why)';
    const onGitHub = head
      ? `The branch \`${branch}\` holds the change (\`${head.slice(0, 12)}\`), but no pull request was opened.`
      : `Nothing was pushed: the branch \`${branch}\` does not exist.`;
    await api.rest.issues.updateComment({
      owner: ref.owner,
      repo: ref.repo,
      comment_id: commentId,
      body: renderProgressComment({
        runId: run.runId,
        attempt: run.attempt,
        status: 'FAILED',
        phases: [],
        message: `the draft pull request could not be opened: ${why}. ${onGitHub} An operator publishes it once the cause is gone with \`draftsman replay <bucket> ${keys.candidate.prCandidate}\` (docs/operations.md); \`/agent retry\` starts a new attempt instead`,
      }),
    });
  });
}
