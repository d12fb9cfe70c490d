import { LambdaClient } from '@aws-sdk/client-lambda';
import { S3Client } from '@aws-sdk/client-s3';
import { withInvocationLogging } from '../app/aws/lambda-logging.js';
import type { Context } from 'aws-lambda';
import { S3ArtifactStore } from '../app/aws/s3-artifact-store.js';
import { readConfig } from '../app/config.js';
import { lambdaWorkerInvoker } from '../app/dispatch/aws-adapters.js';
import { createDispatcherHandler } from '../app/dispatch/create-dispatcher-handler.js';
import { JsonLogger } from '../app/logger.js';

/**
 * dispatcher: S3 ObjectCreated for request.json / attempts/<n>/request.json / continue-<k>.json
 * -> a fresh per-invocation capability (only its digest is stored, under dispatch/) -> the
 * worker, asynchronously, with `{key, capability}`.
 */
const config = readConfig(process.env);
if (!config.WORKER_FUNCTION) throw new Error('WORKER_FUNCTION is required');
const logger = new JsonLogger({ level: config.LOG_LEVEL, bindings: { fn: 'dispatcher' } });

const handle = createDispatcherHandler({
  store: new S3ArtifactStore({
    client: new S3Client({ maxAttempts: 1 }),
    bucket: config.ARTIFACT_BUCKET,
    sse: config.ARTIFACT_KMS_KEY_ID ? { type: 'aws:kms', kmsKeyId: config.ARTIFACT_KMS_KEY_ID } : { type: 'AES256' },
  }),
  clock: { now: () => Date.now() },
  logger,
  invokeWorker: lambdaWorkerInvoker(new LambdaClient({}), config.WORKER_FUNCTION),
});

export const handler = withInvocationLogging(async (event: unknown, _context: Context): Promise<void> => {
  await handle(event);
});
