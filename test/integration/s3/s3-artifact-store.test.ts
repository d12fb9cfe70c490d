import type { S3Event } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ArtifactStoreError } from '../../../src/core/artifacts/artifact-error.js';
import { decodeS3EventKey, S3ArtifactStore, type S3ArtifactStoreOptions, type S3RetryInfo } from '../../../src/app/aws/s3-artifact-store.js';
import { createTestS3Client, startS3Server, type S3TestServer } from '../../helpers/s3-server.js';
import { describeArtifactStoreContract } from './artifact-store-contract.js';

const noSleep = async (): Promise<void> => undefined;

describeArtifactStoreContract('S3 on s3rver', async () => {
  const server = await startS3Server();
  const options = { client: server.client, bucket: server.bucket, sleep: noSleep };
  let listMark = 0;
  /** Marks where its listing starts in the request log, to count the pages it fetched. */
  class MarkingStore extends S3ArtifactStore {
    override async list(prefix: string): Promise<string[]> {
      listMark = server.requests.length;
      return super.list(prefix);
    }
  }
  return {
    store: new S3ArtifactStore(options),
    pagedStore: new MarkingStore({ ...options, listPageSize: 250 }),
    seed: (objects) => server.seed(objects),
    listCalls: () => server.requests.slice(listMark).filter((r) => r.method === 'GET' && r.key === '' && r.query.includes('list-type=2')).length,
    stop: () => server.stop(),
  };
});

describe('S3ArtifactStore on s3rver: retries, faults, encryption, events', () => {
  let server: S3TestServer;
  let retries: S3RetryInfo[];
  let sleeps: number[];
  let events: S3Event[];

  const makeStore = (extra: Partial<S3ArtifactStoreOptions> = {}): S3ArtifactStore =>
    new S3ArtifactStore({
      client: server.client,
      bucket: server.bucket,
      maxAttempts: 6,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      random: () => 0.5,
      onRetry: (info) => retries.push(info),
      ...extra,
    });
  const bodyOf = async (key: string): Promise<string | undefined> => {
    const found = (await server.objects()).find((o) => o.key === key);
    return found && new TextDecoder().decode(found.body);
  };
  const putsTo = (key: string): number => server.requests.filter((r) => r.method === 'PUT' && r.key === key).length;
  const createdEvents = (key: string): number =>
    events.flatMap((e) => e.Records).filter((r) => r.eventName.startsWith('ObjectCreated') && decodeS3EventKey(r.s3.object.key) === key).length;

  beforeAll(async () => {
    server = await startS3Server({ bucket: 'faults-bucket' });
    server.onEvent((event) => events.push(event));
  });
  afterAll(async () => {
    await server.stop();
  });
  beforeEach(() => {
    retries = [];
    sleeps = [];
    events = [];
    server.faults.clear();
  });

  it('retries 503 SlowDown with exponential backoff and jitter, then succeeds', async () => {
    const store = makeStore();
    server.faults.fail({ status: 503, count: 3, match: (method) => method === 'PUT' });
    await store.put('f1/a.json', 'payload');
    expect(retries.map((r) => [r.attempt, r.status, r.code])).toEqual([
      [1, 503, 'SlowDown'],
      [2, 503, 'SlowDown'],
      [3, 503, 'SlowDown'],
    ]);
    // random() = 0.5 of a ceiling of 100, 200, 400 ms
    expect(sleeps).toEqual([50, 100, 200]);
    expect(putsTo('f1/a.json')).toBe(4);
    expect(await bodyOf('f1/a.json')).toBe('payload');
    expect(createdEvents('f1/a.json')).toBe(1);
  });

  it('caps the backoff at maxDelayMs', async () => {
    const store = makeStore({ baseDelayMs: 1000, maxDelayMs: 1500, random: () => 1 });
    server.faults.fail({ status: 500, count: 3, match: (method) => method === 'GET' });
    await store.get('f2/none.json');
    expect(sleeps).toEqual([1000, 1500, 1500]);
  });

  it('gives up with STORE_UNAVAILABLE after maxAttempts and writes nothing', async () => {
    const store = makeStore({ maxAttempts: 3 });
    server.faults.fail({ status: 500, count: 10, match: (_m, key) => key === 'f3/a.json' });
    const error = await store.put('f3/a.json', 'x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ArtifactStoreError);
    expect((error as ArtifactStoreError).reason).toBe('STORE_UNAVAILABLE');
    expect((error as ArtifactStoreError).data).toMatchObject({ operation: 'put', key: 'f3/a.json', attempts: 3, status: 500 });
    expect(putsTo('f3/a.json')).toBe(3);
    expect(retries).toHaveLength(2);
    server.faults.clear();
    expect(await store.get('f3/a.json')).toBeUndefined();
  });

  it('never retries a 412: a putIfAbsent on an existing key is one request', async () => {
    const store = makeStore();
    await store.put('f4/a.json', 'mine');
    expect(await store.putIfAbsent('f4/a.json', 'theirs')).toBe(false);
    expect(await store.putIfMatch('f4/a.json', 'theirs', '"0123456789abcdef0123456789abcdef"')).toBe(false);
    expect(retries).toHaveLength(0);
    expect(putsTo('f4/a.json')).toBe(3);
    expect(await bodyOf('f4/a.json')).toBe('mine');
  });

  it('never retries other 4xx: a missing bucket fails at once with STORE_REQUEST_FAILED', async () => {
    const store = new S3ArtifactStore({ client: server.client, bucket: 'no-such-bucket', sleep: noSleep, onRetry: (i) => retries.push(i) });
    const error = await store.put('f5/a.json', 'x').catch((e: unknown) => e);
    expect((error as ArtifactStoreError).reason).toBe('STORE_REQUEST_FAILED');
    expect((error as ArtifactStoreError).data).toMatchObject({ status: 404, attempts: 1 });
    expect(retries).toHaveLength(0);
  });

  it('putIfAbsent whose write landed but whose answer was lost reports success, not "exists", and writes once', async () => {
    const store = makeStore();
    server.faults.fail({ status: 500, count: 1, after: true, match: (method, key) => method === 'PUT' && key === 'f6/request.json' });
    expect(await store.putIfAbsent('f6/request.json', 'ours')).toBe(true);
    expect(retries).toHaveLength(1);
    // the retry met our own object (412) and no second write happened
    expect(server.requests.filter((r) => r.key === 'f6/request.json' && r.method === 'PUT').map((r) => r.status)).toEqual([500, 412]);
    expect(createdEvents('f6/request.json')).toBe(1);
    expect(await bodyOf('f6/request.json')).toBe('ours');
  });

  it("putIfAbsent after a 5xx still reports false when the object there is someone else's", async () => {
    const store = makeStore();
    await store.put('f7/request.json', 'theirs');
    server.faults.fail({ status: 503, count: 1, match: (method, key) => method === 'PUT' && key === 'f7/request.json' });
    expect(await store.putIfAbsent('f7/request.json', 'ours')).toBe(false);
    expect(await bodyOf('f7/request.json')).toBe('theirs');
  });

  it('putIfMatch whose swap landed but whose answer was lost reports success; a stale etag is still refused', async () => {
    const store = makeStore();
    const etag = await store.put('f8/lock.json', 'v1');
    server.faults.fail({ status: 500, count: 1, after: true, match: (method, key) => method === 'PUT' && key === 'f8/lock.json' });
    expect(await store.putIfMatch('f8/lock.json', 'v2', etag)).toBe(true);
    expect(await bodyOf('f8/lock.json')).toBe('v2');
    expect(createdEvents('f8/lock.json')).toBe(2); // the put of v1 and the swap; the retry wrote nothing
    retries = [];
    expect(await store.putIfMatch('f8/lock.json', 'v3', etag)).toBe(false);
    expect(retries).toHaveLength(0);
  });

  it('a burst of writes through intermittent 500/503 (some after the write landed): nothing lost, nothing written twice, every retry counted', async () => {
    const store = makeStore();
    const keys = Array.from({ length: 24 }, (_, i) => `f9/ledger/${String(i).padStart(6, '0')}.json`);
    server.faults.fail({ status: 503, count: 8, match: (method) => method === 'PUT' });
    server.faults.fail({ status: 500, count: 4, after: true, match: (method) => method === 'PUT' });
    server.faults.fail({ status: 500, count: 3, match: (method) => method === 'GET' });
    const results = await Promise.all(keys.map((key) => store.putIfAbsent(key, `entry ${key}`)));
    expect(results.every(Boolean)).toBe(true);
    // the 4 lost answers made the retries meet their own objects (412) and read them back
    expect(server.requests.filter((r) => r.method === 'PUT' && r.key.startsWith('f9/') && r.status === 412)).toHaveLength(4);
    const listed = await store.list('f9/ledger/');
    expect(listed).toEqual(keys);
    for (const key of keys) {
      expect(await bodyOf(key)).toBe(`entry ${key}`);
      expect(createdEvents(key)).toBe(1);
    }
    // read-backs and the listing went through the GET faults; one retry per injected fault
    expect(server.faults.pending()).toBe(0);
    expect(retries).toHaveLength(15);
    expect(retries.filter((r) => r.status === 503)).toHaveLength(8);
  });

  it.each([
    [{ type: 'AES256' } as const, { 'x-amz-server-side-encryption': 'AES256' }],
    [
      { type: 'aws:kms', kmsKeyId: 'arn:aws:kms:eu-west-1:111122223333:key/abcd' } as const,
      { 'x-amz-server-side-encryption': 'aws:kms', 'x-amz-server-side-encryption-aws-kms-key-id': 'arn:aws:kms:eu-west-1:111122223333:key/abcd' },
    ],
  ])('sends server-side encryption %j on every write', async (sse, headers) => {
    const store = makeStore({ sse });
    const key = `f10/${sse.type}.json`;
    const etag = await store.put(key, 'a');
    await store.putIfMatch(key, 'b', etag);
    await store.putIfAbsent(`${key}.2`, 'c');
    const writes = server.requests.filter((r) => r.method === 'PUT' && r.key.startsWith(key));
    expect(writes).toHaveLength(3);
    for (const write of writes) expect(write.headers).toMatchObject(headers);
  });

  it('etags are S3 ETags as S3 gives them (quoted MD5) and conditional headers carry them unchanged', async () => {
    const store = makeStore({ sse: undefined });
    const etag = await store.put('f11/a.json', 'hello');
    expect(etag).toBe('"5d41402abc4b2a76b9719d911017c592"');
    expect((await store.get('f11/a.json'))?.etag).toBe(etag);
    await store.putIfMatch('f11/a.json', 'x', etag);
    await store.putIfAbsent('f11/b.json', 'x');
    const conditional = server.requests.filter((r) => r.method === 'PUT' && r.key.startsWith('f11/') && (r.headers['if-match'] || r.headers['if-none-match']));
    expect(conditional.map((r) => r.headers)).toEqual([expect.objectContaining({ 'if-match': etag }), expect.objectContaining({ 'if-none-match': '*' })]);
  });

  it('forwards ObjectCreated events in the AWS S3 notification shape, keys URL-encoded as AWS does', async () => {
    const store = makeStore();
    const key = 'runs/local/my repo-1a2b/ü+x/request.json';
    const etag = await store.put(key, 'hello');
    const record = events.flatMap((e) => e.Records).find((r) => decodeS3EventKey(r.s3.object.key) === key);
    expect(record).toMatchObject({
      eventSource: 'aws:s3',
      eventName: 'ObjectCreated:Put',
      s3: { bucket: { name: 'faults-bucket' }, object: { key: 'runs/local/my+repo-1a2b/%C3%BC%2Bx/request.json', size: 5, eTag: etag.replace(/"/g, '') } },
    });
    expect(record?.s3.object.sequencer).toEqual(expect.any(String));
    await store.delete(key);
    const removed = events.flatMap((e) => e.Records).filter((r) => r.eventName === 'ObjectRemoved:Delete');
    expect(removed.map((r) => decodeS3EventKey(r.s3.object.key))).toEqual([key]);
  });

  it('does not emit an event for a conditional write the shim refused', async () => {
    const store = makeStore();
    await store.put('f12/a.json', 'x');
    events = [];
    expect(await store.putIfAbsent('f12/a.json', 'y')).toBe(false);
    expect(events).toHaveLength(0);
  });

  it('a read beside overwrites of the same key sees one whole version, never a torn body (S3 PUTs are atomic)', async () => {
    const store = makeStore();
    const key = 'f13/delivery.json';
    const versions = ['a', 'b', 'c', 'd'].map((c) => c.repeat(8 * 1024));
    await store.put(key, versions[0]);
    const reads: Promise<{ body: Uint8Array } | undefined>[] = [];
    const writes: Promise<unknown>[] = [];
    for (let round = 0; round < 25; round++) {
      for (const body of versions) {
        writes.push(store.put(key, body));
        reads.push(store.get(key));
      }
    }
    await Promise.all(writes);
    const seen = (await Promise.all(reads)).map((read) => (read ? new TextDecoder().decode(read.body) : '<missing>'));
    for (const text of seen) expect(versions.includes(text), `a read of ${text.length} bytes starting ${text.slice(0, 8)}`).toBe(true);
  });

  it('createTestS3Client makes a client that does no SDK-level retries', async () => {
    const client = createTestS3Client(server.endpoint);
    expect(await client.config.maxAttempts()).toBe(1);
    client.destroy();
  });
});
