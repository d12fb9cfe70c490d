import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeArtifact } from '../../../src/core/artifacts/artifact-io.js';
import { runKeys } from '../../../src/core/artifacts/keys.js';
import { LocalArtifactStore } from '../../../src/app/local/local-artifact-store.js';
import { Continuation, countReplays, Lease, REPLAY_HOLDER, takeLease } from '../../../src/app/worker/lease.js';

/** The lease rules on a store with real conditional writes (the local directory store). */
const keys = runKeys('acme', 'orders', 'abcdefghijkl').attempt(1);
const AT = '2026-02-03T04:05:06.000Z';
const lease = (continuation: number, holder: string): Lease => ({ schemaVersion: 1, runId: 'abcdefghijkl', attempt: 1, continuation, holder, at: AT });

let root: string;
let store: LocalArtifactStore;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'draftsman-lease-'));
  store = new LocalArtifactStore(root);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const held = async () => JSON.parse(Buffer.from((await store.get(keys.lease))!.body).toString('utf8'));

describe('takeLease', () => {
  it('the first invocation leases; another delivery of the same key is a duplicate', async () => {
    expect(await takeLease(store, keys, lease(0, 'req-a'), 'req-a')).toBe('leased');
    expect(await takeLease(store, keys, lease(0, 'req-b'), 'req-b')).toBe('duplicate');
    expect(await held()).toMatchObject({ holder: 'req-a', continuation: 0 });
  });

  it("Lambda's retry of the holder (same request id) resumes and refreshes the lease's time", async () => {
    await takeLease(store, keys, lease(0, 'req-a'), 'req-a');
    expect(await takeLease(store, keys, { ...lease(0, 'req-a'), at: '2026-02-03T04:21:06.000Z' }, 'req-a')).toBe('resumed');
    expect(await held()).toMatchObject({ holder: 'req-a', at: '2026-02-03T04:21:06.000Z' });
  });

  it.each([
    ['a later continuation takes over', lease(0, 'req-a'), lease(1, 'req-b'), 'leased'],
    ['an earlier or equal continuation is a duplicate', lease(2, 'req-a'), lease(2, 'req-b'), 'duplicate'],
    ['a lease reserved by a replay goes to that continuation', lease(1, REPLAY_HOLDER), lease(1, 'req-b'), 'leased'],
    ['a lease reserved by a replay is not the dead holder’s any more', lease(1, REPLAY_HOLDER), lease(0, 'req-a'), 'duplicate'],
  ])('%s', async (_what, current, incoming, outcome) => {
    await writeArtifact(store, keys.lease, Lease, current);
    expect(await takeLease(store, keys, incoming, incoming.holder)).toBe(outcome);
    expect((await held()).holder).toBe(outcome === 'duplicate' ? current.holder : incoming.holder);
  });

  it('of two deliveries of a replayed continuation, one takes the reserved lease', async () => {
    await writeArtifact(store, keys.lease, Lease, lease(1, REPLAY_HOLDER));
    const outcomes = await Promise.all([takeLease(store, keys, lease(1, 'req-b'), 'req-b'), takeLease(store, keys, lease(1, 'req-c'), 'req-c')]);
    expect(outcomes.sort()).toEqual(['duplicate', 'leased']);
  });
});

describe('countReplays', () => {
  it('counts the continuations an operator replay wrote, up to the one given', async () => {
    const write = (k: number, reason: string) =>
      writeArtifact(store, keys.continue(k), Continuation, { schemaVersion: 1, runId: 'abcdefghijkl', attempt: 1, continuation: k, reason, at: AT });
    await write(1, 'time');
    await write(2, 'replay');
    await write(3, 'time');
    await write(4, 'replay');
    expect(await countReplays(store, keys, 1)).toBe(0);
    expect(await countReplays(store, keys, 3)).toBe(1);
    expect(await countReplays(store, keys, 4)).toBe(2);
  });
});
