import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, type PutObjectCommandInput, type S3Client } from '@aws-sdk/client-s3';
import { ArtifactStoreError } from '../../core/artifacts/artifact-error.js';
import { assertArtifactKey } from '../../core/artifacts/artifact-key.js';
import { faultCode, faultStatus, isTransientFault } from '../../core/errors.js';
import type { ArtifactStore, PutOptions, StoredObject } from '../../core/ports.js';

/** Server-side encryption for every object written. */
export type S3Encryption = { type: 'AES256' } | { type: 'aws:kms'; kmsKeyId?: string };

/** What a retry looked like, for metrics and logs. */
export interface S3RetryInfo {
  operation: string;
  key: string;
  /** The attempt that failed (1-based); the next one is attempt + 1. */
  attempt: number;
  delayMs: number;
  status?: number;
  code?: string;
}

export interface S3ArtifactStoreOptions {
  /**
   * The client. Give it `maxAttempts: 1`: this store does its own retries (it must know
   * which attempt of a conditional write was ambiguous), and SDK retries would multiply them.
   */
  client: S3Client;
  bucket: string;
  sse?: S3Encryption;
  /** Attempts per operation, first included. Default 5. */
  maxAttempts?: number;
  /** Backoff before retry k is random() * min(maxDelayMs, baseDelayMs * 2^(k-1)) ("full jitter"). */
  baseDelayMs?: number;
  maxDelayMs?: number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** ListObjectsV2 page size (S3 caps it at 1000). */
  listPageSize?: number;
  onRetry?: (info: S3RetryInfo) => void;
}

function isNotFound(error: unknown): boolean {
  const code = faultCode(error);
  return faultStatus(error) === 404 || code === 'NoSuchKey' || code === 'NotFound';
}

function isPreconditionFailed(error: unknown): boolean {
  return faultStatus(error) === 412 || faultCode(error) === 'PreconditionFailed';
}

/**
 * True when the failed attempt may have written anyway: the server got the request but we did
 * not get its answer (5xx, timeouts, dropped connections). A 4xx other than 409 never wrote.
 */
function mayHaveWritten(error: unknown): boolean {
  const status = faultStatus(error);
  return status === undefined || status >= 500 || status === 409 || status === 429;
}

function toBytes(body: Uint8Array | string): Uint8Array {
  return typeof body === 'string' ? new TextEncoder().encode(body) : body;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return (
    a.byteLength === b.byteLength && Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength)) === 0
  );
}

/**
 * `ArtifactStore` on S3. `putIfAbsent` and `putIfMatch` are S3 conditional writes
 * (`If-None-Match: *`, `If-Match: <etag>`); a 412 means "someone else's object is there" and
 * returns false. Etags are S3's ETag header as S3 gives it (quoted); pass them back unchanged.
 *
 * Retries: what `isTransientFault` calls transient (throttling, 5xx, timeouts, resets) is retried
 * with exponential backoff and full jitter; 4xx never.
 * A conditional write whose earlier attempt may have succeeded without us hearing of it (5xx after
 * the object was stored, a dropped response) can meet its own object on retry and get a 412. In
 * that case the stored bytes are compared with ours: equal bytes mean our write landed, and the
 * call reports success instead of a false "exists"/"changed".
 */
export class S3ArtifactStore implements ArtifactStore {
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly sse?: S3Encryption;
  private readonly maxAttempts: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;
  private readonly pageSize: number;
  private readonly onRetry?: (info: S3RetryInfo) => void;

  constructor(options: S3ArtifactStoreOptions) {
    this.client = options.client;
    this.bucket = options.bucket;
    this.sse = options.sse;
    this.maxAttempts = Math.max(1, options.maxAttempts ?? 5);
    this.baseDelayMs = options.baseDelayMs ?? 100;
    this.maxDelayMs = options.maxDelayMs ?? 5_000;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.random = options.random ?? Math.random;
    this.pageSize = Math.min(1000, Math.max(1, options.listPageSize ?? 1000));
    this.onRetry = options.onRetry;
  }

  async get(key: string): Promise<StoredObject | undefined> {
    assertArtifactKey(key);
    return this.withRetry('get', key, async () => {
      try {
        const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
        const body = out.Body ? await out.Body.transformToByteArray() : new Uint8Array();
        return { body, etag: out.ETag ?? '' };
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
    });
  }

  async put(key: string, body: Uint8Array | string, options?: PutOptions): Promise<string> {
    assertArtifactKey(key);
    const bytes = toBytes(body);
    // An unconditional put is idempotent: retrying it after an ambiguous failure is safe.
    return this.withRetry('put', key, async () => {
      const out = await this.client.send(new PutObjectCommand(this.putInput(key, bytes, options)));
      return out.ETag ?? '';
    });
  }

  async putIfAbsent(key: string, body: Uint8Array | string, options?: PutOptions): Promise<boolean> {
    assertArtifactKey(key);
    const bytes = toBytes(body);
    let ambiguous = false;
    return this.withRetry(
      'putIfAbsent',
      key,
      async () => {
        try {
          await this.client.send(new PutObjectCommand({ ...this.putInput(key, bytes, options), IfNoneMatch: '*' }));
          return true;
        } catch (error) {
          if (!isPreconditionFailed(error)) throw error;
          if (!ambiguous) return false;
          // Our earlier attempt may be the object that is there now.
          const current = await this.get(key);
          return current !== undefined && sameBytes(current.body, bytes);
        }
      },
      (error) => {
        ambiguous ||= mayHaveWritten(error);
      },
    );
  }

  async putIfMatch(key: string, body: Uint8Array | string, etag: string, options?: PutOptions): Promise<boolean> {
    assertArtifactKey(key);
    const bytes = toBytes(body);
    let ambiguous = false;
    return this.withRetry(
      'putIfMatch',
      key,
      async () => {
        try {
          await this.client.send(new PutObjectCommand({ ...this.putInput(key, bytes, options), IfMatch: etag }));
          return true;
        } catch (error) {
          // S3 answers 404 to If-Match on a missing key: nothing to swap.
          if (isNotFound(error)) return false;
          if (!isPreconditionFailed(error)) throw error;
          if (!ambiguous) return false;
          // The etag moved; if it moved to exactly our bytes, that was our own earlier attempt.
          const current = await this.get(key);
          return current !== undefined && current.etag !== etag && sameBytes(current.body, bytes);
        }
      },
      (error) => {
        ambiguous ||= mayHaveWritten(error);
      },
    );
  }

  async delete(key: string): Promise<void> {
    assertArtifactKey(key);
    await this.withRetry('delete', key, async () => {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
    });
  }

  async list(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.withRetry('list', prefix, () =>
        this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix || undefined, ContinuationToken: token, MaxKeys: this.pageSize })),
      );
      for (const item of page.Contents ?? []) if (item.Key !== undefined) keys.push(item.Key);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    // S3 lists in UTF-8 binary order; sort by the same JS order the local store uses.
    return [...new Set(keys)].sort();
  }

  private putInput(key: string, body: Uint8Array, options?: PutOptions): PutObjectCommandInput {
    const input: PutObjectCommandInput = {
      Bucket: this.bucket,
      Key: key,
      Body: body,
      ContentLength: body.byteLength,
      ContentType: options?.contentType ?? 'application/octet-stream',
    };
    if (this.sse?.type === 'AES256') input.ServerSideEncryption = 'AES256';
    if (this.sse?.type === 'aws:kms') {
      input.ServerSideEncryption = 'aws:kms';
      if (this.sse.kmsKeyId) input.SSEKMSKeyId = this.sse.kmsKeyId;
    }
    return input;
  }

  private async withRetry<T>(operation: string, key: string, run: () => Promise<T>, onFailedAttempt?: (error: unknown) => void): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await run();
      } catch (error) {
        // A nested store call (the read-back of a conditional write) already gave up.
        if (error instanceof ArtifactStoreError) throw error;
        const status = faultStatus(error);
        const code = faultCode(error);
        // Retried here as the whole App judges a fault transient (docs/architecture.md, "Transient faults").
        if (!isTransientFault(error)) {
          throw new ArtifactStoreError(
            'STORE_REQUEST_FAILED',
            `S3 ${operation} failed for ${key}: ${code ?? 'error'}`,
            { operation, key, attempts: attempt, status, code },
            { cause: error },
          );
        }
        onFailedAttempt?.(error);
        if (attempt >= this.maxAttempts) {
          throw new ArtifactStoreError(
            'STORE_UNAVAILABLE',
            `S3 ${operation} for ${key} still failing after ${attempt} attempts: ${code ?? 'error'}`,
            { operation, key, attempts: attempt, status, code },
            { cause: error },
          );
        }
        const ceiling = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** (attempt - 1));
        const delayMs = Math.floor(this.random() * ceiling);
        this.onRetry?.({ operation, key, attempt, delayMs, status, code });
        await this.sleep(delayMs);
      }
    }
  }
}

/**
 * The object key of an S3 event record. S3 URL-encodes keys in notifications (space as `+`);
 * handlers must decode before using the key with the store.
 */
export function decodeS3EventKey(encoded: string): string {
  return decodeURIComponent(encoded.replace(/\+/g, ' '));
}
