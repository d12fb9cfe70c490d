import { S3Client } from '@aws-sdk/client-s3';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { S3ArtifactStore } from '../aws/s3-artifact-store.js';
import { DEFAULT_MIN_IDLE_MS, ReplayError, replayStep, type ReplayOutcome } from '../worker/replay-step.js';
import { UsageError, type CliIo } from './cli-io.js';

/** The operator's environment, as the AWS SDK reads it (credentials are optional: else the SDK's default chain). */
export const OperatorAwsEnv = z.object({
  AWS_REGION: z.string().min(1).optional(),
  AWS_DEFAULT_REGION: z.string().min(1).optional(),
  AWS_ACCESS_KEY_ID: z.string().min(1).optional(),
  AWS_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  AWS_SESSION_TOKEN: z.string().min(1).optional(),
  /** An S3-compatible endpoint instead of AWS's (path-style addressing then). */
  AWS_ENDPOINT_URL_S3: z.string().url().optional(),
  /** Lambda- and SSM-compatible endpoints, for `doctor --stage` (the SDK's own variable names). */
  AWS_ENDPOINT_URL_LAMBDA: z.string().url().optional(),
  AWS_ENDPOINT_URL_SSM: z.string().url().optional(),
  ARTIFACT_KMS_KEY_ID: z.string().min(1).optional(),
});

/**
 * `draftsman replay <bucket> <key> [--endpoint URL] [--min-idle-minutes N] [--json]`: re-drive
 * a dead-lettered worker or publisher step from its stored input, with the operator's AWS
 * credentials. Exit 0 when the step was re-driven, 1 when the replay was refused (nothing
 * written), 2 on usage errors.
 */
export async function replayCommand(argv: string[], io: CliIo): Promise<number> {
  const parsed = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { endpoint: { type: 'string' }, region: { type: 'string' }, 'min-idle-minutes': { type: 'string' }, json: { type: 'boolean', default: false } },
  });
  const [bucket, key, ...extra] = parsed.positionals;
  if (!bucket || !key || extra.length > 0) throw new UsageError('replay takes a bucket and a key');
  const minutes = parsed.values['min-idle-minutes'];
  if (minutes !== undefined && !/^\d+$/.test(minutes)) throw new UsageError('--min-idle-minutes takes a whole number of minutes');
  const store = bucketStore(bucket, io, { endpoint: parsed.values.endpoint, region: parsed.values.region });
  try {
    const outcome = await replayStep(store, key, { clock: io.clock, minIdleMs: minutes === undefined ? DEFAULT_MIN_IDLE_MS : Number(minutes) * 60_000 });
    io.stdout(parsed.values.json ? `${JSON.stringify({ status: 'REPLAYED', key, ...outcome })}\n` : `${describe(key, outcome)}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof ReplayError)) throw error;
    if (parsed.values.json) io.stdout(`${JSON.stringify({ status: 'REFUSED', key, reason: error.reason, message: error.message, data: error.data })}\n`);
    io.stderr(`draftsman: replay refused: ${error.reason}: ${error.message}\n`);
    return 1;
  }
}

/** The App's bucket, read and written with the operator's AWS credentials (the environment as the SDK reads it). */
export function bucketStore(bucket: string, io: Pick<CliIo, 'env'>, options: { endpoint?: string; region?: string }): S3ArtifactStore {
  const env = OperatorAwsEnv.safeParse(io.env);
  if (!env.success) throw new UsageError(`invalid environment: ${env.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return new S3ArtifactStore({
    client: s3Client(env.data, options),
    bucket,
    sse: env.data.ARTIFACT_KMS_KEY_ID ? { type: 'aws:kms', kmsKeyId: env.data.ARTIFACT_KMS_KEY_ID } : { type: 'AES256' },
  });
}

export type OperatorAwsEnv = z.infer<typeof OperatorAwsEnv>;

/** The operator's region and credentials for any AWS client (the SDK's default chain when no keys are set). */
export function operatorClientConfig(
  env: OperatorAwsEnv,
  options: { region?: string },
): { region: string; credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string } } {
  const credentials =
    env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY
      ? { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY, sessionToken: env.AWS_SESSION_TOKEN }
      : undefined;
  return { region: options.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1', ...(credentials ? { credentials } : {}) };
}

/** The operator's S3 client: their credentials and region, or an S3-compatible endpoint. */
export function s3Client(env: OperatorAwsEnv, options: { endpoint?: string; region?: string }): S3Client {
  const endpoint = options.endpoint ?? env.AWS_ENDPOINT_URL_S3;
  return new S3Client({
    // The store retries on its own (it must know which conditional write was ambiguous).
    maxAttempts: 1,
    ...operatorClientConfig(env, options),
    // S3-compatible servers: path-style addressing, and checksums only where S3 requires them.
    ...(endpoint
      ? { endpoint, forcePathStyle: true, requestChecksumCalculation: 'WHEN_REQUIRED' as const, responseChecksumValidation: 'WHEN_REQUIRED' as const }
      : {}),
  });
}

function describe(key: string, outcome: ReplayOutcome): string {
  if (outcome.step === 'publisher') return `replayed ${key}: re-put unchanged; the publisher runs again for run ${outcome.runId} (publication is idempotent)`;
  if (outcome.action === 'renotify')
    return `replayed ${key}: attempt ${outcome.attempt} of run ${outcome.runId} was never leased; ${outcome.wrote} re-put unchanged, the dispatcher starts the worker`;
  const lease = outcome.previousLease;
  return [
    `replayed ${key}: wrote ${outcome.wrote} (reason replay)`,
    `the dispatcher starts the worker for attempt ${outcome.attempt} of run ${outcome.runId}, continuation ${outcome.continuation}`,
    lease ? `it takes the lease over from ${lease.holder} (continuation ${lease.continuation}, since ${lease.at}) and resumes from the checkpoints` : '',
  ]
    .filter(Boolean)
    .join('\n');
}
