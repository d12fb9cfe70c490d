import * as scheduler from '@aws-sdk/client-scheduler';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkShape, matchOperation, operationShapes, restInput } from './aws-model/model-check.js';

/**
 * Amazon EventBridge Scheduler on loopback: the REST-JSON protocol the real
 * `@aws-sdk/client-scheduler` speaks, for CreateSchedule, UpdateSchedule, GetSchedule,
 * DeleteSchedule and ListSchedules. Routes come from the operations' HTTP bindings in the SDK's
 * model, and every request and response is checked against the model's shapes
 * (test/helpers/aws-model/model-check.ts); a mismatch is recorded in `violations` and answered
 * 400. `fire` does what the service does when a schedule's time comes: the target's input, with
 * `<aws.scheduler.scheduled-time>` replaced.
 */
export interface SchedulerStandin {
  url: string;
  violations: string[];
  /** Every call, in order: operation and schedule name. */
  calls: { operation: string; name?: string }[];
  /** The schedules now, by name. */
  schedules(): Map<string, StoredSchedule>;
  /** The target of schedule `name` as it would be invoked at `scheduledTime`. */
  fire(name: string, scheduledTime: string): { arn: string; roleArn: string; input: unknown };
  close(): Promise<void>;
}

export interface StoredSchedule {
  Name: string;
  GroupName: string;
  ScheduleExpression: string;
  ScheduleExpressionTimezone?: string;
  State?: string;
  Target: { Arn: string; RoleArn: string; Input?: string };
  FlexibleTimeWindow: { Mode: string; MaximumWindowInMinutes?: number };
  CreationDate: number;
  LastModificationDate: number;
}

const OPERATIONS = ['CreateSchedule', 'UpdateSchedule', 'GetSchedule', 'DeleteSchedule', 'ListSchedules'] as const;
const REGION = 'us-east-1';
const ACCOUNT = '123456789012';

class ServiceError extends Error {
  constructor(
    readonly type: string,
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

export async function startSchedulerStandin(options: { clock?: () => number } = {}): Promise<SchedulerStandin> {
  const now = () => (options.clock ?? Date.now)() / 1000;
  const schedules = new Map<string, StoredSchedule>();
  const violations: string[] = [];
  const calls: { operation: string; name?: string }[] = [];
  const arnOf = (group: string, name: string) => `arn:aws:scheduler:${REGION}:${ACCOUNT}:schedule/${group}/${name}`;
  const key = (group: string, name: string) => `${group}/${name}`;
  const found = (group: string, name: string) => {
    const s = schedules.get(key(group, name));
    if (!s) throw new ServiceError('ResourceNotFoundException', 404, `Schedule ${name} does not exist.`);
    return s;
  };

  const operations: Record<(typeof OPERATIONS)[number], (input: Record<string, unknown>) => unknown> = {
    CreateSchedule(input) {
      const group = (input.GroupName as string | undefined) ?? 'default';
      const name = input.Name as string;
      if (schedules.has(key(group, name))) throw new ServiceError('ConflictException', 409, `Schedule ${name} already exists.`);
      const stamp = now();
      schedules.set(key(group, name), { ...(input as unknown as StoredSchedule), GroupName: group, CreationDate: stamp, LastModificationDate: stamp });
      return { ScheduleArn: arnOf(group, name) };
    },
    UpdateSchedule(input) {
      const group = (input.GroupName as string | undefined) ?? 'default';
      const name = input.Name as string;
      const before = found(group, name);
      schedules.set(key(group, name), {
        ...(input as unknown as StoredSchedule),
        GroupName: group,
        CreationDate: before.CreationDate,
        LastModificationDate: now(),
      });
      return { ScheduleArn: arnOf(group, name) };
    },
    GetSchedule(input) {
      const group = (input.GroupName as string | undefined) ?? 'default';
      const s = found(group, input.Name as string);
      const { ClientToken: _token, ...rest } = s as StoredSchedule & { ClientToken?: string };
      return { ...rest, Arn: arnOf(group, s.Name) };
    },
    DeleteSchedule(input) {
      const group = (input.GroupName as string | undefined) ?? 'default';
      found(group, input.Name as string);
      schedules.delete(key(group, input.Name as string));
      return {};
    },
    ListSchedules(input) {
      const group = input.GroupName as string | undefined;
      const prefix = (input.NamePrefix as string | undefined) ?? '';
      const list = [...schedules.values()]
        .filter((s) => (group === undefined || s.GroupName === group) && s.Name.startsWith(prefix))
        .sort((a, b) => (a.Name < b.Name ? -1 : 1))
        .map((s) => ({
          Arn: arnOf(s.GroupName, s.Name),
          Name: s.Name,
          GroupName: s.GroupName,
          State: s.State ?? 'ENABLED',
          CreationDate: s.CreationDate,
          LastModificationDate: s.LastModificationDate,
          Target: { Arn: s.Target.Arn },
        }));
      return { Schedules: list };
    },
  };

  const server: Server = createServer((req, res) => {
    const answer = (status: number, body: unknown, errorType?: string) => {
      res.writeHead(status, { 'content-type': 'application/json', ...(errorType ? { 'x-amzn-errortype': errorType } : {}) });
      res.end(JSON.stringify(body));
    };
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://standin');
      const matched = matchOperation(scheduler, OPERATIONS, req.method ?? 'GET', url.pathname);
      if (!matched) {
        violations.push(`no operation for ${req.method} ${url.pathname}`);
        return answer(404, { Message: 'unknown operation' }, 'UnknownOperationException');
      }
      const { operation, labels } = matched;
      const shapes = operationShapes(scheduler, operation);
      const { input, errors } = restInput(shapes.input, { labels, query: url.searchParams, body: await readBody(req) });
      const inputErrors = [...errors, ...checkShape(shapes.input, input)];
      calls.push({ operation, name: input.Name as string | undefined });
      if (inputErrors.length > 0) {
        violations.push(...inputErrors.map((e) => `${operation} request ${e}`));
        return answer(400, { Message: inputErrors.join('; ') }, 'ValidationException');
      }
      try {
        const output = operations[operation as (typeof OPERATIONS)[number]](input);
        violations.push(...checkShape(shapes.output, output).map((e) => `${operation} response ${e}`));
        answer(shapes.http?.code ?? 200, output);
      } catch (error) {
        if (error instanceof ServiceError) return answer(error.status, { Message: error.message }, error.type);
        throw error;
      }
    })().catch((error: unknown) => answer(500, { Message: String(error) }, 'InternalServerException'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    violations,
    calls,
    schedules: () => new Map([...schedules.values()].map((s) => [s.Name, s])),
    fire(name, scheduledTime) {
      const s = [...schedules.values()].find((x) => x.Name === name);
      if (!s) throw new Error(`no schedule ${name}`);
      const text = (s.Target.Input ?? '{}').replaceAll('<aws.scheduler.scheduled-time>', scheduledTime);
      return { arn: s.Target.Arn, roleArn: s.Target.RoleArn, input: JSON.parse(text) };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
