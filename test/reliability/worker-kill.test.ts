import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PHASE_NAMES } from '../../src/core/phases/phase-contracts.js';
import type { ArtifactStore } from '../../src/core/ports.js';
import { directWorkerHandler, startAppHarness, type AppHarness } from '../helpers/app-harness.js';

/**
 * The worker killed at every phase boundary (issue 8): the invocation dies while writing the
 * checkpoint of phase k; the retry (the same event, the same request id, as Lambda gives it)
 * resumes from the checkpoints and dies at the checkpoint of phase k+1, and so on through the
 * last phase; the final retry completes, and its candidate is byte-identical to an
 * uninterrupted run of the same request.
 *
 * The worker here is built like the harness's (same store, stand-in, git proxy, read-only
 * token broker), but invoked directly so a retry can carry the same `awsRequestId` as the
 * invocation it retries, as Lambda's async retries do.
 */
let h: AppHarness;
let requestKey: string;
let runPrefix: string;
let reference: Map<string, string>;

class Killed extends Error {}

const workerWith = (store: ArtifactStore) => directWorkerHandler(h, store);

/**
 * A store that throws (the process "dies") instead of writing the first key matching `at`.
 * Writes already under way when it dies (siblings in a `Promise.all`) land or fail as S3 writes
 * do, whole; `settled()` waits for them, so the test never lists the bucket mid-write.
 */
function killingStore(inner: ArtifactStore, at: RegExp): ArtifactStore & { killed: () => boolean; settled: () => Promise<void> } {
  let dead = false;
  const inFlight = new Set<Promise<unknown>>();
  const check = (key: string) => {
    if (!dead && at.test(key)) dead = true;
    if (dead) throw new Killed(`killed before writing ${key}`);
  };
  const track = <T>(write: () => Promise<T>): Promise<T> => {
    const p = write();
    inFlight.add(p);
    void p.then(
      () => inFlight.delete(p),
      () => inFlight.delete(p),
    );
    return p;
  };
  return {
    killed: () => dead,
    settled: async () => void (await Promise.allSettled([...inFlight])),
    get: (key) => inner.get(key),
    list: (prefix) => inner.list(prefix),
    delete: async (key) => (check(key), track(() => inner.delete(key))),
    put: async (key, body, options) => (check(key), track(() => inner.put(key, body, options))),
    putIfAbsent: async (key, body, options) => (check(key), track(() => inner.putIfAbsent(key, body, options))),
    putIfMatch: async (key, body, etag, options) => (check(key), track(() => inner.putIfMatch(key, body, etag, options))),
  };
}

/** What the dispatcher hands the worker (the capability is not checked by this test's session). */
function s3Event(key: string): { key: string; capability: string } {
  return { key, capability: 'c'.repeat(43) };
}

async function candidate(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const o of await h.objects()) if (o.key.startsWith(`${runPrefix}candidate/`)) out.set(o.key, Buffer.from(o.body).toString('base64'));
  return out;
}

/** Everything the worker wrote for the run, gone: the request snapshot stays. */
async function resetRun(): Promise<void> {
  for (const key of await h.store.list(runPrefix)) if (key !== requestKey) await h.store.delete(key);
}

beforeAll(async () => {
  h = await startAppHarness();
  expect((await h.deliver('issues', h.payloads.labeled(1))).statusCode).toBe(202);
  [requestKey] = h.pending();
  runPrefix = requestKey.replace(/request\.json$/, '');
  await workerWith(h.store)(s3Event(requestKey), { awsRequestId: 'reference', getRemainingTimeInMillis: () => 900_000 });
  reference = await candidate();
}, 120_000);

afterAll(async () => h?.stop());

describe('worker killed at a phase boundary, retried by Lambda', () => {
  it('the uninterrupted run wrote a candidate', () => {
    expect([...reference.keys()].some((k) => k.endsWith('/pr-candidate.json'))).toBe(true);
    expect(reference.size).toBeGreaterThan(3);
  });

  it('killed at every boundary in turn (the checkpoint of each phase): each retry resumes from the one before, and the candidate is byte-identical', async () => {
    await resetRun();
    const context = { awsRequestId: 'kill-each-boundary', getRemainingTimeInMillis: () => 900_000 };
    for (const phase of PHASE_NAMES) {
      const dying = killingStore(h.store, new RegExp(`/checkpoints/\\d+-${phase}\\.json$`));
      await expect(workerWith(dying)(s3Event(requestKey), context), phase).rejects.toBeInstanceOf(Killed);
      expect(dying.killed(), phase).toBe(true);
      await dying.settled();
      // Before the last boundary nothing of the candidate exists yet (pr_preparation writes it, then its checkpoint).
      if (phase !== 'pr_preparation') expect((await candidate()).size, phase).toBe(0);
      // The checkpoints of the phases before this one were written by earlier tries and not redone.
      const written = (await h.store.list(`${runPrefix}attempts/1/checkpoints/`)).map((k) => k.replace(/^.*\/\d+-/, '').replace(/\.json$/, ''));
      expect(written, phase).toEqual(PHASE_NAMES.slice(0, PHASE_NAMES.indexOf(phase)));
      h.clock.advance(60_000); // Lambda waits a minute before retrying
    }
    await workerWith(h.store)(s3Event(requestKey), context);
    expect(await candidate()).toEqual(reference);
  }, 120_000);

  it('a second, different delivery of the same event while the lease is held does nothing', async () => {
    const before = await h.objects();
    await workerWith(h.store)(s3Event(requestKey), { awsRequestId: 'someone-else', getRemainingTimeInMillis: () => 900_000 });
    expect((await h.objects()).map((o) => o.key)).toEqual(before.map((o) => o.key));
  });
});
