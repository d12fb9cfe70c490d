import { describe, expect, it } from 'vitest';
import { ArtifactStoreError, ARTIFACT_STORE_REASONS } from '../../src/core/artifacts/artifact-error.js';
import { AgentError, isTransientFault, TRANSIENT_REASONS } from '../../src/core/errors.js';
import { GitHubApiError, GITHUB_API_REASONS } from '../../src/app/github/github-api-error.js';
import { MODEL_PROVIDER_REASONS, ModelProviderError } from '../../src/app/model/model-provider-error.js';

/** The one table of transient faults (docs/architecture.md, "Transient faults"), class by class. */

/** An AWS SDK v3 service error as the S3 client throws it. */
const s3Error = (name: string, status: number) => Object.assign(new Error(name), { name, Code: name, $metadata: { httpStatusCode: status } });
/** An Octokit RequestError as the GitHub client throws it. */
const octokitError = (status: number) => Object.assign(new Error(`HTTP ${status}`), { name: 'HttpError', status });
/** A Node socket error. */
const nodeError = (code: string) => Object.assign(new Error(code), { code });

describe('isTransientFault', () => {
  it.each([
    ['S3 503 SlowDown', s3Error('SlowDown', 503)],
    ['S3 500 InternalError', s3Error('InternalError', 500)],
    ['S3 RequestTimeout (a 400)', s3Error('RequestTimeout', 400)],
    ['S3 409 ConditionalRequestConflict', s3Error('ConditionalRequestConflict', 409)],
    ['throttling by name', Object.assign(new Error('rate'), { name: 'ThrottlingException' })],
    ['any 429', octokitError(429)],
    ['GitHub 502', octokitError(502)],
    ['GitHub 500 (Octokit wraps a network failure so)', octokitError(500)],
    ['HTTP 408', octokitError(408)],
    ['ECONNRESET', nodeError('ECONNRESET')],
    ['ETIMEDOUT', nodeError('ETIMEDOUT')],
    ['undici socket error', nodeError('UND_ERR_SOCKET')],
    ['fetch failed, caused by a reset', new TypeError('fetch failed', { cause: nodeError('ECONNRESET') })],
    ['TimeoutError', Object.assign(new Error('timed out'), { name: 'TimeoutError' })],
    ['AbortError', Object.assign(new Error('aborted'), { name: 'AbortError' })],
    ['the store gave up (STORE_UNAVAILABLE)', new ArtifactStoreError('STORE_UNAVAILABLE', 'still failing', {})],
    ['a GitHub rate limit', new GitHubApiError('GITHUB_RATE_LIMITED', 'limited', { status: 403 })],
  ])('%s is transient', (_name, error) => {
    expect(isTransientFault(error)).toBe(true);
  });

  it.each([
    ['S3 412 PreconditionFailed', s3Error('PreconditionFailed', 412)],
    ['S3 403 AccessDenied', s3Error('AccessDenied', 403)],
    ['S3 409 other than a conditional race', s3Error('OperationAborted', 409)],
    ['GitHub 404', octokitError(404)],
    ['GitHub 422', octokitError(422)],
    ['a 400 with a network code on it', Object.assign(octokitError(400), { code: 'ECONNRESET' })],
    ['a deterministic store failure (STORE_REQUEST_FAILED)', new ArtifactStoreError('STORE_REQUEST_FAILED', 'denied', { status: 403 })],
    ['a coded error wrapping a transient cause: its reason decides', new AgentError('REPLAY_DIVERGED', 'x', {}, { cause: nodeError('ECONNRESET') })],
    ['an unknown error', new Error('something broke')],
    ['a TypeError', new TypeError('x is undefined')],
    ['a string', 'ECONNRESET'],
    ['undefined', undefined],
    ['null', null],
    [
      'a cycle of causes',
      (() => {
        const e = new Error('loop') as Error & { cause?: unknown };
        e.cause = e;
        return e;
      })(),
    ],
  ])('%s is not transient', (_name, error) => {
    expect(isTransientFault(error)).toBe(false);
  });

  it('model provider errors keep their own rule: none is transient here, whatever its status', () => {
    for (const reason of MODEL_PROVIDER_REASONS) expect(isTransientFault(new ModelProviderError(reason, 'x', { status: 503 }))).toBe(false);
  });

  it('every transient reason is a reason some error declares', () => {
    const declared = new Set<string>([...ARTIFACT_STORE_REASONS, ...GITHUB_API_REASONS]);
    for (const reason of TRANSIENT_REASONS) expect(declared.has(reason)).toBe(true);
  });
});
