import { describe, expect, it } from 'vitest';
import { CapturingLogger, JsonLogger, CapturingSink, REDACTED, withLogScope } from '../../../src/app/logger.js';
import { buildEmf, EMF_UNITS, EmfDocument, MAX_METRICS, MetricError, type MetricSpec } from '../../../src/app/metrics/emf.js';
import { attemptEndMetric, attemptStartMetric, emitMetric, phaseMetric, publishMetric } from '../../../src/app/metrics/run-metrics.js';

const T = Date.UTC(2026, 0, 2, 3, 4, 5);
const ctx = { fn: 'worker', runId: 'run-1', attempt: 2, timestamp: T };

function reasonOf(spec: MetricSpec): string | undefined {
  try {
    buildEmf(spec);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(MetricError);
    return (error as MetricError).message;
  }
}

describe('EMF documents', () => {
  it('an attempt that ended: by status and in total, with the model spend in dollars when a model ran and was priced', () => {
    const spend = { modelCalls: 7, toolCalls: 12, tokensIn: 41_000, tokensOut: 3_100, costMicroUsd: 123_456 };
    const doc = buildEmf(attemptEndMetric('COMPLETED', spend, ctx));
    expect(doc._aws.CloudWatchMetrics[0].Dimensions).toEqual([['fn', 'status'], ['fn']]);
    expect(doc).toMatchObject({
      fn: 'worker',
      status: 'COMPLETED',
      attemptsEnded: 1,
      modelCalls: 7,
      modelTokensIn: 41_000,
      modelTokensOut: 3_100,
      modelCostUsd: 0.123456,
    });
    // No price: no spend metric (a zero would read as free).
    expect(buildEmf(attemptEndMetric('FAILED', { ...spend, costMicroUsd: null }, ctx))).not.toHaveProperty('modelCostUsd');
    // No model: only the count.
    expect(buildEmf(attemptEndMetric('FAILED', undefined, ctx))._aws.CloudWatchMetrics[0].Metrics).toEqual([{ Name: 'attemptsEnded', Unit: 'Count' }]);
    expect(buildEmf(attemptStartMetric(ctx))).toMatchObject({ fn: 'worker', attemptsStarted: 1, runId: 'run-1' });
  });

  it('a phase that ended: dimensions fn and phase, duration, files and failure as metrics, run id as a property', () => {
    const doc = buildEmf(phaseMetric({ phase: 'edit', state: 'done', files: { count: 3, of: 'changed' }, elapsedMs: 1250 }, ctx));
    expect(doc).toEqual({
      _aws: {
        Timestamp: T,
        CloudWatchMetrics: [
          {
            Namespace: 'draftsman',
            Dimensions: [['fn', 'phase']],
            Metrics: [
              { Name: 'phaseFailed', Unit: 'Count' },
              { Name: 'phaseMs', Unit: 'Milliseconds' },
              { Name: 'phaseFiles', Unit: 'Count' },
            ],
          },
        ],
      },
      fn: 'worker',
      phase: 'edit',
      phaseFailed: 0,
      phaseMs: 1250,
      phaseFiles: 3,
      runId: 'run-1',
      attempt: 2,
      state: 'done',
      filesOf: 'changed',
    });
    expect(buildEmf(phaseMetric({ phase: 'ingestion', state: 'blocked', summary: 'REPO_TOO_LARGE' }, ctx))).toMatchObject({ phaseFailed: 1, state: 'blocked' });
  });

  it('a refusal: outcome and reason as dimensions (two sets), duration, files and lines', () => {
    const doc = buildEmf(
      publishMetric({ outcome: 'refused', reason: 'BASE_MOVED' }, { ...ctx, fn: 'publisher', durationMs: 40, diff: { files: 2, lines: 9 } }),
    );
    expect(doc._aws.CloudWatchMetrics[0].Dimensions).toEqual([
      ['fn', 'outcome'],
      ['fn', 'outcome', 'reason'],
    ]);
    expect(doc._aws.CloudWatchMetrics[0].Metrics.map((m) => `${m.Name}:${m.Unit}`)).toEqual([
      'publishCount:Count',
      'publishMs:Milliseconds',
      'publishFiles:Count',
      'publishLines:Count',
    ]);
    expect(doc).toMatchObject({
      fn: 'publisher',
      outcome: 'refused',
      reason: 'BASE_MOVED',
      publishCount: 1,
      publishMs: 40,
      publishFiles: 2,
      publishLines: 9,
      runId: 'run-1',
    });
    const published = buildEmf(publishMetric({ outcome: 'published', prNumber: 7 }, { ...ctx, fn: 'publisher' }));
    expect(published._aws.CloudWatchMetrics[0].Dimensions).toEqual([['fn', 'outcome']]);
    expect(published).toMatchObject({ outcome: 'published', prNumber: 7 });
    expect(published).not.toHaveProperty('reason');
  });

  it('never makes the run id a dimension', () => {
    for (const doc of [
      buildEmf(phaseMetric({ phase: 'plan', state: 'done', elapsedMs: 1 }, ctx)),
      buildEmf(publishMetric({ outcome: 'refused', reason: 'X' }, ctx)),
    ]) {
      expect(doc._aws.CloudWatchMetrics[0].Dimensions.flat()).not.toContain('runId');
    }
  });

  it('refuses what CloudWatch would reject: long names, too many metrics, unknown units, missing dimension values, non-finite values', () => {
    const base: MetricSpec = { timestamp: T, dimensions: { fn: 'worker' }, metrics: [{ name: 'm', unit: 'Count', value: 1 }] };
    expect(reasonOf(base)).toBeUndefined();
    expect(reasonOf({ ...base, metrics: [{ name: 'x'.repeat(256), unit: 'Count', value: 1 }] })).toMatch(/Name/);
    expect(reasonOf({ ...base, metrics: [{ name: 'x'.repeat(255), unit: 'Count', value: 1 }] })).toBeUndefined();
    const many = Array.from({ length: MAX_METRICS + 1 }, (_, i) => ({ name: `m${i}`, unit: 'Count' as const, value: i }));
    expect(reasonOf({ ...base, metrics: many })).toMatch(/Metrics/);
    expect(reasonOf({ ...base, metrics: many.slice(0, MAX_METRICS) })).toBeUndefined();
    expect(reasonOf({ ...base, metrics: [{ name: 'm', unit: 'Millis' as never, value: 1 }] })).toMatch(/Unit/);
    expect(reasonOf({ ...base, metrics: [{ name: 'm', unit: 'Count', value: Number.NaN }] })).toMatch(/finite/);
    expect(reasonOf({ ...base, dimensionSets: [['fn', 'phase']] })).toMatch(/phase/);
    expect(reasonOf({ ...base, dimensions: { fn: '' } })).toMatch(/dimension/);
    expect(EMF_UNITS).toContain('Milliseconds');
  });

  it('refuses names used twice, reserved by the line, or under a credential key (the logger would blank them)', () => {
    const base: MetricSpec = { timestamp: T, dimensions: { fn: 'worker' }, metrics: [{ name: 'm', unit: 'Count', value: 1 }] };
    expect(reasonOf({ ...base, properties: { m: 2 } })).toMatch(/twice/);
    expect(reasonOf({ ...base, properties: { msg: 'x' } })).toMatch(/reserved/);
    expect(reasonOf({ ...base, metrics: [{ name: 'cacheToken', unit: 'Count', value: 1 }] })).toMatch(/reserved/);
  });
});

describe('metric lines through the logger', () => {
  it('one JSON line, valid EMF, with the bindings and scope, written even when the level is warn', async () => {
    const sink = new CapturingSink();
    const logger = new JsonLogger({ sink: sink.write, level: 'warn', clock: { now: () => T }, bindings: { fn: 'worker' } });
    await withLogScope({ awsRequestId: 'req-1', coldStart: true, runId: 'run-1' }, async () => {
      emitMetric(logger, phaseMetric({ phase: 'edit', state: 'done', elapsedMs: 5 }, ctx));
    });
    logger.info('dropped');
    expect(sink.lines).toHaveLength(1);
    const line = JSON.parse(sink.lines[0]) as Record<string, unknown>;
    expect(EmfDocument.safeParse(line).success).toBe(true);
    expect(line).toMatchObject({
      level: 'info',
      msg: 'metric',
      fn: 'worker',
      awsRequestId: 'req-1',
      coldStart: true,
      runId: 'run-1',
      phase: 'edit',
      phaseMs: 5,
    });
  });

  it('properties are redacted like any field', () => {
    const secret = 'metric-secret-value-99';
    const logger = new CapturingLogger({ secrets: [secret] });
    emitMetric(logger, {
      timestamp: T,
      dimensions: { fn: 'worker' },
      metrics: [{ name: 'm', unit: 'Count', value: 1 }],
      properties: { note: `has ${secret}`, ghs: 'ghs_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8' },
    });
    expect(logger.captured.text()).not.toContain(secret);
    expect(logger.entries()[0]).toMatchObject({ note: `has ${REDACTED}`, ghs: REDACTED, m: 1 });
  });

  it('a metric that cannot be built is logged as a warning, never thrown', () => {
    const logger = new CapturingLogger();
    expect(() =>
      emitMetric(logger, { timestamp: T, dimensions: { fn: 'w' }, metrics: [{ name: 'm', unit: 'Count', value: Number.POSITIVE_INFINITY }] }),
    ).not.toThrow();
    expect(logger.entries()).toEqual([expect.objectContaining({ level: 'warn', msg: 'metric not written' })]);
  });

  it('a logger without metric() gets it as an info entry that is still EMF', () => {
    const lines: Record<string, unknown>[] = [];
    const plain = { debug() {}, warn() {}, error() {}, info: (msg: string, meta?: Record<string, unknown>) => lines.push({ msg, ...meta }) };
    emitMetric(plain, phaseMetric({ phase: 'plan', state: 'done', elapsedMs: 1 }, ctx));
    expect(EmfDocument.safeParse(lines[0]).success).toBe(true);
  });
});
