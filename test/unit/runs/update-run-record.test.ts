import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalArtifactStore } from '../../../src/app/local/local-artifact-store.js';
import { readArtifact, writeArtifact } from '../../../src/core/artifacts/artifact-io.js';
import { runKeys } from '../../../src/core/artifacts/keys.js';
import type { ArtifactStore } from '../../../src/core/ports.js';
import { RunRecord } from '../../../src/core/runs/run-request.js';
import { RunStateError } from '../../../src/core/runs/run-state-error.js';
import { RUN_RECORD_MAX_TRIES, updateRunRecord, withAttempt } from '../../../src/core/runs/update-run-record.js';

/** The one run.json writer, on the local store's real compare-and-swap. */
const KEY = runKeys('acme', 'orders', 'abcdefghijkl').run;
const T0 = '2026-02-03T04:05:06.000Z';
const BASE: RunRecord = {
  schemaVersion: 1,
  runId: 'abcdefghijkl',
  status: 'RUNNING',
  attempt: 1,
  attempts: [{ n: 1, status: 'RUNNING', startedAt: T0 }],
  agentBranch: 'agent/i1/rabcdefghijkl',
  updatedAt: T0,
};

let root: string;
let store: LocalArtifactStore;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'run-record-'));
  store = new LocalArtifactStore(root);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** `store`, with `beforePut` run once, before the first conditional write of `key` by this wrapper. */
function pausingBeforeFirstWrite(inner: ArtifactStore, beforePut: () => Promise<void>): ArtifactStore {
  let paused = false;
  const pause = async () => {
    if (paused) return;
    paused = true;
    await beforePut();
  };
  return {
    get: (k) => inner.get(k),
    list: (p) => inner.list(p),
    delete: (k) => inner.delete(k),
    put: (k, b, o) => inner.put(k, b, o),
    async putIfAbsent(k, b, o) {
      await pause();
      return inner.putIfAbsent(k, b, o);
    },
    async putIfMatch(k, b, e, o) {
      await pause();
      return inner.putIfMatch(k, b, e, o);
    },
  };
}

describe('updateRunRecord', () => {
  it('two racing writers: one wins, the other re-reads and re-applies, nothing is lost', async () => {
    await writeArtifact(store, KEY, RunRecord, BASE);
    const seen: { publisher: (RunRecord | undefined)[]; worker: (RunRecord | undefined)[] } = { publisher: [], worker: [] };
    // The worker writes the end of attempt 1 while the publisher is between its read and its write.
    const worker = () =>
      updateRunRecord(store, KEY, (current) => {
        seen.worker.push(current);
        return {
          ...current!,
          status: 'COMPLETED',
          headCommitSha: 'c'.repeat(40),
          attempts: withAttempt(current!.attempts, { n: 1, status: 'COMPLETED', startedAt: T0, endedAt: '2026-02-03T04:06:00.000Z' }),
          updatedAt: '2026-02-03T04:06:00.000Z',
        };
      });
    const publisherStore = pausingBeforeFirstWrite(store, async () => void (await worker()));
    await updateRunRecord(publisherStore, KEY, (current) => {
      seen.publisher.push(current);
      return {
        ...current!,
        status: 'PUBLISHED',
        pullRequest: { number: 7, url: 'https://github.com/acme/orders/pull/7' },
        updatedAt: '2026-02-03T04:07:00.000Z',
      };
    });

    const final = await readArtifact(store, KEY, RunRecord);
    expect(final).toMatchObject({ status: 'PUBLISHED', headCommitSha: 'c'.repeat(40), pullRequest: { number: 7 } });
    expect(final.attempts).toEqual([{ n: 1, status: 'COMPLETED', startedAt: T0, endedAt: '2026-02-03T04:06:00.000Z' }]);
    // The loser applied its change twice: first to the stale record, then to the winner's.
    expect(seen.publisher.map((r) => r?.status)).toEqual(['RUNNING', 'COMPLETED']);
    expect(seen.worker.map((r) => r?.status)).toEqual(['RUNNING']);
  });

  it('two writers creating the record at once: the second applies its change on top of the first', async () => {
    const first = () =>
      updateRunRecord(store, KEY, (current) => ({
        ...(current ?? BASE),
        attempts: withAttempt(current?.attempts ?? [], { n: 1, status: 'FAILED', startedAt: T0 }),
      }));
    const racing = pausingBeforeFirstWrite(store, async () => void (await first()));
    await updateRunRecord(racing, KEY, (current) => ({
      ...(current ?? BASE),
      attempts: withAttempt(current?.attempts ?? [], { n: 2, status: 'QUEUED', startedAt: T0 }),
    }));
    expect((await readArtifact(store, KEY, RunRecord)).attempts.map((a) => a.n)).toEqual([1, 2]);
  });

  it('a change that returns undefined writes nothing', async () => {
    await writeArtifact(store, KEY, RunRecord, BASE);
    const before = await store.get(KEY);
    expect(await updateRunRecord(store, KEY, () => undefined)).toBeUndefined();
    expect((await store.get(KEY))?.etag).toBe(before?.etag);
  });

  it('a record that fails its schema is handed over as undefined and replaced', async () => {
    await store.put(KEY, '{"status":"FAILED"}\n');
    const seen: unknown[] = [];
    await updateRunRecord(store, KEY, (current) => {
      seen.push(current);
      return BASE;
    });
    expect(seen).toEqual([undefined]);
    expect(await readArtifact(store, KEY, RunRecord)).toEqual(BASE);
  });

  it('gives up with RUN_RECORD_CONTENDED after a bounded number of conflicts', async () => {
    await writeArtifact(store, KEY, RunRecord, BASE);
    const alwaysConflicting: ArtifactStore = { ...wrap(store), putIfMatch: async () => false };
    let calls = 0;
    const error = await updateRunRecord(alwaysConflicting, KEY, (current) => {
      calls += 1;
      return current;
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunStateError);
    expect((error as RunStateError).reason).toBe('RUN_RECORD_CONTENDED');
    expect(calls).toBe(RUN_RECORD_MAX_TRIES);
  });
});

function wrap(inner: ArtifactStore): ArtifactStore {
  return {
    get: (k) => inner.get(k),
    list: (p) => inner.list(p),
    delete: (k) => inner.delete(k),
    put: (k, b, o) => inner.put(k, b, o),
    putIfAbsent: (k, b, o) => inner.putIfAbsent(k, b, o),
    putIfMatch: (k, b, e, o) => inner.putIfMatch(k, b, e, o),
  };
}
