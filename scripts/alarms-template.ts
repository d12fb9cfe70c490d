import { stringify } from 'yaml';
import { METRIC_NAMESPACE } from '../src/app/metrics/emf.js';
import { RUN_OUTCOME_EVENTS } from '../src/app/metrics/run-metrics.js';
import { PHASE_NAMES } from '../src/core/phases/phase-contracts.js';
import type { PublishReason } from '../src/core/publish/publish-error.js';
import { RUN_STATUSES } from '../src/core/runs/run-status.js';

/**
 * infra/alarms.yml, generated from the code's own lists (the phases, the publish refusal reasons,
 * the run statuses) so the alarms and the dashboard name what the functions write:
 *   node --import tsx scripts/gen-alarms.ts
 * test/unit/deploy/alarms-drift.test.ts fails when the file is out of date.
 */

/** Refusals that mean a bug or tampering, not a busy or misconfigured repository: any one alarms. */
export const TAMPER_REASONS: readonly PublishReason[] = [
  'CANDIDATE_INVALID',
  'CANDIDATE_MISMATCH',
  'BINDING_MISMATCH',
  'TREE_MISMATCH',
  'OBJECT_MISMATCH',
  'REVALIDATION_FAILED',
];

/** A stage this far into the worker's 15 minutes, at p95 over a day, turns into continuations. */
const NEAR_TIMEOUT_MS = 600_000;
/** An alarm's metric math may read at most this many metrics. */
const MAX_ALARM_METRICS = 10;

type Dimensions = Record<string, string>;
interface MetricRead {
  name: string;
  dimensions: Dimensions;
  stat: string;
  period: number;
}

const STAGES = ['ingestion', ...PHASE_NAMES];
const ENDED = RUN_STATUSES.filter((s) => !s.startsWith('READY'));

function alarm(name: string, description: string, reads: MetricRead[], expression: string, threshold: number): Record<string, unknown> {
  if (reads.length > MAX_ALARM_METRICS) throw new Error(`alarm ${name} reads ${reads.length} metrics; at most ${MAX_ALARM_METRICS}`);
  return {
    Type: 'AWS::CloudWatch::Alarm',
    Properties: {
      AlarmName: `\${self:custom.prefix}-${name}`,
      AlarmDescription: description,
      Metrics: [
        ...reads.map((r, i) => ({
          Id: `m${i}`,
          ReturnData: false,
          MetricStat: {
            Metric: { Namespace: METRIC_NAMESPACE, MetricName: r.name, Dimensions: Object.entries(r.dimensions).map(([Name, Value]) => ({ Name, Value })) },
            Period: r.period,
            Stat: r.stat,
          },
        })),
        { Id: 'e0', Expression: expression, Label: name, ReturnData: true },
      ],
      EvaluationPeriods: 1,
      Threshold: threshold,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: [{ Ref: 'AlarmTopic' }],
      OKActions: [{ Ref: 'AlarmTopic' }],
    },
  };
}

/** One line of a dashboard widget: namespace, metric, dimension pairs, then the rendering options. */
function line(name: string, dimensions: Dimensions, label: string, stat = 'Sum'): unknown[] {
  return [METRIC_NAMESPACE, name, ...Object.entries(dimensions).flat(), { stat, label }];
}

/**
 * A dashboard line that is a search: every series of `name` with exactly these dimensions (one
 * line per repository, installation or reason, whichever exist), filtered by `filter`, per day.
 */
function search(id: string, name: string, dimensions: string[], filter: Dimensions, stat: string): unknown[] {
  const filters = Object.entries(filter).map(([d, v]) => ` ${d}="${v}"`);
  return [{ id, expression: `SEARCH('{${[METRIC_NAMESPACE, ...dimensions].join(',')}} MetricName="${name}"${filters.join('')}', '${stat}', 86400)` }];
}

function widget(x: number, y: number, title: string, metrics: unknown[][], stat = 'Sum'): Record<string, unknown> {
  return {
    type: 'metric',
    x,
    y,
    width: 12,
    height: 6,
    properties: { title, region: '${AWS::Region}', view: 'timeSeries', stacked: false, period: 3600, stat, metrics },
  };
}

function dashboard(): Record<string, unknown> {
  const worker = { fn: 'worker' };
  const widgets = [
    widget(0, 0, 'Attempts started, ended by status, published', [
      line('attemptsStarted', worker, 'started'),
      ...ENDED.map((status) => line('attemptsEnded', { fn: 'worker', status }, status)),
      line('publishCount', { fn: 'publisher', outcome: 'published' }, 'published'),
    ]),
    widget(12, 0, 'Model spend (USD) and calls', [line('modelCostUsd', worker, 'spend (USD)'), line('modelCalls', worker, 'model calls')]),
    widget(
      0,
      6,
      'Stage duration p95 (ms)',
      [
        ...STAGES.map((phase) => line('phaseMs', { fn: 'worker', phase }, phase, 'p95')),
        line('publishMs', { fn: 'publisher', outcome: 'published' }, 'publish', 'p95'),
      ],
      'p95',
    ),
    widget(12, 6, 'Failed stages, stuck runs, refused publications', [
      ...STAGES.map((phase) => line('phaseFailed', { fn: 'worker', phase }, phase)),
      line('runsStuck', { fn: 'sweeper' }, 'stuck runs'),
      line('publishCount', { fn: 'publisher', outcome: 'refused' }, 'refused'),
    ]),
    widget(0, 12, 'Model tokens', [line('modelTokensIn', worker, 'in'), line('modelTokensOut', worker, 'out')]),
    ...outcomeWidgets(),
  ];
  return {
    Type: 'AWS::CloudWatch::Dashboard',
    Properties: { DashboardName: '${self:custom.prefix}-runs', DashboardBody: { 'Fn::Sub': JSON.stringify({ widgets }) } },
  };
}

/** Outcomes (docs/operations.md, "Outcomes"): runs started, published, failed by reason; pull requests merged or closed; time to merge; spend per merged PR. */
function outcomeWidgets(): Record<string, unknown>[] {
  const merged = { outcome: 'merged' };
  return [
    widget(12, 12, 'Run outcomes: started, published, failed, PR merged, PR closed unmerged', [
      ...RUN_OUTCOME_EVENTS.map((outcome) => line('runOutcomes', { outcome }, outcome)),
    ]),
    widget(0, 18, 'Run outcomes by repository (per day)', [search('r', 'runOutcomes', ['outcome', 'repository'], {}, 'Sum')]),
    widget(12, 18, 'Run outcomes by installation (per day)', [search('i', 'runOutcomes', ['installation', 'outcome'], {}, 'Sum')]),
    widget(0, 24, 'Failed runs by reason (per day)', [search('f', 'runOutcomes', ['outcome', 'reason'], { outcome: 'failed' }, 'Sum')]),
    widget(12, 24, 'Median time to merge (s) and spend per merged PR (USD)', [
      line('timeToMergeSeconds', merged, 'median time to merge (s)', 'p50'),
      line('runSpendUsd', merged, 'spend per merged PR (USD)', 'Average'),
    ]),
    widget(0, 30, 'Median time to merge by repository (s, per day)', [search('t', 'timeToMergeSeconds', ['outcome', 'repository'], merged, 'p50')], 'p50'),
  ];
}

export function alarmsTemplate(): string {
  const resources = {
    PublishTamperAlarm: alarm(
      'publish-refused',
      'A publication was refused for a reason that means a bug or tampering (publishCount by reason; the publisher logs the run id).',
      TAMPER_REASONS.map((reason) => ({ name: 'publishCount', dimensions: { fn: 'publisher', outcome: 'refused', reason }, stat: 'Sum', period: 3600 })),
      'SUM(METRICS())',
      0,
    ),
    StuckRunsAlarm: alarm(
      'stuck-runs',
      'The sweeper failed a run that stopped making progress (STUCK); its run id is in the sweeper line "stuck run marked failed".',
      [{ name: 'runsStuck', dimensions: { fn: 'sweeper' }, stat: 'Sum', period: 3600 }],
      'SUM(METRICS())',
      0,
    ),
    PhaseNearTimeoutAlarm: alarm(
      'phase-near-timeout',
      "A phase's p95 duration over a day is above 10 of the worker's 15 minutes: it turns into continuations, then FAILED.",
      PHASE_NAMES.map((phase) => ({ name: 'phaseMs', dimensions: { fn: 'worker', phase }, stat: 'p95', period: 86_400 })),
      'MAX(METRICS())',
      NEAR_TIMEOUT_MS,
    ),
    IngestionNearTimeoutAlarm: alarm(
      'ingestion-near-timeout',
      "Ingestion's p95 duration over a day is above 10 of the worker's 15 minutes.",
      [{ name: 'phaseMs', dimensions: { fn: 'worker', phase: 'ingestion' }, stat: 'p95', period: 86_400 }],
      'MAX(METRICS())',
      NEAR_TIMEOUT_MS,
    ),
    RunsDashboard: dashboard(),
  };
  const header = [
    '# Generated by scripts/gen-alarms.ts from the code (phases, refusal reasons, run statuses); do not edit.',
    '# The alarms docs/deployment.md describes ("Logs, metrics and alarms"), sent to the alarm topic of',
    "# infra/dead-letters.yml, and a dashboard of the runs from the functions' EMF metrics.",
  ];
  return `${header.join('\n')}\n${stringify({ Resources: resources }, { lineWidth: 0 })}`;
}
