import type { S3Client } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { ArtifactStoreError } from '../../../src/core/artifacts/artifact-error.js';
import { S3ArtifactStore, decodeS3EventKey } from '../../../src/app/aws/s3-artifact-store.js';
import { encodeS3EventKey } from '../../helpers/s3-server.js';

/** Error shapes as the SDK produces them, for failures s3rver cannot stage (dropped connections, 409, 429). */
const networkError = (code: string): Error => Object.assign(new Error(`socket ${code}`), { code });
const httpError = (status: number, name: string): Error => Object.assign(new Error(name), { name, $metadata: { httpStatusCode: status } });

/** A client whose `send` answers from a script, one entry per call, recording command names. */
function scriptedClient(script: ((input: Record<string, unknown>) => unknown)[]): { client: S3Client; calls: string[] } {
  const calls: string[] = [];
  const client = {
    async send(command: { constructor: { name: string }; input: Record<string, unknown> }) {
      calls.push(command.constructor.name);
      const step = script.shift();
      if (!step) throw new Error('script exhausted');
      return step(command.input);
    },
  } as unknown as S3Client;
  return { client, calls };
}

const store = (client: S3Client, maxAttempts = 5): S3ArtifactStore => new S3ArtifactStore({ client, bucket: 'b', maxAttempts, sleep: async () => undefined });
const body = (text: string) => ({ transformToByteArray: async () => new TextEncoder().encode(text) });

describe('S3ArtifactStore error handling beyond what s3rver can stage', () => {
  it.each(['ECONNRESET', 'EPIPE', 'ETIMEDOUT'])('retries a dropped connection (%s)', async (code) => {
    const { client, calls } = scriptedClient([
      () => {
        throw networkError(code);
      },
      () => ({ ETag: '"e"' }),
    ]);
    expect(await store(client).put('k', 'x')).toBe('"e"');
    expect(calls).toEqual(['PutObjectCommand', 'PutObjectCommand']);
  });

  it('retries 429 and 409 ConditionalRequestConflict, but not 403 or 400', async () => {
    const ok = scriptedClient([
      () => {
        throw httpError(429, 'TooManyRequests');
      },
      () => {
        throw httpError(409, 'ConditionalRequestConflict');
      },
      () => ({ ETag: '"e"' }),
    ]);
    expect(await store(ok.client).putIfAbsent('k', 'x')).toBe(true);
    expect(ok.calls).toHaveLength(3);
    for (const [status, name] of [
      [403, 'AccessDenied'],
      [400, 'InvalidRequest'],
      [409, 'OperationAborted'],
    ] as const) {
      const bad = scriptedClient([
        () => {
          throw httpError(status, name);
        },
      ]);
      const error = await store(bad.client)
        .put('k', 'x')
        .catch((e: unknown) => e);
      expect((error as ArtifactStoreError).reason).toBe('STORE_REQUEST_FAILED');
      expect((error as ArtifactStoreError).data).toMatchObject({ status, code: name, attempts: 1 });
    }
  });

  it('putIfAbsent: a dropped connection, then 412 on our own bytes = success; on other bytes = false', async () => {
    const ours = scriptedClient([
      () => {
        throw networkError('ECONNRESET');
      },
      () => {
        throw httpError(412, 'PreconditionFailed');
      },
      () => ({ Body: body('ours'), ETag: '"1"' }),
    ]);
    expect(await store(ours.client).putIfAbsent('k', 'ours')).toBe(true);
    expect(ours.calls).toEqual(['PutObjectCommand', 'PutObjectCommand', 'GetObjectCommand']);
    const theirs = scriptedClient([
      () => {
        throw networkError('ECONNRESET');
      },
      () => {
        throw httpError(412, 'PreconditionFailed');
      },
      () => ({ Body: body('theirs'), ETag: '"2"' }),
    ]);
    expect(await store(theirs.client).putIfAbsent('k', 'ours')).toBe(false);
  });

  it('a 412 with no earlier ambiguous attempt is a plain false, without a read-back', async () => {
    const { client, calls } = scriptedClient([
      () => {
        throw httpError(412, 'PreconditionFailed');
      },
    ]);
    expect(await store(client).putIfAbsent('k', 'x')).toBe(false);
    expect(calls).toEqual(['PutObjectCommand']);
  });

  it('list follows continuation tokens and returns sorted, de-duplicated keys', async () => {
    const { client, calls } = scriptedClient([
      (input) => {
        expect(input).toMatchObject({ Prefix: 'p/', MaxKeys: 2 });
        return { Contents: [{ Key: 'p/b' }, { Key: 'p/a' }], IsTruncated: true, NextContinuationToken: 't1' };
      },
      (input) => {
        expect(input.ContinuationToken).toBe('t1');
        return { Contents: [{ Key: 'p/c' }, { Key: 'p/a' }], IsTruncated: false };
      },
    ]);
    expect(await new S3ArtifactStore({ client, bucket: 'b', listPageSize: 2 }).list('p/')).toEqual(['p/a', 'p/b', 'p/c']);
    expect(calls).toHaveLength(2);
  });

  it.each(['runs/o/r/x/request.json', 'runs/local/my repo/ü+x/%41.json', 'a b&c=d/é.json'])('event keys encode and decode like AWS: %s', (key) => {
    const encoded = encodeS3EventKey(key);
    expect(encoded).not.toContain(' ');
    expect(decodeS3EventKey(encoded)).toBe(key);
  });
});
