import { S3Client } from '@aws-sdk/client-s3';
import { SSMClient } from '@aws-sdk/client-ssm';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { withInvocationLogging } from '../app/aws/lambda-logging.js';
import { S3ArtifactStore } from '../app/aws/s3-artifact-store.js';
import { readSecureParameter } from '../app/aws/ssm-secret.js';
import { readConfig } from '../app/config.js';
import { JsonLogger } from '../app/logger.js';
import { createWebhookHandler } from '../app/webhook/create-webhook-handler.js';

/**
 * webhook: API Gateway HTTP API -> signature check -> screening -> deliveries/<id>.json -> 202.
 * Built once per cold start; it calls no GitHub API and no other function (the intake does).
 */
const config = readConfig(process.env);
if (!config.WEBHOOK_SECRET_PARAMETER) throw new Error('WEBHOOK_SECRET_PARAMETER is required');
const secret = await readSecureParameter(new SSMClient({}), config.WEBHOOK_SECRET_PARAMETER);
const logger = new JsonLogger({ level: config.LOG_LEVEL, secrets: [secret], bindings: { fn: 'webhook' } });
const handle = createWebhookHandler({
  store: new S3ArtifactStore({
    client: new S3Client({ maxAttempts: 1 }),
    bucket: config.ARTIFACT_BUCKET,
    sse: config.ARTIFACT_KMS_KEY_ID ? { type: 'aws:kms', kmsKeyId: config.ARTIFACT_KMS_KEY_ID } : { type: 'AES256' },
  }),
  clock: { now: () => Date.now() },
  logger,
  secret,
  botLogin: `${config.GITHUB_APP_SLUG}[bot]`,
});

export const handler = withInvocationLogging((event: APIGatewayProxyEventV2, _context: Context): Promise<APIGatewayProxyStructuredResultV2> => handle(event));
