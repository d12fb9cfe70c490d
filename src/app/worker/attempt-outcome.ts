import { putArtifactIfAbsent, writeArtifact } from '../../core/artifacts/artifact-io.js';
import { issueLatestKey } from '../../core/artifacts/keys.js';
import { isAnalysisReport } from '../../core/phases/analysis-report.js';
import type { PipelineResult } from '../../core/pipeline/run-pipeline.js';
import { spendCapSentence } from '../../core/pipeline/model-budget.js';
import { IssueLatest } from '../../core/runs/run-state.js';
import { attemptEndMetric, emitMetric, failureEvent, runOutcomeMetric } from '../metrics/run-metrics.js';
import { MAX_CONTINUATIONS } from '../../core/runs/continuations.js';
import { code } from '../../core/text/report-markdown.js';
import { modelFailureOf } from '../model/model-failure.js';
import { Continuation } from './lease.js';
import type { OpenAttempt } from './open-attempt.js';
import { stopAttempt } from './stop-attempt.js';

/**
 * The pipeline paused between phases: write the next continuation (a new invocation picks the
 * attempt up), or fail the attempt when it has used every continuation it may.
 */
export async function suspendAttempt(run: OpenAttempt, result: PipelineResult): Promise<void> {
  const { deps, request, target, tracker } = run;
  if (result.details?.code === 'AWAITING_VERIFICATION') {
    // No continuation key: the verifier's trusted result starts the next invocation (docs/architecture.md, "Verification").
    await tracker.report({
      runId: request.runId,
      attempt: target.attempt,
      status: 'RUNNING',
      phases: [],
      message: 'waiting for the project checks in AWS CodeBuild',
    });
    return;
  }
  const next = target.continuation + 1;
  const used = next - run.replays;
  if (used > MAX_CONTINUATIONS) {
    const reason = `the attempt needed more than ${MAX_CONTINUATIONS} continuations`;
    await stopAttempt(run, { status: 'FAILED', reason, message: reason });
    return;
  }
  const continuation = {
    schemaVersion: 1 as const,
    runId: request.runId,
    attempt: target.attempt,
    continuation: next,
    reason: result.reason ?? 'time',
    at: run.now(),
  };
  await putArtifactIfAbsent(deps.store, run.keys.attempt(target.attempt).continue(next), Continuation, continuation);
  await tracker.report({
    runId: request.runId,
    attempt: target.attempt,
    status: 'RUNNING',
    phases: [],
    message: `paused to continue in a new invocation (${used}/${MAX_CONTINUATIONS})`,
  });
}

/**
 * The pipeline ended the attempt (and wrote run.json): the issue pointer, and the last progress,
 * which says how the attempt ended. The worker writes nothing on GitHub: the publisher shows the
 * outcome on the progress comment, posts an analysis report and the follow-up notes, and
 * releases the lock when no candidate will reach it.
 */
export async function finishAttempt(run: OpenAttempt, result: PipelineResult): Promise<void> {
  const { deps, request, target, tracker } = run;
  const { store } = deps;
  const candidate = result.status === 'COMPLETED' && Boolean(result.headCommitSha);
  if (request.issue) {
    await writeArtifact(store, issueLatestKey(request.owner, request.repo, request.issue.number), IssueLatest, {
      schemaVersion: 1,
      runId: request.runId,
      attempt: target.attempt,
      progressCommentId: request.issue.progressCommentId,
      updatedAt: run.now(),
    });
  }
  const status = result.status === 'SUSPENDED' ? 'FAILED' : result.status;
  const metricCtx = { fn: 'worker', runId: request.runId, attempt: target.attempt, timestamp: deps.clock.now() };
  emitMetric(deps.logger, attemptEndMetric(status, result.modelUsage, metricCtx));
  const failure = failureEvent(status, result.reason);
  if (failure) emitMetric(deps.logger, runOutcomeMetric(failure, request, metricCtx));
  const analysisReport = status === 'COMPLETED' && !result.headCommitSha && result.report && isAnalysisReport(result.report) ? result.report : undefined;
  await tracker.report({
    runId: request.runId,
    attempt: target.attempt,
    status: candidate ? 'PUBLISHING' : status,
    phases: [],
    baseCommitSha: result.baseCommitSha,
    message: describeOutcome(result),
    artifacts: Object.fromEntries(Object.entries(result.artifacts).filter(([name]) => !name.endsWith('/'))),
    ended: { status, reason: result.reason, candidate, headCommitSha: result.headCommitSha, analysisReport },
  });
}

function describeOutcome(result: PipelineResult): string {
  if (result.status === 'COMPLETED' && result.headCommitSha)
    return `commit ${result.headCommitSha.slice(0, 12)} is ready; the publisher opens the draft pull request`;
  if (result.status === 'COMPLETED') return 'analysis finished; nothing was changed';
  switch (result.status) {
    case 'NEEDS_APPROVAL':
      return `${result.reason}: a maintainer can \`/agent approve\` to let the next attempt pass this gate`;
    case 'BUDGET_EXCEEDED':
      return spendCapSentence(result.details) ?? `${result.reason}: narrow the task or raise the budgets, then \`/agent retry\``;
    case 'CANCELLED':
      return 'cancelled';
    default:
      return modelStop(result) ?? `${result.reason ?? result.status}: see the ledger; \`/agent retry\` starts a new attempt`;
  }
}

/**
 * A failed model call, as the issue shows it: the provider's cause as a code span (its summary
 * is the provider's scrubbed error, never model output, which other stops may quote; the
 * provider, the endpoint, the HTTP status, the Retry-After it asked for) and what to do about it.
 */
function modelStop(result: PipelineResult): string | undefined {
  const summary = result.details?.summary;
  if (result.reason !== 'MODEL_ERROR' || typeof summary !== 'string') return undefined;
  const { cause, advice } = modelFailureOf(summary);
  return `${result.reason} (${code(cause.length > 600 ? `${cause.slice(0, 600)}…` : cause)}): ${advice}; then \`/agent retry\` starts a new attempt`;
}
