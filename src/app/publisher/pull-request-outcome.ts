import type { RunKeys } from '../../core/artifacts/keys.js';
import type { ArtifactStore, Clock, Logger } from '../../core/ports.js';
import { timeToMergeMs } from '../../core/runs/outcomes.js';
import type { RunRequest } from '../../core/runs/run-request.js';
import type { RunRecordStatus } from '../../core/runs/run-status.js';
import { writeRunTransition } from '../../core/runs/write-run-transition.js';
import { emitMetric, runOutcomeMetric } from '../metrics/run-metrics.js';
import { runSpend } from '../outcomes/run-spend.js';

/**
 * run.json MERGED or CLOSED once the run's pull request closed, and the outcome metric when that
 * changed its status (a second close event after a reopen is not counted twice): merged with the
 * time from the request to the merge, and the run's spend.
 */
export async function closeRun(
  deps: { store: ArtifactStore; clock: Clock; logger: Logger },
  keys: RunKeys,
  request: RunRequest,
  closed: { merged: boolean; attempt: number },
): Promise<void> {
  const status: RunRecordStatus = closed.merged ? 'MERGED' : 'CLOSED';
  const closedAt = new Date(deps.clock.now()).toISOString();
  let before: RunRecordStatus | undefined;
  const written = await writeRunTransition(deps.store, keys.run, 'ci-feedback', (current) => {
    before = current?.status;
    return current && { ...current, status, updatedAt: closedAt };
  });
  if (!written || before === status) return;
  const spendMicroUsd = await runSpend(deps.store, keys).catch((error: unknown) => {
    deps.logger.warn('run spend not read', { runId: request.runId, error });
    return null;
  });
  const event = closed.merged
    ? { outcome: 'merged' as const, timeToMergeMs: timeToMergeMs({ status, createdAt: request.createdAt, closedAt }), spendMicroUsd }
    : { outcome: 'closed' as const, spendMicroUsd };
  emitMetric(deps.logger, runOutcomeMetric(event, request, { fn: 'publisher', runId: request.runId, attempt: closed.attempt, timestamp: deps.clock.now() }));
}
