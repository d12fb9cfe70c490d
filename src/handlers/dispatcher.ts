import { LambdaClient } from '@aws-sdk/client-lambda';
import { S3Client } from '@aws-sdk/client-s3';
import { withInvocationLogging } from '../app/aws/lambda-logging.js';
import type { Context } from 'aws-lambda';
import { S3ArtifactStore } from '../app/aws/s3-artifact-store.js';
import { readConfig } from '../app/config.js';
import { lambdaWorkerInvoker } from '../app/dispatch/aws-adapters.js';
import { createDispatcherHandler } from '../app/dispatch/create-dispatcher-handler.js';
import { JsonLogger } from '../app/logger.js';
import { createGitHubApi } from '../app/github/github-api.js';
import { admitRuns } from '../app/queue/run-admission.js';
import { LambdaTokenBroker } from '../app/tokens/lambda-token-broker.js';

/**
 * dispatcher: S3 ObjectCreated for request.json / attempts/<n>/request.json / continue-<k>.json
 * -> a fresh per-invocation capability (only its digest is stored, under dispatch/) -> the
 * worker, asynchronously, with `{key, capability}`. A message of the run queue's wake-up queue
 * (SQS) -> one admission pass: waiting runs whose slot freed get their request.json.
 */
const config = readConfig(process.env);
if (!config.WORKER_FUNCTION) throw new Error('WORKER_FUNCTION is required');
if (!config.TOKEN_READ_FUNCTION) throw new Error('TOKEN_READ_FUNCTION is required');
const logger = new JsonLogger({ level: config.LOG_LEVEL, bindings: { fn: 'dispatcher' } });
const store = new S3ArtifactStore({
  client: new S3Client({ maxAttempts: 1 }),
  bucket: config.ARTIFACT_BUCKET,
  sse: config.ARTIFACT_KMS_KEY_ID ? { type: 'aws:kms', kmsKeyId: config.ARTIFACT_KMS_KEY_ID } : { type: 'AES256' },
});
const clock = { now: () => Date.now() };
const lambda = new LambdaClient({});
const tokens = new LambdaTokenBroker({ client: lambda, functionName: config.TOKEN_READ_FUNCTION, role: 'read' });
const github = (token: string) => {
  logger.redact(token);
  return createGitHubApi({ token, baseUrl: config.GITHUB_API_URL, logger });
};

const handle = createDispatcherHandler({
  store,
  clock,
  logger,
  invokeWorker: lambdaWorkerInvoker(lambda, config.WORKER_FUNCTION),
  admit: () => admitRuns({ store, tokens, github, clock, logger, botLogin: `${config.GITHUB_APP_SLUG}[bot]`, workerSlots: config.WORKER_CONCURRENCY }),
});

export const handler = withInvocationLogging(async (event: unknown, _context: Context): Promise<void> => {
  await handle(event);
});
