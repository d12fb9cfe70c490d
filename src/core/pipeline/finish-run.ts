import { withAttempt } from '../runs/update-run-record.js';
import { writeRunTransition } from '../runs/write-run-transition.js';
import type { RunStatus } from '../runs/run-status.js';
import type { PipelineDeps, PipelineRequest, PipelineResult, PipelineStatus } from './run-pipeline.js';
import { spendCapSentence } from './model-budget.js';

/** The end of an attempt: `run.json` (status, attempts) written, the reporter told, the result returned. */
export async function finishRun(deps: PipelineDeps, request: PipelineRequest, result: PipelineResult & { status: RunStatus }): Promise<PipelineResult> {
  const { store, clock } = deps;
  const key = request.keys.run;
  const now = new Date(clock.now()).toISOString();
  const entry = { n: request.attempt.attempt, status: result.status, reason: result.reason, startedAt: request.attempt.createdAt, endedAt: now };
  const gate = result.status === 'NEEDS_APPROVAL' ? (result.details?.gateId as string | undefined) : undefined;
  await writeRunTransition(store, key, 'worker', (previous) => ({
    schemaVersion: 1,
    runId: request.attempt.request.runId,
    status: result.status,
    reason: result.reason,
    attempt: request.attempt.attempt,
    attempts: withAttempt(previous?.attempts ?? [], entry),
    baseCommitSha: result.baseCommitSha,
    headCommitSha: result.headCommitSha,
    headTreeSha: result.headTreeSha,
    agentBranch: result.agentBranch,
    progressCommentId: request.attempt.request.issue?.progressCommentId,
    pendingGate: gate,
    pullRequest: previous?.pullRequest,
    updatedAt: now,
  }));
  result.artifacts['run.json'] = key;
  deps.logger.info('run attempt finished', {
    runId: request.attempt.request.runId,
    attempt: request.attempt.attempt,
    status: result.status,
    reason: result.reason,
  });
  await deps.reporter
    ?.report({
      runId: request.attempt.request.runId,
      attempt: request.attempt.attempt,
      status: result.status,
      phases: [],
      baseCommitSha: result.baseCommitSha,
      message: result.reason ? (spendCapSentence(result.details) ?? nextStep(result.status, result.reason)) : undefined,
      artifacts: Object.fromEntries(Object.entries(result.artifacts).map(([k, v]) => [k, v])),
    })
    .catch((error: unknown) => deps.logger.warn('progress report failed', { error: error instanceof Error ? error.message : String(error) }));
  return result;
}

function nextStep(status: PipelineStatus, reason: string): string {
  switch (status) {
    case 'NEEDS_APPROVAL':
      return `${reason}: see approval-request.json; \`/agent approve\` lets the next attempt pass this gate`;
    case 'BUDGET_EXCEEDED':
      return `${reason}: narrow the task (paths, steps) or raise the budgets, then \`/agent retry\``;
    case 'BLOCKED':
      return `${reason}: the policy refused this; fix the task or the policy, then \`/agent retry\``;
    case 'FAILED':
      return `${reason}: see the ledger and checkpoints; \`/agent retry\` starts a new attempt`;
    default:
      return reason;
  }
}
