import { describe, expect, it } from 'vitest';
import { judge } from '../../../bench/goals.js';

const rec = (name: string, size: number | string, value: number, extra: { ratio?: number; note?: string } = {}) => ({ name, size, value, ...extra });

describe('benchmark goals', () => {
  it.each([
    ['ingestion at 10k within 1.5x', rec('ingestion to READY (fetch + scan)', 10_000, 3000, { ratio: 1.4 }), true],
    ['ingestion at 10k over 1.5x', rec('ingestion to READY (fetch + scan)', 10_000, 3000, { ratio: 1.6 }), false],
    ['map at 100k under 10 s', rec('repomap.build.noSymbols', 100_000, 9_999), true],
    ['map at 100k over 10 s', rec('repomap.build.noSymbols', 100_000, 10_000), false],
    ['map heap at 100k over 1.5 GB', rec('repomap.build.peakHeap', 100_000, 1600), false],
    ['cache hit over 200 ms', rec('repomap.cache.hit', 10_000, 250), false],
    ['search at 2x ripgrep', rec('targets.keywordSearch', 10_000, 20, { ratio: 2 }), true],
    ['search without ripgrep has no verdict', rec('targets.keywordSearch', 10_000, 20, { note: 'ripgrep unavailable' }), null],
    ['hostile refused', rec('hostile.manyFiles.timeToRefusal', 200_000, 5000, { note: 'refused: FILE_COUNT_EXCEEDED' }), true],
    ['hostile not refused', rec('hostile.deepChain.timeToRefusal', 10_000, 5000, { note: 'UNEXPECTED: READY' }), false],
    ['e2e failed run', rec('e2e.run.generated.wall', 10_000, NaN, { note: 'FAILED: timed out' }), false],
    ['e2e completed', rec('e2e.run.demo.wall', 19, 3000, { note: 'demo; exit 0, COMPLETED; ...' }), true],
    ['webhook p99 over 10 s', rec('webhook.ack.p99', 1000, 12_000), false],
  ])('%s', (_label, record, met) => {
    const verdict = judge(record);
    expect(verdict.goal).not.toBeNull();
    expect(verdict.met).toBe(met);
  });

  it('rows the issues set no goal for get none, including the map at other sizes', () => {
    expect(judge(rec('repomap.build.noSymbols', 10_000, 50_000))).toEqual({ goal: null, met: null });
    expect(judge(rec('ingestion to READY (fetch + scan)', 1000, 9000, { ratio: 9 }))).toEqual({ goal: null, met: null });
    expect(judge(rec('bundle.webhook', 1, 4000))).toEqual({ goal: null, met: null });
  });
});
