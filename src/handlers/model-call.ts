import { randomUUID } from 'node:crypto';
import { S3Client } from '@aws-sdk/client-s3';
import { SSMClient } from '@aws-sdk/client-ssm';
import { withInvocationLogging } from '../app/aws/lambda-logging.js';
import { S3ArtifactStore } from '../app/aws/s3-artifact-store.js';
import { readSecureParameter } from '../app/aws/ssm-secret.js';
import { modelCallSettings, readModelCallConfig } from '../app/config.js';
import { JsonLogger } from '../app/logger.js';
import { createModelCallHandler, modelCallProvider } from '../app/model/model-call.js';
import { createModelProvider } from '../app/model/create-model-provider.js';
import { ModelConfigError } from '../app/model/model-settings.js';
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
const keyParameter = config.MODEL_API_KEY_PARAMETER;
// A key that cannot be read is a configuration error every answer names, not a failed start.
const modelKey = keyParameter
  ? await readSecureParameter(new SSMClient({}), keyParameter).catch((error: unknown) => {
      logger.error('model key parameter not read', { parameter: keyParameter, error: error instanceof Error ? error.message : String(error) });
      return new ModelConfigError(
        'MODEL_CONFIG_INVALID',
        `invalid model settings: MODEL_API_KEY cannot be read from the SSM parameter ${keyParameter} (MODEL_API_KEY_PARAMETER): create it as a SecureString`,
        { variables: ['apiKey'] },
      );
    })
  : undefined;
if (typeof modelKey === 'string') logger.redact(modelKey);

const handle = createModelCallHandler(
  modelKey instanceof ModelConfigError ? modelKey : modelCallProvider(() => createModelProvider(modelCallSettings(config, modelKey))),
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
