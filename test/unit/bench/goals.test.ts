import { describe, expect, it } from 'vitest';
import { GOALS, judge } from '../../../bench/goals.js';

const rec = (name: string, size: number | string, value: number, extra: { ratio?: number; note?: string } = {}) => ({ name, size, value, ...extra });

describe('benchmark goals', () => {
  it.each([
    ['ingestion at 10k within 1.5x of a no-checkout clone', rec('ingestion vs no-checkout clone', 10_000, 600, { ratio: 1.5 }), true],
    ['ingestion at 50k over 1.5x of a no-checkout clone', rec('ingestion vs no-checkout clone', 50_000, 3000, { ratio: 1.6 }), false],
    ['ingestion memory at 10k within 4x the pack', rec('ingestion peak RSS above baseline vs pack size', 10_000, 9, { ratio: 3.9 }), true],
    ['ingestion memory at 50k over 4x the pack', rec('ingestion peak RSS above baseline vs pack size', 50_000, 60, { ratio: 5.7 }), false],
    ['tsx tags under 3 MB/s', rec('syntax.extractTags.tsx', '40 files', 2.9), false],
    ['go tags at 3 MB/s', rec('syntax.extractTags.go', '40 files', 3), true],
    ['ack p99 of one kind over 50 ms', rec('webhook.ack.label-start.p99', 400, 51), false],
    ['ack p99 of all deliveries within 50 ms', rec('webhook.ack.p99', 1000, 50), true],
    ['e2e within 3x ingestion + map', rec('e2e.run.generated.wall', 10_000, 5000, { ratio: 2.9, note: 'exit 0, COMPLETED' }), true],
    ['e2e over 3x ingestion + map', rec('e2e.run.generated.wall', 10_000, 9000, { ratio: 3.1, note: 'exit 0, COMPLETED' }), false],
    ['real map slower than ingestion', rec('real.spring-framework.map', 11_404, 2000, { ratio: 1.2 }), false],
    ['real CLI ingest within 1.5x native', rec('real.pnpm.cliIngest', 5903, 1000, { ratio: 1.4 }), true],
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
    ['campaign with every repository as expected', rec('campaign.cli.wall', 100, 18_000, { ratio: 0.8, note: 'exit 0; {}; all 100 as expected' }), true],
    [
      'campaign with a repository not as expected',
      rec('campaign.cli.wall', 100, 18_000, { ratio: 0.8, note: 'exit 1; {}; 2 not as expected (a: failed)' }),
      false,
    ],
    ['campaign that failed to run', rec('campaign.cli.wall', 100, NaN, { note: 'FAILED: timed out' }), false],
    ['campaign within 80 requests a minute', rec('campaign.github.peakPerMinute.campaignClock', '10 repositories', 80), true],
    ['campaign over 80 requests a minute', rec('campaign.github.peakPerMinute.campaignClock', '10 repositories', 81), false],
    ['campaign over 500 requests an hour', rec('campaign.github.peakPerHour.campaignClock', '10 repositories', 501), false],
  ])('%s', (_label, record, met) => {
    const verdict = judge(record);
    expect(verdict.goal).not.toBeNull();
    expect(verdict.met).toBe(met);
  });

  it('rows the issues set no goal for get none, including the map at other sizes', () => {
    expect(judge(rec('repomap.build.noSymbols', 10_000, 50_000))).toEqual({ goal: null, met: null });
    expect(judge(rec('ingestion vs no-checkout clone', 1000, 9000, { ratio: 9 }))).toEqual({ goal: null, met: null });
    expect(judge(rec('syntax.extractTags.tsx.firstPass', '40 files', 1))).toEqual({ goal: null, met: null });
    expect(judge(rec('webhook.intake.label-start.p50', 100, 6000))).toEqual({ goal: null, met: null });
    expect(judge(rec('bundle.webhook', 1, 4000))).toEqual({ goal: null, met: null });
  });

  it('every goal has a distinct id and names what it expects', () => {
    expect(new Set(GOALS.map((g) => g.id)).size).toBe(GOALS.length);
    for (const g of GOALS) expect(g.expected.length).toBeGreaterThan(0);
  });
});
