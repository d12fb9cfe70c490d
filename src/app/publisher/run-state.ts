import { putArtifactIfAbsent, readArtifactIfPresent, writeArtifact } from '../../core/artifacts/artifact-io.js';
import { issueLatestKey } from '../../core/artifacts/keys.js';
import { describeProblems, problemsOf, type PublishError } from '../../core/publish/publish-error.js';
import { AttemptRequest, RunRecord } from '../../core/runs/run-request.js';
import { releaseIssueLock } from '../../core/runs/issue-lock.js';
import { IssueLatest } from '../../core/runs/run-state.js';
import { writeRunTransition } from '../../core/runs/write-run-transition.js';
import { describeRetry, isLiveRetry, PublishRetry } from '../../core/runs/publish-retry.js';
import type { GitHubApiError } from '../github/github-api-error.js';
import { parseProgressPhases, renderProgressComment } from '../github/progress-comment.js';
import { spendSoFar } from './spend-so-far.js';
import { emitMetric, failureEvent, publishMetric, runOutcomeMetric, type PublishMetricOutcome, type RunOutcomeEvent } from '../metrics/run-metrics.js';
import type { PublishOptions, PublishOutcome, RunContext } from './publisher-context.js';
import { PublishRecord } from './publish-record.js';

/*
 * Everything the publisher records about the run (run.json, the attempt request of a rerun,
 * issues/latest.json, the lock, the progress comment, publish.json), in one place: what the
 * repository receives is decided and applied elsewhere.
 */

/** Base moved and the policy says rerun: request attempt n+1 on the new base and stop. */
export async function recordRerun(options: PublishOptions, ctx: RunContext, attempt: number, moved: { from: string; to: string }): Promise<PublishOutcome> {
  const { store, runKeys: keys, clock } = options;
  const next = attempt + 1;
  const now = new Date(clock.now()).toISOString();
  const created = await putArtifactIfAbsent(store, keys.attempt(next).request, AttemptRequest, {
    schemaVersion: 1,
    runId: ctx.request.runId,
    attempt: next,
    reason: 'rerun-base-moved',
    approvedGates: [],
    createdAt: now,
  });
  if (ctx.request.issue) {
    const latestKey = issueLatestKey(ctx.owner, ctx.repo, ctx.request.issue.number);
    const latest = await readArtifactIfPresent(store, latestKey, IssueLatest);
    if (latest && latest.runId === ctx.request.runId && latest.attempt < next)
      await writeArtifact(store, latestKey, IssueLatest, { ...latest, attempt: next, updatedAt: now });
  }
  await updateRun(options, ctx, (run) => ({ ...run, status: 'QUEUED', reason: 'BASE_MOVED', attempt: Math.max(run.attempt, next) }));
  await updateProgress(options, ctx, {
    status: 'QUEUED',
    attempt: next,
    message: `the base moved from ${moved.from.slice(0, 12)} to ${moved.to.slice(0, 12)}; attempt ${next} runs on the new base`,
  });
  options.logger.info('base moved; next attempt requested', { runId: ctx.request.runId, attempt: next, created, ...moved });
  recordMetric(options, ctx, { outcome: 'rerun' });
  return { kind: 'rerun', attempt: next, ...moved };
}

/**
 * Record a refusal: run.json (BLOCKED + reason; CANCELLED for a cancelled run, as its comment
 * already says), the progress comment, and the lock released. Nothing is written to the repository.
 */
export async function recordRefusal(options: PublishOptions, ctx: RunContext, error: PublishError): Promise<PublishOutcome> {
  options.logger.warn('publication refused', { runId: ctx.request.runId, attempt: ctx.attempt, reason: error.reason, data: error.data });
  const status = error.reason === 'RUN_CANCELLED' ? 'CANCELLED' : 'BLOCKED';
  await updateRun(options, ctx, (run) => ({ ...run, status, reason: error.reason }));
  const problems = problemsOf(error);
  const detail = problems.length > 0 ? ` — ${describeProblems(problems)}` : '';
  await updateProgress(options, ctx, { status, message: `not published: ${error.reason}${detail}` }).catch((e: unknown) => {
    options.logger.warn('progress comment not updated', { error: e });
  });
  await releaseLock(options, ctx);
  recordMetric(options, ctx, { outcome: 'refused', reason: error.reason });
  recordOutcome(options, ctx, failureEvent(status, error.reason));
  return { kind: 'refused', reason: error.reason, error };
}

/**
 * GitHub rate-limited the publication for longer than an invocation waits (a secondary limit on
 * opening pull requests, typically, after the branch was pushed): record when to try again in
 * `control/publish-retry.json` and say so on the progress comment. The sweeper re-drives it once
 * `notBefore` has passed, for an hour in all from the first failure (src/app/sweeper/sweep-publications.ts).
 * Nothing is thrown: Lambda's own retries, a minute or two apart, could not wait that long.
 */
export async function recordDeferred(options: PublishOptions, ctx: RunContext, error: GitHubApiError): Promise<PublishOutcome> {
  const { store, runKeys: keys, clock } = options;
  const now = clock.now();
  const seconds = Number(error.data.retryAfterSeconds);
  const notBefore = new Date(now + (Number.isFinite(seconds) && seconds > 0 ? seconds : 60) * 1000).toISOString();
  const previous = await readArtifactIfPresent(store, keys.publishRetry, PublishRetry).catch(() => undefined);
  const live = isLiveRetry(previous, ctx.request.runId, ctx.attempt) ? previous : undefined;
  const route = typeof error.data.route === 'string' ? error.data.route : undefined;
  const record: PublishRetry = {
    schemaVersion: 1,
    runId: ctx.request.runId,
    attempt: ctx.attempt,
    firstFailedAt: live?.firstFailedAt ?? new Date(now).toISOString(),
    notBefore,
    tries: (live?.tries ?? 0) + 1,
    redrives: live?.redrives ?? 0,
    reason: error.reason,
    route,
    updatedAt: new Date(now).toISOString(),
  };
  await writeArtifact(store, keys.publishRetry, PublishRetry, record);
  await updateProgress(options, ctx, { status: 'PUBLISHING', message: describeRetry(record) }).catch((e: unknown) =>
    options.logger.warn('progress comment not updated', { error: e }),
  );
  options.logger.warn('publication deferred by a rate limit', { runId: ctx.request.runId, attempt: ctx.attempt, notBefore, tries: record.tries, route });
  recordMetric(options, ctx, { outcome: 'deferred' });
  return { kind: 'deferred', notBefore, tries: record.tries };
}

/** Record a publication: the progress comment, publish.json (once), run.json PUBLISHED, the lock released. */
export async function recordPublished(
  options: PublishOptions,
  ctx: RunContext,
  record: PublishRecord,
  how: { replace?: boolean } = {},
): Promise<PublishOutcome> {
  const { store, runKeys: keys } = options;
  const n = record.warnings.length;
  const what = how.replace ? `revision committed on the pull request (\`${record.publishedCommitSha.slice(0, 12)}\`)` : 'draft pull request opened';
  await updateProgress(options, ctx, {
    status: 'PUBLISHED',
    message: n > 0 ? `${what}, with ${n} warning(s)` : what,
    pullRequestUrl: record.prUrl,
    baseCommitSha: record.baseCommitSha,
  });
  // A follow-up replaces the record (it holds the latest published attempt, and every revision); attempt 1 writes it once.
  // The first publication of the run is its `published` outcome (a redelivery writes nothing and counts nothing).
  const first = how.replace ? false : await putArtifactIfAbsent(store, keys.publish, PublishRecord, record);
  if (how.replace) await writeArtifact(store, keys.publish, PublishRecord, record);
  await updateRun(options, ctx, (run) => ({
    ...run,
    status: 'PUBLISHED',
    reason: undefined,
    attempt: Math.max(run.attempt, record.attempt),
    baseCommitSha: record.baseCommitSha,
    headCommitSha: record.publishedCommitSha,
    headTreeSha: record.treeSha,
    pullRequest: { number: record.prNumber, url: record.prUrl },
  }));
  await releaseLock(options, ctx);
  options.logger.info('draft pull request published', {
    runId: record.runId,
    attempt: record.attempt,
    prNumber: record.prNumber,
    commit: record.publishedCommitSha,
    warnings: n,
  });
  recordMetric(options, ctx, { outcome: 'published', prNumber: record.prNumber });
  if (first) recordOutcome(options, ctx, { outcome: 'published' });
  return { kind: 'published', record };
}

/** The publication's metric line: its outcome, how long it took, and the candidate's size when known. */
function recordMetric(options: PublishOptions, ctx: RunContext, result: PublishMetricOutcome): void {
  const now = options.clock.now();
  emitMetric(
    options.logger,
    publishMetric(result, {
      fn: 'publisher',
      runId: ctx.request.runId,
      attempt: ctx.attempt,
      timestamp: now,
      durationMs: ctx.startedAt === undefined ? undefined : now - ctx.startedAt,
      diff: ctx.diff,
    }),
  );
}

/** The run's outcome line (src/core/runs/outcomes.ts counts the same way), when there is one. */
function recordOutcome(options: PublishOptions, ctx: RunContext, event: RunOutcomeEvent | undefined): void {
  if (event)
    emitMetric(
      options.logger,
      runOutcomeMetric(event, ctx.request, { fn: 'publisher', runId: ctx.request.runId, attempt: ctx.attempt, timestamp: options.clock.now() }),
    );
}

async function updateProgress(
  options: PublishOptions,
  ctx: RunContext,
  progress: { status: string; message: string; attempt?: number; pullRequestUrl?: string; baseCommitSha?: string },
): Promise<void> {
  const id = ctx.request.issue?.progressCommentId;
  if (!ctx.api || id === undefined) return;
  // Keep the worker's phase checklist: the final comment still shows what each phase did.
  const sameAttempt = progress.attempt === undefined || progress.attempt === ctx.attempt;
  const phases = sameAttempt
    ? await ctx.api.rest.issues.getComment({ owner: ctx.owner, repo: ctx.repo, comment_id: id }).then(
        (r) => parseProgressPhases(r.data.body ?? ''),
        () => [],
      )
    : [];
  await ctx.api.rest.issues.updateComment({
    owner: ctx.owner,
    repo: ctx.repo,
    comment_id: id,
    body: renderProgressComment(
      {
        runId: ctx.request.runId,
        attempt: progress.attempt ?? ctx.attempt,
        status: progress.status,
        phases,
        message: progress.message,
        pullRequestUrl: progress.pullRequestUrl,
        baseCommitSha: progress.baseCommitSha,
      },
      undefined,
      await spendSoFar(options.store, options.runKeys.spend),
    ),
  });
}

/** run.json through the run's state machine and its one compare-and-swap writer; created when absent. */
async function updateRun(options: PublishOptions, ctx: RunContext, change: (run: RunRecord) => RunRecord): Promise<void> {
  const { store, runKeys: keys, clock } = options;
  const now = new Date(clock.now()).toISOString();
  await writeRunTransition(store, keys.run, 'publisher', (current) => {
    const base: RunRecord = current ?? {
      schemaVersion: 1,
      runId: ctx.request.runId,
      status: 'QUEUED',
      attempt: ctx.attempt,
      attempts: [],
      agentBranch: ctx.request.agentBranch,
      progressCommentId: ctx.request.issue?.progressCommentId,
      updatedAt: now,
    };
    return { ...change(base), updatedAt: now };
  });
}

/** Release the issue's lock when it is this run's (another run's lock is never touched). */
async function releaseLock(options: PublishOptions, ctx: RunContext): Promise<void> {
  if (!ctx.request.issue) return;
  await releaseIssueLock(
    options.store,
    { owner: ctx.owner, repo: ctx.repo, issue: ctx.request.issue.number },
    { runId: ctx.request.runId, attempt: ctx.attempt },
  );
}
