import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readArtifactIfPresent } from '../../../src/core/artifacts/artifact-io.js';
import { LocalArtifactStore } from '../../../src/app/local/local-artifact-store.js';
import { CapturingLogger } from '../../../src/app/logger.js';
import { HEARTBEAT_INTERVAL_MS, HEARTBEAT_STALE_MS, startHeartbeat, type HeartbeatTimer } from '../../../src/app/worker/heartbeat.js';
import { WorkerHeartbeat } from '../../../src/core/runs/run-state.js';

const KEY = 'runs/acme/orders/r1/attempts/2/heartbeat.json';
const target = { owner: 'acme', repo: 'orders', runId: 'r1', attempt: 2, continuation: 1 } as never;

let root: string;
let store: LocalArtifactStore;
let now: number;
/** A timer the test fires by hand. */
let beats: { ms: number; beat: () => void; cancelled: boolean }[];
const timer: HeartbeatTimer = {
  every: (ms, beat) => {
    const entry = { ms, beat, cancelled: false };
    beats.push(entry);
    return () => void (entry.cancelled = true);
  },
};

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'heartbeat-'));
  store = new LocalArtifactStore(root);
  now = Date.parse('2026-02-03T04:05:06.000Z');
  beats = [];
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const deps = () => ({ store, clock: { now: () => now }, logger: new CapturingLogger(), heartbeatTimer: timer });
const read = () => readArtifactIfPresent(store, KEY, WorkerHeartbeat);

describe('the worker heartbeat', () => {
  it('beats at once, every minute while the invocation runs, and says idle when it stops on its own', async () => {
    const heartbeat = await startHeartbeat(deps(), KEY, target);
    expect(await read()).toEqual({ schemaVersion: 1, runId: 'r1', attempt: 2, continuation: 1, state: 'running', at: '2026-02-03T04:05:06.000Z' });
    expect(beats.map((b) => b.ms)).toEqual([HEARTBEAT_INTERVAL_MS]);

    now += HEARTBEAT_INTERVAL_MS;
    beats[0].beat();
    await heartbeat.stop();
    expect(beats[0].cancelled).toBe(true);
    expect(await read()).toMatchObject({ state: 'idle', at: '2026-02-03T04:06:06.000Z' });
  });

  it('a failed invocation stops beating without a last word: its running beat goes stale for the sweeper', async () => {
    const heartbeat = await startHeartbeat(deps(), KEY, target);
    now += 10 * 60_000;
    heartbeat.cancel();

    expect(beats[0].cancelled).toBe(true);
    expect(await read()).toMatchObject({ state: 'running', at: '2026-02-03T04:05:06.000Z' });
  });

  it('with the deployed sweeper schedule, the run of a killed worker ends within 20 minutes', () => {
    const serverless = readFileSync(new URL('../../../serverless.yml', import.meta.url), 'utf8');
    const sweeper = serverless.slice(serverless.indexOf('\n  sweeper:'));
    const minutes = Number(/rate\((\d+) minutes?\)/.exec(sweeper)?.[1]);

    expect(minutes).toBeGreaterThan(0);
    // Worst case: the last beat, then a stale heartbeat just missed by one sweep, caught by the next.
    expect(HEARTBEAT_STALE_MS + minutes * 60_000).toBeLessThanOrEqual(20 * 60_000);
    expect(HEARTBEAT_STALE_MS).toBeGreaterThanOrEqual(3 * HEARTBEAT_INTERVAL_MS);
  });
});
