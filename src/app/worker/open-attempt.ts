import { runKeys, type RunKeys } from '../../core/artifacts/keys.js';
import { loadAttempt, type AttemptStart } from '../../core/runs/attempts.js';
import type { RunTrigger } from '../../core/runs/run-key.js';
import type { RunRequest } from '../../core/runs/run-request.js';
import type { GitHubApi } from '../github/github-api.js';
import { bindLogScope } from '../logger.js';
import { attemptStartMetric, emitMetric, phaseMetric, runOutcomeMetric } from '../metrics/run-metrics.js';
import { MAX_CONTINUATIONS } from '../../core/runs/continuations.js';
import { countReplays, takeLease, type Lease } from './lease.js';
import { ProgressTracker } from './progress-tracker.js';
import { StoredProgressReporter } from './stored-progress.js';
import type { InvocationContext, RunDeps } from './worker-deps.js';

/** What one invocation works on once it holds the attempt's lease: the snapshot, the read token's API, the progress comment. */
export interface OpenAttempt {
  deps: RunDeps;
  target: RunTrigger;
  keys: RunKeys;
  attempt: AttemptStart;
  request: RunRequest;
  source: Extract<RunRequest['source'], { kind: 'github' }>;
  token: string;
  api: GitHubApi;
  tracker: ProgressTracker;
  /** Continuations an operator replayed: they do not count against the limit. */
  replays: number;
  /** The clock's now, as stored dates are written. */
  now: () => string;
}

/** One worker per attempt (see takeLease): false for a duplicate delivery, which exits quietly. */
export async function leaseAttempt(deps: RunDeps, target: RunTrigger, context: InvocationContext): Promise<boolean> {
  const { store, clock, logger } = deps;
  const holder = context.awsRequestId ?? `local-${clock.now()}`;
  const lease: Lease = {
    schemaVersion: 1,
    runId: target.runId,
    attempt: target.attempt,
    continuation: target.continuation,
    holder,
    at: new Date(clock.now()).toISOString(),
  };
  const leased = await takeLease(store, runKeys(target.owner, target.repo, target.runId).attempt(target.attempt), lease, context.awsRequestId);
  const where = { runId: target.runId, attempt: target.attempt, continuation: target.continuation };
  if (leased === 'duplicate') {
    logger.info('duplicate delivery: the attempt is leased by another invocation', where);
    return false;
  }
  if (leased === 'resumed') logger.info('retry of a failed invocation: resuming the attempt', where);
  return true;
}

/**
 * Load the leased attempt, take the run's read token, and say on the progress comment that the
 * attempt is running (or continuing).
 */
export async function openAttempt(deps: RunDeps, target: RunTrigger): Promise<OpenAttempt> {
  const { store, clock } = deps;
  const keys = runKeys(target.owner, target.repo, target.runId);
  const attempt = await loadAttempt(store, keys, target.attempt);
  const request = attempt.request;
  if (request.source.kind !== 'github') throw new Error(`worker runs GitHub requests only, not ${request.source.kind}`);
  const source = request.source;
  bindLogScope({ installationId: source.installationId });
  const issued = await deps.tokens.token({ installationId: source.installationId, repositoryId: source.repositoryId, role: 'worker' });
  deps.logger.redact?.(issued.token);
  const api = deps.github(issued.token);
  const tracker = progressTracker(deps, keys, request, target.attempt);
  const replays = await countReplays(store, keys.attempt(target.attempt), target.continuation);
  const message = target.continuation > 0 ? `continuing (${target.continuation - replays}/${MAX_CONTINUATIONS})` : 'ingesting the repository';
  await tracker.report({ runId: request.runId, attempt: target.attempt, status: 'RUNNING', phases: [], message });
  if (target.continuation === 0) {
    const ctx = { fn: 'worker', runId: request.runId, attempt: target.attempt, timestamp: clock.now() };
    emitMetric(deps.logger, attemptStartMetric(ctx));
    if (target.attempt === 1) emitMetric(deps.logger, runOutcomeMetric({ outcome: 'started' }, request, ctx));
  }
  const now = () => new Date(clock.now()).toISOString();
  return { deps, target, keys, attempt, request, source, token: issued.token, api, tracker, replays, now };
}

/** The attempt's stored progress (the publisher shows it on the issue), and a metric line per phase that ended. */
function progressTracker(deps: RunDeps, keys: RunKeys, request: RunRequest, attempt: number): ProgressTracker {
  const { clock, logger, store } = deps;
  return new ProgressTracker(
    new StoredProgressReporter(store, keys.attempt(attempt).progress, clock),
    (error) => logger.warn('progress not stored', { error: error instanceof Error ? error.message : String(error) }),
    (progress) => {
      if (progress.state !== 'running') emitMetric(logger, phaseMetric(progress, { fn: 'worker', runId: request.runId, attempt, timestamp: clock.now() }));
    },
  );
}
