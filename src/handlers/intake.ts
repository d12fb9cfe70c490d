import { LambdaClient } from '@aws-sdk/client-lambda';
import { S3Client } from '@aws-sdk/client-s3';
import type { Context } from 'aws-lambda';
import { withInvocationLogging } from '../app/aws/lambda-logging.js';
import { stepFunctionsLauncher } from '../app/campaign/campaign-launcher.js';
import { S3ArtifactStore } from '../app/aws/s3-artifact-store.js';
import { readConfig } from '../app/config.js';
import { createGitHubApi } from '../app/github/github-api.js';
import { JsonLogger } from '../app/logger.js';
import { LambdaTokenBroker } from '../app/tokens/lambda-token-broker.js';
import { createIntakeHandler } from '../app/webhook/create-intake-handler.js';
import { lambdaScheduleSync } from '../app/schedules/schedule-sync.js';

/**
 * intake: S3 ObjectCreated for deliveries/<id>.json (written by the webhook) -> the trigger
 * decisions (policy, permission, lock, progress comment) -> the run queue -> request.json when
 * the limits and the workers allow. Asynchronous, after the webhook's 202; it may invoke
 * token-read and, asynchronously, schedule-sync only.
 */
const config = readConfig(process.env);
if (!config.TOKEN_READ_FUNCTION) throw new Error('TOKEN_READ_FUNCTION is required');
const logger = new JsonLogger({ level: config.LOG_LEVEL, bindings: { fn: 'intake' } });
const lambda = new LambdaClient({});
const intake = await createIntakeHandler({
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
  appId: config.GITHUB_APP_ID,
  botLogin: `${config.GITHUB_APP_SLUG}[bot]`,
  apiUrl: config.GITHUB_API_URL,
  workerSlots: config.WORKER_CONCURRENCY,
  campaigns: config.CAMPAIGN_STATE_MACHINE_ARN ? stepFunctionsLauncher({ stateMachineArn: config.CAMPAIGN_STATE_MACHINE_ARN }) : undefined,
  schedules: config.SCHEDULE_SYNC_FUNCTION ? lambdaScheduleSync(lambda, config.SCHEDULE_SYNC_FUNCTION) : undefined,
});

export const handler = withInvocationLogging(async (event: unknown, _context: Context): Promise<void> => {
  await intake.handle(event);
});
