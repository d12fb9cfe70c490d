import { LambdaClient } from '@aws-sdk/client-lambda';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { sqsWake } from '../app/aws/sqs-wake.js';
import { withInvocationLogging } from '../app/aws/lambda-logging.js';
import type { Context } from 'aws-lambda';
import { S3ArtifactStore } from '../app/aws/s3-artifact-store.js';
import { readConfig } from '../app/config.js';
import { sweepOpenAgentPullRequests } from '../app/publisher/ci-feedback.js';
import { createGitHubApi } from '../app/github/github-api.js';
import { LambdaTokenBroker } from '../app/tokens/lambda-token-broker.js';
import { JsonLogger } from '../app/logger.js';
import { sweep, type SweepReport } from '../app/sweeper/sweep.js';

/**
 * sweeper: scheduled (every 15 minutes). Releases expired issue locks, fails stuck runs and
 * polls CI of open agent pull requests; wakes the run queue's admission pass while runs wait.
 * Tokens come from token-read only.
 */
const config = readConfig(process.env);
if (!config.TOKEN_READ_FUNCTION) throw new Error('invalid configuration: TOKEN_READ_FUNCTION is required by the sweeper');
const clock = { now: () => Date.now() };
const logger = new JsonLogger({ level: config.LOG_LEVEL, bindings: { fn: 'sweeper' } });
const store = new S3ArtifactStore({ client: new S3Client({ maxAttempts: 1 }), bucket: config.ARTIFACT_BUCKET });
const tokens = new LambdaTokenBroker({ client: new LambdaClient({}), functionName: config.TOKEN_READ_FUNCTION, role: 'read' });
const github = (token: string) => createGitHubApi({ token, baseUrl: config.GITHUB_API_URL, logger });

export const handler = withInvocationLogging(async (_event: unknown, _context: Context): Promise<Omit<SweepReport, 'problems'> & { problems: number }> => {
  const report = await sweep({
    store,
    tokens,
    github,
    clock,
    logger,
    botLogin: `${config.GITHUB_APP_SLUG}[bot]`,
    wake: config.RUN_QUEUE_URL ? sqsWake(new SQSClient({}), config.RUN_QUEUE_URL) : undefined,
    pollCi: (repositories) => sweepOpenAgentPullRequests({ store, tokens, github, clock, logger }, repositories),
  });
  return { ...report, problems: report.problems.length };
});
