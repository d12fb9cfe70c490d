import { LambdaClient } from '@aws-sdk/client-lambda';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import type { Context } from 'aws-lambda';
import type { ArtifactStore } from '../core/ports.js';
import { withInvocationLogging } from '../app/aws/lambda-logging.js';
import { readConfig } from '../app/config.js';
import { readRoleDeps } from '../app/aws/read-role-deps.js';
import { JsonLogger } from '../app/logger.js';
import { eventBridgeSchedules } from '../app/schedules/eventbridge-schedules.js';
import { ScheduleSyncRequest, syncSchedules } from '../app/schedules/schedule-sync.js';

/**
 * schedule-sync: invoked asynchronously by the intake when `.agent-policy.yaml` changed on a
 * default branch, or the App was uninstalled. Reads the policy itself (token-read) and makes
 * the repository's EventBridge schedules match it. It holds the Scheduler permissions (its
 * group only) and passes SchedulerInvokeRole; it has no bucket access at all.
 */
const config = readConfig(process.env);
if (!config.TOKEN_READ_FUNCTION || !config.SCHEDULE_GROUP || !config.SCHEDULE_FIRE_ARN || !config.SCHEDULER_ROLE_ARN)
  throw new Error('TOKEN_READ_FUNCTION, SCHEDULE_GROUP, SCHEDULE_FIRE_ARN and SCHEDULER_ROLE_ARN are required');
const logger = new JsonLogger({ level: config.LOG_LEVEL, bindings: { fn: 'scheduleSync' } });
const refuse = (): Promise<never> => Promise.reject(new Error('schedule-sync has no store'));
// The sync reads and writes no run state: its role has no bucket access, and its store refuses.
const noStore: ArtifactStore = { get: refuse, put: refuse, putIfAbsent: refuse, putIfMatch: refuse, delete: refuse, list: refuse };
const deps = {
  store: noStore,
  ...readRoleDeps({ ...config, TOKEN_READ_FUNCTION: config.TOKEN_READ_FUNCTION }, new LambdaClient({}), logger),
  schedules: eventBridgeSchedules({
    client: new SchedulerClient({}),
    groupName: config.SCHEDULE_GROUP,
    targetArn: config.SCHEDULE_FIRE_ARN,
    roleArn: config.SCHEDULER_ROLE_ARN,
  }),
};

export const handler = withInvocationLogging(async (event: unknown, _context: Context) => syncSchedules(deps, ScheduleSyncRequest.parse(event)));
