import { LambdaClient } from '@aws-sdk/client-lambda';
import { S3Client } from '@aws-sdk/client-s3';
import { withInvocationLogging } from '../app/aws/lambda-logging.js';
import type { Context } from 'aws-lambda';
import { S3ArtifactStore } from '../app/aws/s3-artifact-store.js';
import { readConfig } from '../app/config.js';
import { createGitHubApi } from '../app/github/github-api.js';
import { LambdaTokenBroker } from '../app/tokens/lambda-token-broker.js';
import { createPublisherHandler } from '../app/publisher/create-publisher-handler.js';
import { JsonLogger } from '../app/logger.js';

/**
 * publisher: S3 ObjectCreated for `candidate/pr-candidate.json` and `ci/*.json`.
 * The only function that may invoke token-write; it never runs repository content or a model.
 */
const config = readConfig(process.env);
if (!config.TOKEN_WRITE_FUNCTION) throw new Error('invalid configuration: TOKEN_WRITE_FUNCTION is required by the publisher');
const clock = { now: () => Date.now() };
const logger = new JsonLogger({ level: config.LOG_LEVEL, clock, bindings: { fn: 'publisher' } });

const handle = createPublisherHandler({
  store: new S3ArtifactStore({
    client: new S3Client({ maxAttempts: 1 }),
    bucket: config.ARTIFACT_BUCKET,
    sse: config.ARTIFACT_KMS_KEY_ID ? { type: 'aws:kms', kmsKeyId: config.ARTIFACT_KMS_KEY_ID } : { type: 'AES256' },
  }),
  tokens: new LambdaTokenBroker({ client: new LambdaClient({}), functionName: config.TOKEN_WRITE_FUNCTION, role: 'write' }),
  github: (token) => {
    logger.redact(token);
    return createGitHubApi({ token, baseUrl: config.GITHUB_API_URL, logger });
  },
  clock,
  logger,
  botLogin: `${config.GITHUB_APP_SLUG}[bot]`,
});

export const handler = withInvocationLogging((event: unknown, _context: Context) => handle(event));
