import { LambdaClient } from '@aws-sdk/client-lambda';
import { S3Client } from '@aws-sdk/client-s3';
import { STSClient } from '@aws-sdk/client-sts';
import { withInvocationLogging } from '../app/aws/lambda-logging.js';
import type { Context } from 'aws-lambda';
import { S3ArtifactStore } from '../app/aws/s3-artifact-store.js';
import { readConfig } from '../app/config.js';
import { StsRunCredentialsIssuer } from '../app/dispatch/aws-adapters.js';
import { createRunSessionHandler, type RunSessionResponse } from '../app/dispatch/create-run-session-handler.js';
import { JsonLogger } from '../app/logger.js';
import { LambdaTokenBroker } from '../app/tokens/lambda-token-broker.js';

/**
 * run-session: the worker's token vending machine. A valid `{key, capability}` buys S3
 * credentials of RunWorkerRole limited to that run and a token-read token for the repository
 * the webhook-written request names. Invoked synchronously by the worker only.
 */
const config = readConfig(process.env);
if (!config.TOKEN_READ_FUNCTION) throw new Error('TOKEN_READ_FUNCTION is required');
if (!config.RUN_WORKER_ROLE_ARN) throw new Error('RUN_WORKER_ROLE_ARN is required');
const logger = new JsonLogger({ level: config.LOG_LEVEL, bindings: { fn: 'runSession' } });

const handle = createRunSessionHandler({
  store: new S3ArtifactStore({ client: new S3Client({ maxAttempts: 1 }), bucket: config.ARTIFACT_BUCKET }),
  clock: { now: () => Date.now() },
  logger,
  credentials: new StsRunCredentialsIssuer({ client: new STSClient({}), roleArn: config.RUN_WORKER_ROLE_ARN }),
  tokens: new LambdaTokenBroker({ client: new LambdaClient({}), functionName: config.TOKEN_READ_FUNCTION, role: 'read' }),
  bucket: config.ARTIFACT_BUCKET,
  partition: config.RUN_WORKER_ROLE_ARN.split(':')[1],
});

export const handler = withInvocationLogging((event: unknown, _context: Context): Promise<RunSessionResponse> => handle(event));
