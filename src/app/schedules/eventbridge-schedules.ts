import {
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  GetScheduleCommand,
  ListSchedulesCommand,
  ResourceNotFoundException,
  UpdateScheduleCommand,
  type SchedulerClient,
} from '@aws-sdk/client-scheduler';
import { eventBridgeCron } from '../../core/policy/agent-schedules.js';
import { ScheduleFire, type ScheduleBackend } from './schedule-backend.js';

export interface EventBridgeSchedulesOptions {
  client: Pick<SchedulerClient, 'send'>;
  /** The stack's schedule group: the sync role may touch schedules in it only. */
  groupName: string;
  /** The schedule-fire function. */
  targetArn: string;
  /** The role EventBridge Scheduler assumes to invoke it (lambda:InvokeFunction on that function only). */
  roleArn: string;
}

/** The placeholder EventBridge Scheduler replaces with the time the schedule was due. */
const SCHEDULED_TIME = '<aws.scheduler.scheduled-time>';

/**
 * The deployed backend: one schedule per entry in the stack's group, cron in UTC, no flexible
 * window (a run an hour is the limit, not a target), its input the entry's `ScheduleFire`.
 */
export function eventBridgeSchedules(options: EventBridgeSchedulesOptions): ScheduleBackend {
  const { client, groupName } = options;
  const definition = (name: string, fire: ScheduleFire) => ({
    Name: name,
    GroupName: groupName,
    ScheduleExpression: eventBridgeCron(fire.cron),
    ScheduleExpressionTimezone: 'UTC',
    State: 'ENABLED' as const,
    FlexibleTimeWindow: { Mode: 'OFF' as const },
    Target: { Arn: options.targetArn, RoleArn: options.roleArn, Input: JSON.stringify({ ...fire, scheduledTime: SCHEDULED_TIME }) },
  });
  return {
    async list(prefix) {
      const names: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(new ListSchedulesCommand({ GroupName: groupName, NamePrefix: prefix, NextToken: token }));
        names.push(...(page.Schedules ?? []).flatMap((s) => (s.Name ? [s.Name] : [])));
        token = page.NextToken;
      } while (token);
      return names;
    },
    async get(name) {
      try {
        const found = await client.send(new GetScheduleCommand({ Name: name, GroupName: groupName }));
        const parsed = ScheduleFire.safeParse(JSON.parse(found.Target?.Input ?? 'null'));
        // A schedule whose input is not ours (or whose expression drifted) reads as needing a rewrite.
        if (!parsed.success || found.ScheduleExpression !== eventBridgeCron(parsed.data.cron)) return undefined;
        const { scheduledTime: _due, ...fire } = parsed.data;
        return fire;
      } catch (error) {
        if (error instanceof ResourceNotFoundException) return undefined;
        throw error;
      }
    },
    async put(name, fire) {
      try {
        await client.send(new CreateScheduleCommand(definition(name, fire)));
        return 'created';
      } catch (error) {
        if (!(error instanceof ConflictException)) throw error;
        await client.send(new UpdateScheduleCommand(definition(name, fire)));
        return 'updated';
      }
    },
    async remove(name) {
      try {
        await client.send(new DeleteScheduleCommand({ Name: name, GroupName: groupName }));
      } catch (error) {
        if (!(error instanceof ResourceNotFoundException)) throw error;
      }
    },
  };
}
