import type { BudgetUsage } from '../../core/budget/budget.js';
import type { Logger, PhaseProgress } from '../../core/ports.js';
import { failureReason, LOCAL_INSTALLATION, runOutcome } from '../../core/runs/outcomes.js';
import type { RunRequest } from '../../core/runs/run-request.js';
import type { RunRecordStatus } from '../../core/runs/run-status.js';
import { buildEmf, type EmfDocument, type MetricSpec } from './emf.js';

/** A logger that can write an EMF line whatever its level (JsonLogger); others get it as an info entry. */
export type MetricLogger = Logger & { metric?(document: EmfDocument): void };

/** Write one metric line. A metric that cannot be built is logged and dropped: metrics never stop a run. */
export function emitMetric(logger: MetricLogger, spec: MetricSpec): void {
  let document: EmfDocument;
  try {
    document = buildEmf(spec);
  } catch (error) {
    logger.warn('metric not written', { error });
    return;
  }
  if (logger.metric) logger.metric(document);
  else logger.info('metric', document);
}

export interface RunMetricContext {
  /** The function the line belongs to: the `fn` dimension. */
  fn: string;
  runId: string;
  attempt: number;
  timestamp: number;
}

/** One line per stage that ended (ingestion or a phase): dimensions fn and phase. */
export function phaseMetric(progress: PhaseProgress, ctx: RunMetricContext): MetricSpec {
  const metrics: MetricSpec['metrics'] = [{ name: 'phaseFailed', unit: 'Count', value: progress.state === 'failed' || progress.state === 'blocked' ? 1 : 0 }];
  if (progress.elapsedMs !== undefined) metrics.push({ name: 'phaseMs', unit: 'Milliseconds', value: progress.elapsedMs });
  if (progress.files) metrics.push({ name: 'phaseFiles', unit: 'Count', value: progress.files.count });
  return {
    timestamp: ctx.timestamp,
    dimensions: { fn: ctx.fn, phase: progress.phase },
    metrics,
    properties: { runId: ctx.runId, attempt: ctx.attempt, state: progress.state, ...(progress.files ? { filesOf: progress.files.of } : {}) },
  };
}

export type PublishMetricOutcome =
  { outcome: 'published'; prNumber: number } | { outcome: 'refused'; reason: string } | { outcome: 'rerun' } | { outcome: 'deferred' };

/**
 * One line per publication decision: dimensions fn and outcome, and fn, outcome and reason for
 * refusals (reason codes are a closed set, so the cardinality stays low).
 */
export function publishMetric(
  result: PublishMetricOutcome,
  ctx: RunMetricContext & { durationMs?: number; diff?: { files: number; lines: number } },
): MetricSpec {
  const metrics: MetricSpec['metrics'] = [{ name: 'publishCount', unit: 'Count', value: 1 }];
  if (ctx.durationMs !== undefined) metrics.push({ name: 'publishMs', unit: 'Milliseconds', value: ctx.durationMs });
  if (ctx.diff) metrics.push({ name: 'publishFiles', unit: 'Count', value: ctx.diff.files }, { name: 'publishLines', unit: 'Count', value: ctx.diff.lines });
  const refused = result.outcome === 'refused';
  return {
    timestamp: ctx.timestamp,
    dimensions: { fn: ctx.fn, outcome: result.outcome, ...(refused ? { reason: result.reason } : {}) },
    dimensionSets: refused
      ? [
          ['fn', 'outcome'],
          ['fn', 'outcome', 'reason'],
        ]
      : [['fn', 'outcome']],
    metrics,
    properties: { runId: ctx.runId, attempt: ctx.attempt, ...(result.outcome === 'published' ? { prNumber: result.prNumber } : {}) },
  };
}

/** One line per sweep: runs marked FAILED/STUCK, locks released, CI events written, problems. */
export function sweepMetric(
  report: { intakesEnded: unknown[]; locksReleased: unknown[]; runsFailed: unknown[]; ciPolled: unknown[]; problems: unknown[] },
  timestamp: number,
): MetricSpec {
  return {
    timestamp,
    dimensions: { fn: 'sweeper' },
    metrics: [
      { name: 'runsStuck', unit: 'Count', value: report.runsFailed.length },
      { name: 'intakesEnded', unit: 'Count', value: report.intakesEnded.length },
      { name: 'locksReleased', unit: 'Count', value: report.locksReleased.length },
      { name: 'ciPolled', unit: 'Count', value: report.ciPolled.length },
      { name: 'sweepProblems', unit: 'Count', value: report.problems.length },
    ],
  };
}

/** One line per attempt the worker starts (not per continuation): dimension fn. */
export function attemptStartMetric(ctx: RunMetricContext): MetricSpec {
  return {
    timestamp: ctx.timestamp,
    dimensions: { fn: ctx.fn },
    metrics: [{ name: 'attemptsStarted', unit: 'Count', value: 1 }],
    properties: { runId: ctx.runId, attempt: ctx.attempt },
  };
}

/**
 * One line per attempt that ended in the worker: `attemptsEnded` by status (dimensions fn and
 * status, and fn alone for the total), with the model's calls, tokens and spend in US dollars
 * when a model ran (spend only when the deployment prices the model).
 */
export function attemptEndMetric(status: string, spend: BudgetUsage | undefined, ctx: RunMetricContext): MetricSpec {
  const metrics: MetricSpec['metrics'] = [{ name: 'attemptsEnded', unit: 'Count', value: 1 }];
  if (spend) {
    metrics.push(
      { name: 'modelCalls', unit: 'Count', value: spend.modelCalls },
      { name: 'modelTokensIn', unit: 'Count', value: spend.tokensIn },
      { name: 'modelTokensOut', unit: 'Count', value: spend.tokensOut },
    );
    if (spend.costMicroUsd !== null) metrics.push({ name: 'modelCostUsd', unit: 'None', value: spend.costMicroUsd / 1_000_000 });
  }
  return {
    timestamp: ctx.timestamp,
    dimensions: { fn: ctx.fn, status },
    dimensionSets: [['fn', 'status'], ['fn']],
    metrics,
    properties: { runId: ctx.runId, attempt: ctx.attempt },
  };
}

/** The `outcome` dimension of `runOutcomes`. */
export const RUN_OUTCOME_EVENTS = ['started', 'published', 'failed', 'merged', 'closed'] as const;

/**
 * What happened to a run, as the outcome metric counts it: started (its first attempt), published
 * (its first pull request), failed (by reason, each time an attempt ends so), its pull request
 * merged (with the time from the request, and the run's spend) or closed unmerged.
 */
export type RunOutcomeEvent =
  | { outcome: 'started' }
  | { outcome: 'published' }
  | { outcome: 'failed'; reason: string }
  | { outcome: 'merged'; timeToMergeMs?: number; spendMicroUsd: number | null }
  | { outcome: 'closed'; spendMicroUsd: number | null };

/** The outcome event of a status an attempt or a publication ended in, when it is a failure (classified as the report does). */
export function failureEvent(status: RunRecordStatus, reason: string | undefined): RunOutcomeEvent | undefined {
  return runOutcome(status) === 'failed' ? { outcome: 'failed', reason: failureReason(status, reason) } : undefined;
}

/**
 * One line per run outcome: `runOutcomes` by outcome, by outcome and installation, by outcome and
 * repository, and failures by reason; `timeToMergeSeconds` and `runSpendUsd` (when priced) on a
 * closed pull request. Repository and installation are dimensions (one series each per outcome);
 * run ids stay properties.
 */
export function runOutcomeMetric(event: RunOutcomeEvent, run: Pick<RunRequest, 'owner' | 'repo' | 'source'>, ctx: RunMetricContext): MetricSpec {
  const metrics: MetricSpec['metrics'] = [{ name: 'runOutcomes', unit: 'Count', value: 1 }];
  if (event.outcome === 'merged' && event.timeToMergeMs !== undefined)
    metrics.push({ name: 'timeToMergeSeconds', unit: 'Seconds', value: event.timeToMergeMs / 1000 });
  if ((event.outcome === 'merged' || event.outcome === 'closed') && event.spendMicroUsd !== null)
    metrics.push({ name: 'runSpendUsd', unit: 'None', value: event.spendMicroUsd / 1_000_000 });
  const installation = run.source.kind === 'github' ? String(run.source.installationId) : LOCAL_INSTALLATION;
  const failed = event.outcome === 'failed';
  return {
    timestamp: ctx.timestamp,
    dimensions: { outcome: event.outcome, installation, repository: `${run.owner}/${run.repo}`, ...(failed ? { reason: event.reason } : {}) },
    dimensionSets: [['outcome'], ['outcome', 'installation'], ['outcome', 'repository'], ...(failed ? [['outcome', 'reason']] : [])],
    metrics,
    properties: { fn: ctx.fn, runId: ctx.runId, attempt: ctx.attempt },
  };
}
