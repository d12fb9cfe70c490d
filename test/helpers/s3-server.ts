import { S3Client } from '@aws-sdk/client-s3';
import type { S3Event, S3EventRecord } from 'aws-lambda';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { evaluate, type Statement } from './iam-policy.js';

/**
 * A real S3-compatible server for integration tests: s3rver 3.7.1 on 127.0.0.1 (random port, its
 * own temp directory, one bucket), with two Koa middlewares placed before everything s3rver does:
 *
 * 1. fault injection: `faults.fail({status, count, match?, after?})` makes the next `count`
 *    matching requests fail with that status and an S3 XML error body. By default the request
 *    never reaches s3rver; with `after: true` s3rver handles it (the object is stored, the event
 *    fires) and only the response is replaced: "the write succeeded but its answer was lost".
 * 2. the conditional-write shim s3rver lacks (PLATFORM-NOTES): a PUT with `If-None-Match: *` on
 *    an existing key, or with an `If-Match` that is not the current ETag (or on a missing key),
 *    gets 412 PreconditionFailed. Every PUT/DELETE on a key is serialised with its check, so
 *    concurrent conditional writes have exactly one winner; GET/HEAD take the same turn, so a read
 *    never sees an object half rewritten (S3 PUTs are atomic, s3rver's file writes are not).
 *
 * s3rver's `'event'` records are normalised to the AWS S3 notification shape (`S3Event` of
 * @types/aws-lambda): key URL-encoded as AWS does (space as `+`, `/` kept), eTag unquoted.
 */

type Next = () => Promise<unknown>;
interface KoaContext {
  method: string;
  path: string;
  querystring: string;
  status: number;
  body: unknown;
  type: string;
  req: Readable;
  get(field: string): string;
  set(field: string, value: string): void;
  remove(field: string): void;
}
type Middleware = (ctx: KoaContext, next: Next) => Promise<unknown>;

interface S3rverStore {
  getMetadata(bucket: string, key: string): Promise<Record<string, string>>;
  listObjects(bucket: string, options: Record<string, unknown>): Promise<{ objects: { key: string }[] }>;
  getObject(bucket: string, key: string): Promise<{ content: Readable } | null>;
}
interface S3rverInstance {
  middleware: Middleware[];
  store: S3rverStore;
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
  on(event: 'event', listener: (event: S3rverEvent) => void): void;
  on(event: 'error', listener: (error: Error) => void): void;
}
type S3rverCtor = new (options: Record<string, unknown>) => S3rverInstance;
interface S3rverEvent {
  Records: (Omit<S3EventRecord, 's3'> & {
    s3: Omit<S3EventRecord['s3'], 'object'> & { object: { key: string; size?: number; eTag?: string; sequencer: string } };
  })[];
}

const require = createRequire(import.meta.url);
const S3rver = require('s3rver') as S3rverCtor;

export const S3RVER_REGION = 'us-east-1';

export interface FaultSpec {
  status: 500 | 503;
  count: number;
  /** Which requests to fail; `key` is the decoded object key ('' for bucket-level requests). */
  match?: (method: string, key: string) => boolean;
  /** Let s3rver handle the request, then replace its answer (a lost response). */
  after?: boolean;
}

export interface FaultInjector {
  fail(spec: FaultSpec): void;
  /** Faults still armed (count not yet used up). */
  pending(): number;
  clear(): void;
  /** How many requests were failed so far. */
  injected(): number;
}

export interface RecordedRequest {
  method: string;
  key: string;
  query: string;
  status: number;
  headers: Record<string, string>;
}

export interface S3TestServer {
  endpoint: string;
  bucket: string;
  client: S3Client;
  faults: FaultInjector;
  /** Subscribe to ObjectCreated/ObjectRemoved notifications; returns an unsubscribe function. */
  onEvent(listener: (event: S3Event) => void): () => void;
  /** Every object in the bucket, read from s3rver's store directly (no faults, no shim). */
  objects(): Promise<{ key: string; body: Uint8Array }[]>;
  /**
   * Store objects straight into s3rver's backing store (no HTTP, no events): fast setup for
   * large listings. Reads and lists then go through HTTP as usual.
   */
  seed(objects: { key: string; body: Uint8Array | string }[]): Promise<void>;
  /** Requests as they reached the harness (after fault/shim decisions), oldest first. */
  requests: RecordedRequest[];
  /** Errors s3rver itself raised (its own 500s), for diagnosis. */
  serverErrors: Error[];
  stop(): Promise<void>;
}

/** An S3Client for s3rver (PLATFORM-NOTES): path style, fixed credentials, no default checksums, no SDK retries. */
export function createTestS3Client(endpoint: string, options: { maxAttempts?: number } = {}): S3Client {
  return new S3Client({
    endpoint,
    region: S3RVER_REGION,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    // With the SDK's default checksums a streamed PutObject is stored corrupted by s3rver.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // Stores retry themselves; SDK retries would hide what the server did.
    maxAttempts: options.maxAttempts ?? 1,
  });
}

/** S3's notification encoding of a key: form-style URL encoding, `/` kept, space as `+`. */
export function encodeS3EventKey(key: string): string {
  return encodeURIComponent(key).replace(/%2F/g, '/').replace(/%20/g, '+');
}

const ERROR_MESSAGES: Record<number, { code: string; message: string }> = {
  500: { code: 'InternalError', message: 'We encountered an internal error. Please try again.' },
  503: { code: 'SlowDown', message: 'Please reduce your request rate.' },
  412: { code: 'PreconditionFailed', message: 'At least one of the pre-conditions you specified did not hold' },
  403: { code: 'AccessDenied', message: 'Access Denied' },
};

function errorXml(status: number, resource: string, extra = ''): string {
  const { code, message } = ERROR_MESSAGES[status];
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message>${extra}<Resource>${escapeXml(resource)}</Resource><RequestId>0000000000000000</RequestId></Error>`;
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Discard an unread request body so the connection stays usable. */
async function drain(req: Readable): Promise<void> {
  for await (const chunk of req) void chunk;
}

function answer(ctx: KoaContext, status: number, resource: string, extra = ''): void {
  ctx.remove('ETag');
  ctx.status = status;
  ctx.type = 'application/xml';
  ctx.body = ctx.method === 'HEAD' ? '' : errorXml(status, resource, extra);
}

/** Strip quotes and a weak prefix: S3 compares ETags by value. */
function normalizeEtag(etag: string): string {
  return etag.trim().replace(/^W\//, '').replace(/^"|"$/g, '');
}

/** Start s3rver with one bucket; stop() closes it and removes its directory. */
export async function startS3Server(options: { bucket?: string; bucketPolicy?: Statement[] } = {}): Promise<S3TestServer> {
  const bucket = options.bucket ?? 'draftsman-test';
  const directory = await mkdtemp(join(tmpdir(), 's3rver-'));
  const app = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
    // Path-style only: a Host of 127.0.0.1 must never be read as a bucket name.
    vhostBuckets: false,
  });

  const requests: RecordedRequest[] = [];
  const faultQueue: (FaultSpec & { left: number })[] = [];
  let injectedCount = 0;
  const locks = new Map<string, Promise<unknown>>();

  const objectKeyOf = (path: string): string => {
    const parts = path.split('/');
    // ['', bucket, ...key]
    if (parts.length < 3 || decodeURIComponent(parts[1]) !== bucket) return '';
    return decodeURIComponent(parts.slice(2).join('/'));
  };

  const withKeyLock = async <T>(key: string, fn: () => Promise<T>): Promise<T> => {
    const previous = locks.get(key) ?? Promise.resolve();
    const run = previous.then(fn, fn);
    const settled = run.catch(() => undefined);
    locks.set(key, settled);
    try {
      return await run;
    } finally {
      if (locks.get(key) === settled) locks.delete(key);
    }
  };

  const currentEtag = async (key: string): Promise<string | undefined> => {
    try {
      return (await app.store.getMetadata(bucket, key)).etag;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  };

  const record: Middleware = async (ctx, next) => {
    // Before any rewriting below (the listing translation changes the query).
    const query = ctx.querystring;
    try {
      await next();
    } finally {
      const headers: Record<string, string> = {};
      for (const name of ['if-none-match', 'if-match', 'x-amz-server-side-encryption', 'x-amz-server-side-encryption-aws-kms-key-id', 'content-type']) {
        const value = ctx.get(name);
        if (value) headers[name] = value;
      }
      requests.push({ method: ctx.method, key: objectKeyOf(ctx.path), query, status: ctx.status, headers });
    }
  };

  const faultMiddleware: Middleware = async (ctx, next) => {
    const key = objectKeyOf(ctx.path);
    const index = faultQueue.findIndex((f) => f.left > 0 && (!f.match || f.match(ctx.method, key)));
    if (index < 0) return next();
    const fault = faultQueue[index];
    fault.left -= 1;
    if (fault.left === 0) faultQueue.splice(index, 1);
    injectedCount += 1;
    if (fault.after) await next();
    else await drain(ctx.req);
    answer(ctx, fault.status, ctx.path);
    return undefined;
  };

  /**
   * The bucket policy's Denies (infra/bucket.yml, when given), as S3 applies them to every
   * caller: a PUT under trail/ without If-None-Match, or any DELETE there, is 403 AccessDenied.
   * The loopback stands in for TLS (aws:SecureTransport is true).
   */
  const bucketPolicyGuard: Middleware = async (ctx, next) => {
    const key = objectKeyOf(ctx.path);
    const action = ctx.method === 'PUT' ? 's3:PutObject' : ctx.method === 'DELETE' ? 's3:DeleteObject' : undefined;
    if (!options.bucketPolicy || !action || key === '') return next();
    const context: Record<string, string> = { 'aws:SecureTransport': 'true' };
    for (const header of ['if-none-match', 'if-match']) if (ctx.get(header)) context[`s3:${header}`] = ctx.get(header);
    const decision = evaluate([], { action, resource: `arn:aws:s3:::${bucket}/${key}`, context }, {}, options.bucketPolicy);
    if (decision !== 'explicit-deny') return next();
    await drain(ctx.req);
    answer(ctx, 403, ctx.path);
    return undefined;
  };

  const conditionalWrites: Middleware = async (ctx, next) => {
    const key = objectKeyOf(ctx.path);
    if ((ctx.method === 'GET' || ctx.method === 'HEAD') && key !== '') {
      // S3 writes are atomic: a read sees the whole old or the whole new object. s3rver rewrites
      // the file in place, so a read beside an overwrite can see a truncated body. Reads take the
      // key's turn and are buffered inside it (Koa would stream the file after the turn ends).
      return withKeyLock(key, async () => {
        await next();
        if (ctx.body && typeof (ctx.body as Readable).pipe === 'function') {
          const chunks: Buffer[] = [];
          for await (const chunk of ctx.body as Readable) chunks.push(Buffer.from(chunk as Uint8Array));
          ctx.body = Buffer.concat(chunks);
        }
      });
    }
    const isObjectWrite = (ctx.method === 'PUT' || ctx.method === 'DELETE') && key !== '' && !ctx.get('x-amz-copy-source');
    if (!isObjectWrite) return next();
    return withKeyLock(key, async () => {
      const ifNoneMatch = ctx.get('if-none-match');
      const ifMatch = ctx.get('if-match');
      if (ctx.method === 'PUT' && (ifNoneMatch || ifMatch)) {
        const etag = await currentEtag(key);
        const blocked =
          (ifNoneMatch === '*' && etag !== undefined) ||
          (ifNoneMatch && ifNoneMatch !== '*' && etag !== undefined && normalizeEtag(ifNoneMatch) === normalizeEtag(etag)) ||
          (ifMatch && (etag === undefined || (ifMatch !== '*' && normalizeEtag(ifMatch) !== normalizeEtag(etag))));
        if (blocked) {
          await drain(ctx.req);
          // S3 answers If-Match on a missing key with 404 NoSuchKey; a real 412 otherwise.
          if (ifMatch && etag === undefined) {
            ctx.status = 404;
            ctx.type = 'application/xml';
            ctx.body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message><Key>${escapeXml(key)}</Key></Error>`;
            return undefined;
          }
          answer(ctx, 412, ctx.path, `<Condition>${ifMatch ? 'If-Match' : 'If-None-Match'}</Condition>`);
          return undefined;
        }
      }
      const length = Number(ctx.get('content-length'));
      await next();
      if (ctx.method === 'PUT' && ctx.status === 200 && Number.isFinite(length)) await written(key, length);
      return undefined;
    });
  };

  /**
   * s3rver answers a PUT of a buffered body once it has handed the bytes to a write stream, not
   * once they are in the file; a read in the key's next turn could see an empty or short object.
   * The PUT keeps its turn until the file holds all its bytes (S3's PUT is atomic).
   */
  const written = async (key: string, length: number): Promise<void> => {
    const file = (app.store as unknown as { getResourcePath(bucket: string, key: string, resource: string): string }).getResourcePath(bucket, key, 'object');
    for (let tries = 0; tries < 400; tries++) {
      const size = await stat(file).then(
        (s) => s.size,
        () => -1,
      );
      if (size >= length) return;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };

  /**
   * s3rver builds ListObjectsV2 continuation tokens with DES, which OpenSSL 3 (Node >= 17)
   * refuses: every truncated V2 listing is a 500. This answers V2 with s3rver's V1 listing
   * (`marker`) and our own token (base64url of the last key). It runs after s3rver's XML
   * encoder, so it edits the response object before it is serialised.
   */
  const listV2: Middleware = async (ctx, next) => {
    const params = new URLSearchParams(ctx.querystring);
    if (ctx.method !== 'GET' || params.get('list-type') !== '2' || objectKeyOf(ctx.path) !== '') return next();
    const token = params.get('continuation-token');
    const startAfter = params.get('start-after');
    const fetchOwner = params.get('fetch-owner') === 'true';
    const marker = token ? Buffer.from(token, 'base64url').toString('utf8') : startAfter;
    for (const name of ['list-type', 'continuation-token', 'start-after', 'fetch-owner']) params.delete(name);
    if (marker) params.set('marker', marker);
    ctx.querystring = params.toString();
    await next();
    const result = (ctx.body as { ListBucketResult?: Record<string, unknown> } | undefined)?.ListBucketResult;
    if (!result) return undefined;
    const contents = (result.Contents as { Key: string; Owner?: unknown }[]) ?? [];
    delete result.Marker;
    delete result.NextMarker;
    if (!fetchOwner) for (const item of contents) delete item.Owner;
    if (token) result.ContinuationToken = token;
    else if (startAfter) result.StartAfter = startAfter;
    result.KeyCount = contents.length;
    if (result.IsTruncated && contents.length > 0) {
      result.NextContinuationToken = Buffer.from(contents[contents.length - 1].Key, 'utf8').toString('base64url');
    }
    return undefined;
  };

  // Koa composes `app.middleware` when the server starts: ours go in front of s3rver's own,
  // and the listing translation right after s3rver's XML encoder (index 1 of its stack).
  app.middleware.splice(2, 0, listV2);
  app.middleware.unshift(record, faultMiddleware, bucketPolicyGuard, conditionalWrites);

  const address = await app.run();
  const endpoint = `http://127.0.0.1:${address.port}`;
  const client = createTestS3Client(endpoint);

  const faults: FaultInjector = {
    fail(spec) {
      if (!Number.isInteger(spec.count) || spec.count < 1) throw new Error('fault count must be a positive integer');
      faultQueue.push({ ...spec, left: spec.count });
    },
    pending: () => faultQueue.reduce((sum, f) => sum + f.left, 0),
    clear: () => {
      faultQueue.length = 0;
    },
    injected: () => injectedCount,
  };

  const serverErrors: Error[] = [];
  app.on('error', (error) => serverErrors.push(error));

  const listeners = new Set<(event: S3Event) => void>();
  app.on('event', (raw) => {
    const event = normalizeEvent(raw);
    for (const listener of listeners) listener(event);
  });

  return {
    endpoint,
    bucket,
    client,
    faults,
    requests,
    serverErrors,
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async seed(objects) {
      // s3rver 3.7.1's file layout: <dir>/<bucket>/<key dirs>/<name>._S3rver_object (+ .md5).
      // Written directly: through s3rver's own putObject this costs ~4 file operations more each.
      const dirs = new Map<string, Promise<unknown>>();
      const one = async ({ key, body }: { key: string; body: Uint8Array | string }): Promise<void> => {
        const content = Buffer.from(typeof body === 'string' ? new TextEncoder().encode(body) : body);
        const parts = key.split('/');
        const name = parts.pop()!;
        const dir = join(directory, bucket, ...parts);
        if (!dirs.has(dir)) dirs.set(dir, mkdir(dir, { recursive: true }));
        await dirs.get(dir);
        const file = join(dir, `${name}._S3rver_object`);
        await writeFile(file, content);
        await writeFile(`${file}.md5`, createHash('md5').update(content).digest('hex'));
      };
      for (let i = 0; i < objects.length; i += 64) await Promise.all(objects.slice(i, i + 64).map(one));
    },
    async objects() {
      const { objects } = await app.store.listObjects(bucket, { maxKeys: Number.POSITIVE_INFINITY });
      const out: { key: string; body: Uint8Array }[] = [];
      for (const { key } of objects) {
        const object = await app.store.getObject(bucket, key);
        if (!object) continue;
        const chunks: Buffer[] = [];
        for await (const chunk of object.content) chunks.push(chunk as Buffer);
        out.push({ key, body: new Uint8Array(Buffer.concat(chunks)) });
      }
      return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    },
    async stop() {
      listeners.clear();
      client.destroy();
      await app.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

function normalizeEvent(raw: S3rverEvent): S3Event {
  return {
    Records: raw.Records.map((record): S3EventRecord => ({
      ...record,
      s3: {
        ...record.s3,
        object: {
          key: encodeS3EventKey(record.s3.object.key),
          size: record.s3.object.size ?? 0,
          eTag: (record.s3.object.eTag ?? '').replace(/"/g, ''),
          sequencer: record.s3.object.sequencer,
        },
      },
    })),
  };
}
