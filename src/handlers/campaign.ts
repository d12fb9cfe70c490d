import { LambdaClient } from '@aws-sdk/client-lambda';
import { S3Client } from '@aws-sdk/client-s3';
import type { Context } from 'aws-lambda';
import { withInvocationLogging } from '../app/aws/lambda-logging.js';
import { S3ArtifactStore } from '../app/aws/s3-artifact-store.js';
import { createCampaignHandler } from '../app/campaign/campaign-function.js';
import { lambdaRepositoryLister, lambdaRepositoryResolver } from '../app/campaign/lambda-repository-resolver.js';
import { readConfig } from '../app/config.js';
import { createGitHubApi } from '../app/github/github-api.js';
import { JsonLogger } from '../app/logger.js';
import { LambdaTokenBroker } from '../app/tokens/lambda-token-broker.js';

/**
 * campaign: the task states of the campaign state machine (docs/campaigns.md), invoked
 * synchronously by Step Functions. It may invoke token-read only.
 */
const config = readConfig(process.env);
if (!config.TOKEN_READ_FUNCTION) throw new Error('TOKEN_READ_FUNCTION is required');
const logger = new JsonLogger({ level: config.LOG_LEVEL, bindings: { fn: 'campaign' } });
const lambda = new LambdaClient({});
const campaign = createCampaignHandler({
  store: new S3ArtifactStore({
    client: new S3Client({ maxAttempts: 1 }),
    bucket: config.ARTIFACT_BUCKET,
    sse: config.ARTIFACT_KMS_KEY_ID ? { type: 'aws:kms', kmsKeyId: config.ARTIFACT_KMS_KEY_ID } : { type: 'AES256' },
  }),
  tokens: new LambdaTokenBroker({ client: lambda, functionName: config.TOKEN_READ_FUNCTION, role: 'read' }),
  github: (token) => {
    logger.redact(token);
    return createGitHubApi({ token, baseUrl: config.GITHUB_API_URL, logger });
  },
  clock: { now: () => Date.now() },
  logger,
  botLogin: `${config.GITHUB_APP_SLUG}[bot]`,
  apiUrl: config.GITHUB_API_URL,
  // The admission pass that starts its runs counts the same worker slots as the intake's.
  workerSlots: config.WORKER_CONCURRENCY,
  repositories: lambdaRepositoryResolver(lambda, config.TOKEN_READ_FUNCTION),
  listing: lambdaRepositoryLister(lambda, config.TOKEN_READ_FUNCTION),
});

export const handler = withInvocationLogging(async (event: unknown, _context: Context) => campaign(event));
