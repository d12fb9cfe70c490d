import { LambdaClient } from '@aws-sdk/client-lambda';
import type { Context } from 'aws-lambda';
import { withInvocationLogging } from '../app/aws/lambda-logging.js';
import { artifactBucket, readRoleDeps } from '../app/aws/read-role-deps.js';
import { lambdaRepositoryResolver } from '../app/campaign/lambda-repository-resolver.js';
import { readConfig } from '../app/config.js';
import { JsonLogger } from '../app/logger.js';
import { ScheduleFire } from '../app/schedules/schedule-backend.js';
import { startScheduledRun } from '../app/schedules/scheduled-run.js';

/**
 * schedule-fire: invoked by EventBridge Scheduler (SchedulerInvokeRole) when a schedule is due.
 * Reads the policy again and starts an ordinary run through startRun, as the intake does; it may
 * invoke token-read only.
 */
const config = readConfig(process.env);
if (!config.TOKEN_READ_FUNCTION) throw new Error('TOKEN_READ_FUNCTION is required');
const logger = new JsonLogger({ level: config.LOG_LEVEL, bindings: { fn: 'scheduleFire' } });
const lambda = new LambdaClient({});
const deps = {
  store: artifactBucket(config),
  ...readRoleDeps({ ...config, TOKEN_READ_FUNCTION: config.TOKEN_READ_FUNCTION }, lambda, logger),
  // The admission pass that starts its runs counts the same worker slots as the intake's.
  workerSlots: config.WORKER_CONCURRENCY,
  repositories: lambdaRepositoryResolver(lambda, config.TOKEN_READ_FUNCTION),
};

export const handler = withInvocationLogging(async (event: unknown, _context: Context) => startScheduledRun(deps, ScheduleFire.parse(event)));
