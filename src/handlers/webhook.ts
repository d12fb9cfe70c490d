import { LambdaClient } from '@aws-sdk/client-lambda';
import { S3Client } from '@aws-sdk/client-s3';
import { SSMClient } from '@aws-sdk/client-ssm';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { withInvocationLogging } from '../app/aws/lambda-logging.js';
import { S3ArtifactStore } from '../app/aws/s3-artifact-store.js';
import { readSecureParameter } from '../app/aws/ssm-secret.js';
import { readConfig } from '../app/config.js';
import { createGitHubApi } from '../app/github/github-api.js';
import { LambdaTokenBroker } from '../app/tokens/lambda-token-broker.js';
import { JsonLogger } from '../app/logger.js';
import { createWebhookHandler } from '../app/webhook/create-webhook-handler.js';

/**
 * webhook: API Gateway HTTP API -> signature check -> trigger decisions -> request.json -> 202.
 * Built once per cold start; it may invoke token-read only.
 */
const config = readConfig(process.env);
if (!config.WEBHOOK_SECRET_PARAMETER || !config.TOKEN_READ_FUNCTION) throw new Error('WEBHOOK_SECRET_PARAMETER and TOKEN_READ_FUNCTION are required');
const secret = await readSecureParameter(new SSMClient({}), config.WEBHOOK_SECRET_PARAMETER);
const logger = new JsonLogger({ level: config.LOG_LEVEL, secrets: [secret], bindings: { fn: 'webhook' } });
const handle = await createWebhookHandler({
  store: new S3ArtifactStore({ client: new S3Client({ maxAttempts: 1 }), bucket: config.ARTIFACT_BUCKET, sse: config.ARTIFACT_KMS_KEY_ID ? { type: 'aws:kms', kmsKeyId: config.ARTIFACT_KMS_KEY_ID } : { type: 'AES256' } }),
  tokens: new LambdaTokenBroker({ client: new LambdaClient({}), functionName: config.TOKEN_READ_FUNCTION, role: 'read' }),
  github: (token) => {
    logger.redact(token);
    return createGitHubApi({ token, baseUrl: config.GITHUB_API_URL, logger });
  },
  clock: { now: () => Date.now() },
  logger,
  secret,
  appId: config.GITHUB_APP_ID,
  botLogin: `${config.GITHUB_APP_SLUG}[bot]`,
  apiUrl: config.GITHUB_API_URL,
});

export const handler = withInvocationLogging((event: APIGatewayProxyEventV2, _context: Context): Promise<APIGatewayProxyStructuredResultV2> => handle(event));
