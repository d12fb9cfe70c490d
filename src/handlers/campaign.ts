import { LambdaClient } from '@aws-sdk/client-lambda';
import type { Context } from 'aws-lambda';
import { withInvocationLogging } from '../app/aws/lambda-logging.js';
import { artifactBucket, readRoleDeps } from '../app/aws/read-role-deps.js';
import { createCampaignHandler } from '../app/campaign/campaign-function.js';
import { lambdaRepositoryLister, lambdaRepositoryResolver } from '../app/campaign/lambda-repository-resolver.js';
import { readConfig } from '../app/config.js';
import { JsonLogger } from '../app/logger.js';

/**
 * campaign: the task states of the campaign state machine (docs/campaigns.md), invoked
 * synchronously by Step Functions. It may invoke token-read only.
 */
const config = readConfig(process.env);
if (!config.TOKEN_READ_FUNCTION) throw new Error('TOKEN_READ_FUNCTION is required');
const logger = new JsonLogger({ level: config.LOG_LEVEL, bindings: { fn: 'campaign' } });
const lambda = new LambdaClient({});
const campaign = createCampaignHandler({
  store: artifactBucket(config),
  ...readRoleDeps({ ...config, TOKEN_READ_FUNCTION: config.TOKEN_READ_FUNCTION }, lambda, logger),
  // The admission pass that starts its runs counts the same worker slots as the intake's.
  workerSlots: config.WORKER_CONCURRENCY,
  // A target may be in another installation of the App (docs/campaigns.md, "Which installation").
  repositories: lambdaRepositoryResolver(lambda, config.TOKEN_READ_FUNCTION, { anyInstallation: true }),
  listing: lambdaRepositoryLister(lambda, config.TOKEN_READ_FUNCTION),
});

export const handler = withInvocationLogging(async (event: unknown, _context: Context) => campaign(event));
