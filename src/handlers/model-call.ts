import { SSMClient } from '@aws-sdk/client-ssm';
import { withInvocationLogging } from '../app/aws/lambda-logging.js';
import { readSecureParameter } from '../app/aws/ssm-secret.js';
import { readModelCallConfig } from '../app/config.js';
import { JsonLogger } from '../app/logger.js';
import { createModelCallHandler } from '../app/model/model-call.js';
import { createModelProvider } from '../app/model/create-model-provider.js';

/**
 * model-call: the one function that holds the model key (read at cold start) or, with Bedrock,
 * the grant on the configured model. Invoked synchronously by the worker with one chat request;
 * it calls the configured provider and answers with the response or the provider's coded
 * failure. No bucket access, no token function: the key never reaches the worker.
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
);

export const handler = withInvocationLogging((event: unknown) => handle(event));
