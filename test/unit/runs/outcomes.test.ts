import { describe, expect, it } from 'vitest';
import { formatDuration, renderOutcomeReport } from '../../../src/app/cli/report-table.js';
import { failureReason, median, outcomeReport, runOutcome, timeToMergeMs, type RunFacts } from '../../../src/core/runs/outcomes.js';

const run = (over: Partial<RunFacts>): RunFacts => ({
  owner: 'acme',
  repo: 'api',
  installation: '7',
  runId: 'r',
  createdAt: '2026-01-01T00:00:00.000Z',
  status: 'COMPLETED',
  spendMicroUsd: null,
  ...over,
});

describe('outcomes', () => {
  it.each([
    [undefined, 'active'],
    ['QUEUED', 'active'],
    ['RUNNING', 'active'],
    ['PUBLISHED', 'open'],
    ['MERGED', 'merged'],
    ['CLOSED', 'closed'],
    ['FAILED', 'failed'],
    ['BLOCKED', 'failed'],
    ['BUDGET_EXCEEDED', 'failed'],
    ['CANCELLED', 'cancelled'],
    ['NEEDS_APPROVAL', 'waiting'],
    ['READY', 'done'],
    ['READY_WITH_WARNINGS', 'done'],
    ['COMPLETED', 'done'],
  ] as const)('a run %s counts as %s', (status, outcome) => {
    expect(runOutcome(status)).toBe(outcome);
  });

  it('a failure counts under its reason code, else its status (free text would make the set unbounded)', () => {
    expect(failureReason('FAILED', 'STUCK')).toBe('STUCK');
    expect(failureReason('BLOCKED', 'the policy said no')).toBe('BLOCKED');
    expect(failureReason('BUDGET_EXCEEDED', undefined)).toBe('BUDGET_EXCEEDED');
  });

  it('the median: the middle value, the mean of the middle two, none of nothing', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNull();
  });

  it('time to merge only for a merged run with a readable close after its request', () => {
    expect(timeToMergeMs({ status: 'MERGED', createdAt: '2026-01-01T00:00:00Z', closedAt: '2026-01-01T01:00:00Z' })).toBe(3_600_000);
    expect(timeToMergeMs({ status: 'CLOSED', createdAt: '2026-01-01T00:00:00Z', closedAt: '2026-01-01T01:00:00Z' })).toBeUndefined();
    expect(timeToMergeMs({ status: 'MERGED', createdAt: '2026-01-01T02:00:00Z', closedAt: '2026-01-01T01:00:00Z' })).toBeUndefined();
  });

  it('nothing priced and nothing merged: no spend and no median, shown as -', () => {
    const report = outcomeReport([run({ status: 'PUBLISHED' }), run({ status: 'FAILED', reason: 'STUCK' })]);
    expect(report.total).toMatchObject({
      started: 2,
      published: 1,
      failed: 1,
      spendUsd: null,
      spendPerMergedPullRequestUsd: null,
      medianTimeToMergeSeconds: null,
    });
    expect(renderOutcomeReport(report, 'here')).toContain('| total |  | 2 | 1 | 1 | 0 | 0 | 1 | - | - | - |');
    expect(renderOutcomeReport(outcomeReport([]), 'here')).toBe('0 runs in here');
  });

  it('a repository whose runs came through two installations names both', () => {
    const report = outcomeReport([run({ installation: '9' }), run({ installation: '7' })]);
    expect(report.repositories.map((r) => r.installation)).toEqual(['7,9']);
  });

  it.each([
    [45, '45s'],
    [725, '12m 5s'],
    [9000, '2h 30m'],
    [273_600, '3d 4h'],
  ])('%d s reads %s', (seconds, text) => {
    expect(formatDuration(seconds)).toBe(text);
  });
});
