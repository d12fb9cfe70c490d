import { describe, expect, it } from 'vitest';
import { ClonePlanSchema } from '../../../src/core/ingestion/artifacts.js';
import { BLOBLESS_OVER_MB, HISTORY_DEPTH, historyNeeds, planClone } from '../../../src/core/ingestion/clone-plan.js';
import { DEFAULT_INGESTION_POLICY } from '../../../src/core/ingestion/ingestion-policy.js';

const info = { owner: 'o', repo: 'r', displayUrl: 'https://example.test/o/r' };

describe('clone plan', () => {
  it('defaults to depth 1, object-backed, when the task does not ask for history', () => {
    const plan = planClone({
      info: { ...info, sizeKb: 500 },
      policy: DEFAULT_INGESTION_POLICY,
      taskText: 'Rename the total function in invoice.py to grand_total',
    });
    expect(plan).toMatchObject({ strategy: 'shallow-object-backed', depth: 1, checkout: 'none' });
    expect(plan.filter).toBeUndefined();
    expect(plan.deepenSince).toBeUndefined();
    expect(plan.reasons[0]).toBe('depth 1: the task does not ask for history');
  });

  it.each([
    ['Fix the regression in the parser', 'regression'],
    ['Totals are broken since the last release', 'since'],
    ['Please revert the change to the retry loop', 'revert'],
    ['git blame says this line is old; check it', 'blame'],
    ['When did the rounding change?', 'when-did'],
    ['Commit 3f2a9c1 broke the build', 'commit-sha'],
  ])('deepens for %j (%s)', (text, trigger) => {
    const plan = planClone({ info, policy: DEFAULT_INGESTION_POLICY, taskText: text });
    expect(plan).toMatchObject({ strategy: 'deepened', depth: HISTORY_DEPTH, historyTriggers: [trigger] });
    expect(plan.reasons[0]).toMatch(new RegExp(`^depth ${HISTORY_DEPTH}: `));
  });

  it('uses deepen-since with the earliest date the task names', () => {
    const plan = planClone({ info, policy: DEFAULT_INGESTION_POLICY, taskText: 'Slow since 2024-03-05, worse after 2024-01-20' });
    expect(plan).toMatchObject({ strategy: 'deepened', deepenSince: '2024-01-20T00:00:00Z' });
    expect(plan.historyTriggers).toEqual(['date']);
    expect(plan.reasons[0]).toMatch(/^history since 2024-01-20T00:00:00Z: the task names a date/);
  });

  it('does not take plain words or numbers for a commit or a date', () => {
    expect(historyNeeds('Add a deadbeef constant; issue 1234567; accessed the cafe').triggers).toEqual([]);
    expect(historyNeeds('version 2024-13-40').triggers).toEqual([]);
  });

  it('fetches without blobs over the size threshold, and says so', () => {
    const over = (BLOBLESS_OVER_MB + 1) * 1024;
    const plan = planClone({ info: { ...info, sizeKb: over }, policy: DEFAULT_INGESTION_POLICY });
    expect(plan).toMatchObject({ strategy: 'blobless', depth: 1, filter: 'blob:none' });
    expect(plan.reasons.some((r) => r.startsWith(`blob:none: over the ${BLOBLESS_OVER_MB} MiB blobless threshold`))).toBe(true);
    const under = planClone({ info: { ...info, sizeKb: BLOBLESS_OVER_MB * 1024 }, policy: DEFAULT_INGESTION_POLICY });
    expect(under.strategy).toBe('shallow-object-backed');
    const lowered = planClone({ info: { ...info, sizeKb: 2048 }, policy: { ...DEFAULT_INGESTION_POLICY, bloblessOverMb: 1 } });
    expect(lowered.filter).toBe('blob:none');
  });

  it('combines history and blob:none for a large repository whose task needs history', () => {
    const plan = planClone({ info: { ...info, sizeKb: (BLOBLESS_OVER_MB + 1) * 1024 }, policy: DEFAULT_INGESTION_POLICY, taskText: 'revert 3f2a9c1' });
    expect(plan).toMatchObject({ strategy: 'deepened', depth: HISTORY_DEPTH, filter: 'blob:none', historyTriggers: ['revert', 'commit-sha'] });
  });

  it('keeps clone plans written before history existed readable', () => {
    const old = { strategy: 'shallow-object-backed', depth: 1, checkout: 'none', maxBytes: 10, readScope: { mode: 'all', patterns: [] }, reasons: ['depth 1'] };
    expect(ClonePlanSchema.parse(old)).toEqual(old);
    expect(ClonePlanSchema.parse(planClone({ info, policy: DEFAULT_INGESTION_POLICY, taskText: 'revert it' }))).toBeTruthy();
  });

  it('stays fast on long hostile text', () => {
    const text = `${'a1'.repeat(50_000)} ${'2024-0'.repeat(10_000)}`;
    const start = performance.now();
    historyNeeds(text);
    expect(performance.now() - start).toBeLessThan(500);
  });
});
