import { randomUUID } from 'node:crypto';
import { S3Client } from '@aws-sdk/client-s3';
import { SSMClient } from '@aws-sdk/client-ssm';
import { withInvocationLogging } from '../app/aws/lambda-logging.js';
import { S3ArtifactStore } from '../app/aws/s3-artifact-store.js';
import { readSecureParameter } from '../app/aws/ssm-secret.js';
import { readModelCallConfig } from '../app/config.js';
import { JsonLogger } from '../app/logger.js';
import { createModelCallHandler } from '../app/model/model-call.js';
import { createModelProvider } from '../app/model/create-model-provider.js';
import { usdToMicro } from '../core/budget/cost.js';

/**
 * model-call: the one function that holds the model key (read at cold start) or, with Bedrock,
 * the grant on the configured model, and the only writer of the spend records (`spend/*`).
 * Invoked synchronously by the worker with one chat request naming its run; it reserves the
 * call's worst case, calls the configured provider, settles the spend and answers with the
 * response or the coded failure. No token function: the key never reaches the worker.
 */
const config = readModelCallConfig(process.env);
const logger = new JsonLogger({ level: config.LOG_LEVEL, bindings: { fn: 'modelCall' } });
const modelKey = config.MODEL_API_KEY_PARAMETER ? await readSecureParameter(new SSMClient({}), config.MODEL_API_KEY_PARAMETER) : undefined;
if (modelKey) logger.redact(modelKey);

const handle = createModelCallHandler(
  createModelProvider({
    provider: config.MODEL_PROVIDER,
    model: config.MODEL_NAME,
    baseUrl: config.MODEL_BASE_URL,
    region: config.MODEL_REGION,
    apiKey: modelKey,
  }),
  {
    store: new S3ArtifactStore({
      client: new S3Client({ maxAttempts: 3 }),
      bucket: config.ARTIFACT_BUCKET,
      sse: config.ARTIFACT_KMS_KEY_ID ? { type: 'aws:kms', kmsKeyId: config.ARTIFACT_KMS_KEY_ID } : { type: 'AES256' },
    }),
    clock: { now: () => Date.now() },
    prices: config.MODEL_PRICES,
    ...(config.INSTALLATION_MONTHLY_COST_USD !== undefined ? { installationMonthlyMicroUsd: usdToMicro(config.INSTALLATION_MONTHLY_COST_USD) } : {}),
    reservationId: () => randomUUID(),
  },
);

export const handler = withInvocationLogging((event: unknown) => handle(event));
