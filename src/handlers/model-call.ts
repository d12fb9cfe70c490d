import { SSMClient } from '@aws-sdk/client-ssm';
import { withInvocationLogging } from '../app/aws/lambda-logging.js';
import { readSecureParameter } from '../app/aws/ssm-secret.js';
import { readModelCallConfig } from '../app/config.js';
import { JsonLogger } from '../app/logger.js';
import { createModelCallHandler, modelCallProvider } from '../app/model/model-call.js';
import { createModelProvider } from '../app/model/create-model-provider.js';
import { ModelConfigError } from '../app/model/model-settings.js';

/**
 * model-call: the one function that holds the model key (read at cold start) or, with Bedrock,
 * the grant on the configured model. Invoked synchronously by the worker with one chat request;
 * it calls the configured provider and answers with the response or the provider's coded
 * failure. No bucket access, no token function: the key never reaches the worker.
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
  modelKey instanceof ModelConfigError
    ? modelKey
    : modelCallProvider(() =>
        createModelProvider({
          provider: config.MODEL_PROVIDER,
          model: config.MODEL_NAME,
          baseUrl: config.MODEL_BASE_URL,
          region: config.MODEL_REGION,
          apiKey: modelKey,
        }),
      ),
);

export const handler = withInvocationLogging((event: unknown) => handle(event));
