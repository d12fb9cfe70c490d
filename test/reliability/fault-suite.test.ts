import { describe, expect, it } from 'vitest';
import { formatSoakTable, runFaultSuite, SCENARIOS } from './fault-suite.js';

/**
 * A small size of the fault suite (fault-suite.ts): one run of two scenarios with a fixed seed,
 * each through the whole App with Lambda's retries and the sweeper. Every run ends clearly, with
 * no duplicate, no wrong content and nothing lost. The soak (`npm run bench -- --only faults`)
 * runs every scenario many times.
 */
const SMALL = ['s3-outage', 'close-mid-run'];

describe('the fault suite, small size', () => {
  it('every scenario ends clearly: 0 stuck, duplicates, wrong content and lost data', async () => {
    const scenarios = SCENARIOS.filter((s) => SMALL.includes(s.id));
    expect(scenarios.map((s) => s.id)).toEqual(SMALL);
    const table = await runFaultSuite({ seed: 7, runs: scenarios.length, scenarios });
    const bad = table.verdicts.filter((v) => v.end === 'stuck' || v.duplicates > 0 || v.wrongContent || v.lostData > 0);
    expect(bad, formatSoakTable(table)).toEqual([]);
    expect(table.verdicts.map((v) => v.end)).toEqual(['published', 'ended']);
  }, 240_000);
});
