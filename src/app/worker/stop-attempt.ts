import { withAttempt } from '../../core/runs/update-run-record.js';
import { writeRunTransition } from '../../core/runs/write-run-transition.js';
import type { OpenAttempt } from './open-attempt.js';
import { attemptEndMetric, emitMetric, failureEvent, runOutcomeMetric } from '../metrics/run-metrics.js';

/**
 * End the attempt without the pipeline's own record (the policy refused, or continuations ran
 * out): run.json says so, and the last progress (the publisher releases the lock on it).
 */
export async function stopAttempt(run: OpenAttempt, stop: { status: 'FAILED' | 'BLOCKED'; reason: string; message: string }): Promise<void> {
  const { deps, request, keys, tracker } = run;
  const { store, clock } = deps;
  const attempt = run.target.attempt;
  const now = new Date(clock.now()).toISOString();
  await writeRunTransition(store, keys.run, 'worker', (current) => {
    const startedAt = current?.attempts.find((a) => a.n === attempt)?.startedAt ?? now;
    return {
      schemaVersion: 1,
      runId: request.runId,
      agentBranch: request.agentBranch,
      progressCommentId: request.issue?.progressCommentId,
      ...current,
      status: stop.status,
      reason: stop.reason,
      attempt: Math.max(current?.attempt ?? attempt, attempt),
      attempts: withAttempt(current?.attempts ?? [], { n: attempt, status: stop.status, reason: stop.reason, startedAt, endedAt: now }),
      updatedAt: now,
    };
  });
  const metricCtx = { fn: 'worker', runId: request.runId, attempt, timestamp: clock.now() };
  emitMetric(deps.logger, attemptEndMetric(stop.status, undefined, metricCtx));
  const failure = failureEvent(stop.status, stop.reason);
  if (failure) emitMetric(deps.logger, runOutcomeMetric(failure, request, metricCtx));
  await tracker.report({
    runId: request.runId,
    attempt,
    status: stop.status,
    phases: [],
    message: stop.message,
    ended: { status: stop.status, reason: stop.reason, candidate: false },
  });
}
