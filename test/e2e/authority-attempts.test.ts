import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ArtifactStore } from '../../src/core/ports.js';
import { MAX_DISPATCHES_PER_GRANT } from '../../src/app/dispatch/dispatch-record.js';
import { MAX_GRANTED_CONTINUATIONS } from '../../src/core/runs/continuations.js';
import { MAINTAINER, startAppHarness, type AppHarness } from '../helpers/app-harness.js';

/**
 * Continuations are granted, not taken (docs/trust-chain.md, "Continuations"): mid-run the
 * worker writes twenty `continue-<k>.json` keys with its own store, half of them marked as
 * operator replays, and one for an attempt nobody requested. The dispatcher starts at most
 * MAX_GRANTED_CONTINUATIONS extra workers for the attempt and none for the unrequested one
 * (cancelled and published runs: test/unit/runs/continuations.test.ts).
 */
describe('continuations the worker writes for itself', () => {
  let h: AppHarness;
  let prefix = '';
  let forged = false;

  beforeAll(async () => {
    h = await startAppHarness();
    expect((await h.deliver('issues', h.payloads.labeled(2))).statusCode).toBe(202);
    prefix = h
      .pending()
      .find((k) => k.endsWith('/request.json'))!
      .replace(/request\.json$/, '');
    const runId = prefix.split('/')[3];
    const stop = h.interceptWorkerWrites(async (key, store) => {
      if (forged || !key.includes('/checkpoints/')) return;
      forged = true;
      const continuation = (attempt: number, k: number) =>
        JSON.stringify({ schemaVersion: 1, runId, attempt, continuation: k, reason: k % 2 === 0 ? 'replay' : 'time', at: '2026-02-03T04:05:06.000Z' });
      for (let k = 1; k <= 20; k++) await store.put(`${prefix}attempts/1/continue-${k}.json`, continuation(1, k));
      // The same key written again and again: each write is an S3 notification.
      for (let again = 0; again < 5; again++) await store.put(`${prefix}attempts/1/continue-1.json`, continuation(1, 1));
      await store.put(`${prefix}attempts/5/continue-1.json`, continuation(5, 1));
    });
    await h.drain();
    stop();
  }, 180_000);

  afterAll(async () => h?.stop());

  it('starts at most MAX_GRANTED_CONTINUATIONS workers for the attempt and none for an attempt nobody requested', () => {
    expect(forged).toBe(true);
    const continued = h.dispatched.filter((d) => d.key.startsWith(`${prefix}attempts/`) && /continue-\d+\.json$/.test(d.key));
    expect(continued.length).toBeGreaterThanOrEqual(26);
    const workers = h.issued.filter((t) => t.fn === 'worker');
    // One token per worker invocation: the first, continuation 1 up to its dispatch bound, the other granted ones once.
    expect(workers.length).toBeLessThanOrEqual(1 + MAX_DISPATCHES_PER_GRANT + (MAX_GRANTED_CONTINUATIONS - 1));
    const refusals = h.logs.entries().filter((l) => l.msg === 'dispatcher refused a continuation');
    expect(refusals.map((l) => l.reason)).toContain('ATTEMPT_NOT_REQUESTED');
    expect(refusals.map((l) => l.reason)).toContain('LIMIT_REACHED');
    expect(refusals.map((l) => l.reason)).toContain('DISPATCHED_ENOUGH');
  });
});

/**
 * The publisher holds a candidate's `attempt` to what the run's trusted writers recorded
 * (docs/trust-chain.md, "Attempts the publisher accepts"): the worker, with its own store,
 * re-puts its cancelled attempt-1 candidate as attempt 2, which nobody requested; nothing is
 * published and the run says why.
 */
describe('a candidate for an attempt nobody requested', () => {
  let h: AppHarness;
  let prefix = '';
  let workerStore: ArtifactStore | undefined;

  beforeAll(async () => {
    h = await startAppHarness();
    expect((await h.deliver('issues', h.payloads.labeled(1))).statusCode).toBe(202);
    prefix = h
      .pending()
      .find((k) => k.endsWith('/request.json'))!
      .replace(/request\.json$/, '');
    const stop = h.interceptWorkerWrites((_key, store) => void (workerStore ??= store));
    await h.drain({ only: ['worker'] });
    stop();
    // The maintainer cancels before the publisher ran.
    await h.deliver('issue_comment', h.payloads.comment(1, '/agent cancel', { sender: MAINTAINER }));
    expect(await h.json(`${prefix}control/cancel.json`)).toMatchObject({ attempt: 1 });
    // The worker's credentials re-put the candidate under an attempt it invents.
    const candidate = await h.json(`${prefix}candidate/pr-candidate.json`);
    expect(candidate).toMatchObject({ attempt: 1 });
    await workerStore!.put(`${prefix}candidate/pr-candidate.json`, JSON.stringify({ ...candidate, attempt: 2 }));
    await h.drain();
  }, 120_000);

  afterAll(async () => h?.stop());

  it('publishes nothing and records ATTEMPT_NOT_REQUESTED', async () => {
    expect(await h.store.get(`${prefix}attempts/2/request.json`)).toBeUndefined();
    expect([...h.standin.repo(h.fullName).pulls.values()]).toEqual([]);
    expect(await h.json(`${prefix}publish.json`)).toBeUndefined();
    const refusals = h.logs.entries().filter((l) => l.fn === 'publisher' && JSON.stringify(l).includes('ATTEMPT_NOT_REQUESTED'));
    expect(refusals.length).toBeGreaterThan(0);
  });
});
