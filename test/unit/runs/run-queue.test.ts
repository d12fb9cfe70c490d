import { describe, expect, it } from 'vitest';
import { writeArtifact } from '../../../src/core/artifacts/artifact-io.js';
import { lockKey, runKeys } from '../../../src/core/artifacts/keys.js';
import { WORKER_SLOTS_PREFIX } from '../../../src/core/artifacts/queue-keys.js';
import type { ArtifactStore } from '../../../src/core/ports.js';
import { admitWaiting, type AdmitDeps } from '../../../src/core/runs/admit-waiting.js';
import { acquireIssueLock } from '../../../src/core/runs/issue-lock.js';
import { RunRecord, type RunRequest } from '../../../src/core/runs/run-request.js';
import { enqueueRun, ordinal, removeWaiting, waitingMessage, waitingRuns } from '../../../src/core/runs/run-queue.js';
import { MapStore } from '../../helpers/map-store.js';

const NOW = Date.parse('2026-02-03T04:05:06.000Z');
const HOUR = 3_600_000;
const LIMITS = { runsPerHour: 3, maxOpenPullRequests: 5 };

function request(n: number, repo = 'orders'): RunRequest {
  return {
    schemaVersion: 1,
    runId: `run${String(n).padStart(4, '0')}`,
    owner: 'acme',
    repo,
    source: { kind: 'github', repositoryId: 1, installationId: 2, cloneUrl: 'https://example.test/acme/orders.git', apiUrl: 'https://api.example.test' },
    trigger: { kind: 'label', key: `label-${n}` },
    issue: { number: n, title: `issue ${n}`, body: '', updatedAt: new Date(NOW).toISOString(), progressCommentId: 100 + n },
    agentBranch: `agent/issue-${n}`,
    createdAt: new Date(NOW).toISOString(),
  };
}

async function queueRuns(store: ArtifactStore, count: number, repo = 'orders'): Promise<void> {
  for (let n = 1; n <= count; n++) {
    await acquireIssueLock(store, { owner: 'acme', repo, issue: n }, { runId: request(n, repo).runId, attempt: 1 }, NOW, 2 * HOUR);
    await enqueueRun(store, request(n, repo), LIMITS, NOW);
  }
}

const deps = (store: ArtifactStore, over: Partial<AdmitDeps> = {}): AdmitDeps => ({ store, now: NOW, workerSlots: 5, lockTtlMs: 2 * HOUR, ...over });
const started = async (store: MapStore) => [...store.objects.keys()].filter((k) => k.endsWith('/request.json')).sort();

describe('the run queue', () => {
  it('keeps a line in the order runs joined it, whatever their ids or clocks, and a retried enqueue keeps its place', async () => {
    const store = new MapStore();
    for (const n of [9, 2, 7]) await enqueueRun(store, request(n), LIMITS, NOW);
    await enqueueRun(store, request(2), LIMITS, NOW + 5);
    expect((await waitingRuns(store, 'acme', 'orders')).map((w) => [w.place, w.entry.issue])).toEqual([
      [1, 9],
      [2, 2],
      [3, 7],
    ]);
  });

  it('admits up to runsPerHour in order, and the rest when the hour moves on', async () => {
    const store = new MapStore();
    await queueRuns(store, 5);
    const first = await admitWaiting(deps(store));
    expect(first.admitted).toEqual(['run0001', 'run0002', 'run0003']);
    expect(first.waiting.map((w) => [w.runId, w.place, w.reason])).toEqual([
      ['run0004', 1, 'RUNS_PER_HOUR'],
      ['run0005', 2, 'RUNS_PER_HOUR'],
    ]);
    expect((await admitWaiting(deps(store))).admitted).toEqual([]);
    expect((await admitWaiting(deps(store, { now: NOW + HOUR }))).admitted).toEqual(['run0004', 'run0005']);
    expect(await started(store)).toHaveLength(5);
  });

  it('never gives two passes running at once more runs than the hour has slots', async () => {
    const store = new MapStore();
    await queueRuns(store, 8);
    const passes = await Promise.all([admitWaiting(deps(store)), admitWaiting(deps(store)), admitWaiting(deps(store))]);
    const admitted = passes.flatMap((p) => p.admitted);
    expect(new Set(admitted).size).toBe(admitted.length);
    expect(await started(store)).toHaveLength(3);
    expect([...store.objects.keys()].filter((k) => k.startsWith('limits/'))).toHaveLength(3);
  });

  it('holds a worker slot until the run ends, and waits for one in order', async () => {
    const store = new MapStore();
    await queueRuns(store, 3);
    const first = await admitWaiting(deps(store, { workerSlots: 1 }));
    expect(first.admitted).toEqual(['run0001']);
    expect(first.waiting.map((w) => w.reason)).toEqual(['WORKER_CONCURRENCY', 'WORKER_CONCURRENCY']);
    const record = (status: RunRecord['status']): RunRecord => ({
      schemaVersion: 1,
      runId: 'run0001',
      status,
      attempt: 1,
      attempts: [],
      agentBranch: 'agent/issue-1',
      updatedAt: new Date(NOW).toISOString(),
    });
    await writeArtifact(store, runKeys('acme', 'orders', 'run0001').run, RunRecord, record('RUNNING'));
    expect((await admitWaiting(deps(store, { workerSlots: 1 }))).admitted).toEqual([]);
    await writeArtifact(store, runKeys('acme', 'orders', 'run0001').run, RunRecord, record('COMPLETED'));
    const next = await admitWaiting(deps(store, { workerSlots: 1 }));
    expect(next.freed).toEqual(['run0001']);
    expect(next.admitted).toEqual(['run0002']);
    expect(await store.list(WORKER_SLOTS_PREFIX)).toHaveLength(1);
  });

  it('waits while the repository has maxOpenPullRequests open, then starts', async () => {
    const store = new MapStore();
    await queueRuns(store, 2);
    let open = 5;
    const pass = () => admitWaiting(deps(store, { openPullRequests: async () => open }));
    expect((await pass()).waiting.map((w) => w.reason)).toEqual(['OPEN_PULL_REQUESTS', 'OPEN_PULL_REQUESTS']);
    open = 4;
    expect((await pass()).admitted).toEqual(['run0001', 'run0002']);
  });

  it('shows a place only when it changed, and a run taken out of line never starts', async () => {
    const store = new MapStore();
    await queueRuns(store, 3);
    const shown: string[] = [];
    const showPlace: AdmitDeps['showPlace'] = async (run, reason) => {
      shown.push(`${run.entry.issue}:${waitingMessage(run.place, reason, run.entry.limits)}`);
      return true;
    };
    const pass = () => admitWaiting(deps(store, { workerSlots: 0 as number, showPlace }));
    await pass();
    await pass();
    expect(shown).toEqual([
      '1:waiting: 1st in line, starts when a run finishes',
      '2:waiting: 2nd in line, starts when a run finishes',
      '3:waiting: 3rd in line, starts when a run finishes',
    ]);
    expect(await removeWaiting(store, 'acme', 'orders', 'run0002')).toMatchObject({ issue: 2 });
    await pass();
    expect(shown.slice(3)).toEqual(['3:waiting: 2nd in line, starts when a run finishes']);
    expect((await admitWaiting(deps(store))).admitted).toEqual(['run0001', 'run0003']);
  });

  it('keeps a waiting run’s issue lock alive', async () => {
    const store = new MapStore();
    await queueRuns(store, 1);
    await admitWaiting(deps(store, { workerSlots: 0 as number, now: NOW + 90 * 60_000 }));
    const lock = JSON.parse(new TextDecoder().decode(store.objects.get(lockKey('acme', 'orders', 1)))) as { expiresAt: string };
    expect(Date.parse(lock.expiresAt)).toBe(NOW + 90 * 60_000 + 2 * HOUR);
  });

  it.each([
    [1, '1st'],
    [2, '2nd'],
    [3, '3rd'],
    [4, '4th'],
    [11, '11th'],
    [12, '12th'],
    [13, '13th'],
    [21, '21st'],
    [102, '102nd'],
  ])('ordinal %i is %s', (n, text) => {
    expect(ordinal(n)).toBe(text);
  });

  it('deliveries of one trigger queued at once put its run in line once, at the number claimed first', async () => {
    const store = new MapStore();
    await enqueueRun(store, request(1), LIMITS, NOW);
    const keys = await Promise.all(Array.from({ length: 5 }, () => enqueueRun(store, request(2), LIMITS, NOW)));
    expect(new Set(keys).size).toBe(1);
    const line = await waitingRuns(store, 'acme', 'orders');
    expect(line.map((w) => w.entry.runId)).toEqual([request(1).runId, request(2).runId]);
  });
});
