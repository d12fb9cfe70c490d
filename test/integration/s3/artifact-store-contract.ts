import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArtifactError } from '../../../src/core/artifacts/artifact-error.js';
import type { ArtifactStore } from '../../../src/core/ports.js';

/**
 * The behaviour every ArtifactStore must have, run against each adapter so the CLI's
 * local directory and production S3 cannot drift apart.
 */
export interface ContractSubject {
  store: ArtifactStore;
  /** The same store, listing with a small page size where the adapter has one. */
  pagedStore: ArtifactStore;
  /** Bulk setup outside the API under test (fast), for large listings. */
  seed(objects: { key: string; body: string }[]): Promise<void>;
  /** How many list round trips the last `pagedStore.list` made, if the adapter can tell. */
  listCalls?(): number;
  stop(): Promise<void>;
}

/** Deterministic bytes (xorshift), so a failure is reproducible. */
export function pseudoRandomBytes(length: number, seed = 0x9e3779b9): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = x & 0xff;
  }
  return out;
}

const text = (body: Uint8Array | undefined): string | undefined => (body === undefined ? undefined : new TextDecoder().decode(body));

export function describeArtifactStoreContract(name: string, create: () => Promise<ContractSubject>): void {
  describe(`ArtifactStore contract: ${name}`, () => {
    let subject: ContractSubject;
    let store: ArtifactStore;
    beforeAll(async () => {
      subject = await create();
      store = subject.store;
    });
    afterAll(async () => {
      await subject?.stop();
    });

    it('get of a missing key is undefined; put then get returns the bytes and the same etag', async () => {
      expect(await store.get('c1/missing.json')).toBeUndefined();
      const etag = await store.put('c1/a.json', '{"a":1}\n');
      const got = await store.get('c1/a.json');
      expect(text(got?.body)).toBe('{"a":1}\n');
      expect(got?.etag).toBe(etag);
      const etag2 = await store.put('c1/a.json', '{"a":2}\n');
      expect(etag2).not.toBe(etag);
      expect(text((await store.get('c1/a.json'))?.body)).toBe('{"a":2}\n');
    });

    it('a prefix of other keys is not an object', async () => {
      await store.put('c1b/dir/leaf.json', 'x');
      expect(await store.get('c1b/dir')).toBeUndefined();
    });

    it('list returns exactly the keys under a prefix, sorted, and nothing from a sibling prefix', async () => {
      for (const key of ['c2/r/b.json', 'c2/r/a.json', 'c2/r/sub/c.json', 'c2/r1/x.json', 'c2/rx.json']) await store.put(key, key);
      expect(await store.list('c2/r/')).toEqual(['c2/r/a.json', 'c2/r/b.json', 'c2/r/sub/c.json']);
      expect(await store.list('c2/r')).toEqual(['c2/r/a.json', 'c2/r/b.json', 'c2/r/sub/c.json', 'c2/r1/x.json', 'c2/rx.json']);
      expect(await store.list('c2/none/')).toEqual([]);
    });

    it('lists more than 1000 keys across pages, none lost, none repeated', async () => {
      const keys = Array.from({ length: 1005 }, (_, i) => `c3/ledger/${String(i).padStart(6, '0')}.json`);
      await subject.seed([...keys].reverse().map((key) => ({ key, body: key })));
      expect(await store.list('c3/ledger/')).toEqual(keys);
      expect(await subject.pagedStore.list('c3/ledger/')).toEqual(keys);
      if (subject.listCalls) expect(subject.listCalls()).toBe(5); // 1005 keys, 250 a page
      expect(text((await store.get(keys[1004]))?.body)).toBe(keys[1004]);
    });

    it('putIfAbsent writes once: the second call is false and the body unchanged', async () => {
      expect(await store.putIfAbsent('c4/request.json', 'first')).toBe(true);
      expect(await store.putIfAbsent('c4/request.json', 'second')).toBe(false);
      expect(text((await store.get('c4/request.json'))?.body)).toBe('first');
    });

    it('putIfMatch swaps only on the current etag, and never creates', async () => {
      const etag = await store.put('c5/lock.json', 'v1');
      expect(await store.putIfMatch('c5/lock.json', 'v2', etag)).toBe(true);
      const after = await store.get('c5/lock.json');
      expect(text(after?.body)).toBe('v2');
      expect(await store.putIfMatch('c5/lock.json', 'v3', etag)).toBe(false);
      expect(text((await store.get('c5/lock.json'))?.body)).toBe('v2');
      expect(await store.putIfMatch('c5/lock.json', 'v3', after!.etag)).toBe(true);
      expect(await store.putIfMatch('c5/absent.json', 'v1', etag)).toBe(false);
      expect(await store.get('c5/absent.json')).toBeUndefined();
    });

    it('20 concurrent putIfAbsent on one key: exactly one wins and its body is stored', async () => {
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => store.putIfAbsent('c6/lease.json', `worker-${i}`)));
      const winners = results.flatMap((ok, i) => (ok ? [i] : []));
      expect(winners).toHaveLength(1);
      expect(text((await store.get('c6/lease.json'))?.body)).toBe(`worker-${winners[0]}`);
    });

    it('20 concurrent putIfMatch from one etag: exactly one swap succeeds', async () => {
      const etag = await store.put('c7/run.json', 'base');
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => store.putIfMatch('c7/run.json', `next-${i}`, etag)));
      const winners = results.flatMap((ok, i) => (ok ? [i] : []));
      expect(winners).toHaveLength(1);
      expect(text((await store.get('c7/run.json'))?.body)).toBe(`next-${winners[0]}`);
    });

    it('binary bytes round-trip exactly (every byte value, 64 KiB of noise, empty)', async () => {
      const every = Uint8Array.from({ length: 256 }, (_, i) => i);
      const noise = pseudoRandomBytes(64 * 1024);
      await store.put('c8/every.bin', every);
      expect(await store.putIfAbsent('c8/noise.bin', noise)).toBe(true);
      await store.put('c8/empty.bin', new Uint8Array());
      expect(Buffer.from((await store.get('c8/every.bin'))!.body).equals(Buffer.from(every))).toBe(true);
      expect(Buffer.from((await store.get('c8/noise.bin'))!.body).equals(Buffer.from(noise))).toBe(true);
      expect((await store.get('c8/empty.bin'))!.body.byteLength).toBe(0);
    });

    it('keys with spaces, unicode and punctuation work for every operation', async () => {
      const keys = ['c9/local/my repo-1a2b3c4d/ü ñ/日本語.json', 'c9/local/my repo-1a2b3c4d/a+b=c&d.json', 'c9/local/my repo-1a2b3c4d/файл (1).json'];
      for (const key of keys) expect(await store.putIfAbsent(key, key)).toBe(true);
      for (const key of keys) expect(text((await store.get(key))?.body)).toBe(key);
      expect(await store.list('c9/local/my repo-1a2b3c4d/')).toEqual([...keys].sort());
      const { etag } = (await store.get(keys[0]))!;
      expect(await store.putIfMatch(keys[0], 'changed', etag)).toBe(true);
      await store.delete(keys[1]);
      expect(await store.list('c9/local/')).toEqual([keys[0], keys[2]].sort());
    });

    it('delete removes the object; deleting a missing key is fine', async () => {
      await store.put('c10/x.json', 'x');
      await store.delete('c10/x.json');
      await store.delete('c10/never.json');
      expect(await store.get('c10/x.json')).toBeUndefined();
      expect(await store.list('c10/')).toEqual([]);
      expect(await store.putIfAbsent('c10/x.json', 'again')).toBe(true);
    });

    it.each(['', '/abs.json', '../escape.json', 'a/../../b', 'a//b', 'a/./b', 'a\\b'])('refuses the key %j with ARTIFACT_KEY_INVALID', async (key) => {
      for (const op of [
        () => store.get(key),
        () => store.put(key, 'x'),
        () => store.putIfAbsent(key, 'x'),
        () => store.putIfMatch(key, 'x', 'e'),
        () => store.delete(key),
      ]) {
        const error = await op().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(ArtifactError);
        expect((error as ArtifactError).reason).toBe('ARTIFACT_KEY_INVALID');
      }
    });
  });
}
