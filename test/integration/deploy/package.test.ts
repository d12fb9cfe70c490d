import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PublisherS3Event } from '../../../src/app/publisher/create-publisher-handler.js';
import { buildEmf, METRIC_NAMESPACE, type MetricSpec } from '../../../src/app/metrics/emf.js';
import {
  attemptEndMetric,
  attemptStartMetric,
  phaseMetric,
  publishMetric,
  RUN_OUTCOME_EVENTS,
  runOutcomeMetric,
  sweepMetric,
} from '../../../src/app/metrics/run-metrics.js';
import { PHASE_NAMES } from '../../../src/core/phases/phase-contracts.js';
import { PUBLISH_REASONS } from '../../../src/core/publish/publish-error.js';
import { RUN_STATUSES } from '../../../src/core/runs/run-status.js';
import { buildSessionPolicy, sessionTags, type RunScope } from '../../../src/app/dispatch/session-policy.js';
import { buildSessionPolicy as verifyBuildSessionPolicy } from '../../../src/app/verifier/build-session-policy.js';
import { deliveryKey, issueLatestKey, lockKey, runKeys } from '../../../src/core/artifacts/keys.js';
import { campaignKeys } from '../../../src/core/artifacts/campaign-keys.js';
import { applyConditions, conditionEvaluator } from '../../helpers/cfn-conditions.js';
import { evaluate, type Decision, type Statement } from '../../helpers/iam-policy.js';

/**
 * Packages serverless.yml with osls, offline (no AWS credentials, HOME in a temp directory),
 * into a temp directory, and checks the generated CloudFormation: functions, triggers, async
 * settings, the bucket, and that each role grants exactly the table below (the storage contract plus the
 * additions documented in infra/roles.yml) and nothing else.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const OSLS = join(ROOT, 'node_modules', 'osls', 'bin', 'serverless.js');
const STAGE = 'prod';
const REGION = 'eu-west-1';
const ACCOUNT = '123456789012';
const BUCKET = `draftsman-${STAGE}-artifacts-${ACCOUNT}-${REGION}`;
const BUCKET_ARN = `arn:aws:s3:::${BUCKET}`;

type Json = any; // CloudFormation is untyped JSON

const RUN = 'runs/${aws:PrincipalTag/owner}/${aws:PrincipalTag/repo}/${aws:PrincipalTag/runId}';
const REPO = '${aws:PrincipalTag/owner}/${aws:PrincipalTag/repo}';
const TRAIL = 'trail/${aws:PrincipalTag/owner}/${aws:PrincipalTag/repo}/${aws:PrincipalTag/runId}';
const ISSUE = '${aws:PrincipalTag/issue}';
const DIGEST = '${aws:PrincipalTag/digest}';
/** A build's digest (sha256 hex), as the worker's runner computes one. */
const DIGEST_HEX = 'd'.repeat(64);

interface Grants {
  get: string[];
  put: string[];
  del: string[];
  list: string[];
  invoke: string[];
  secrets: string[];
  dlq: boolean;
  /** Roles a function may assume (by name suffix), with session tags. */
  assume?: string[];
  /** Explicit denies: `<actions>|<key pattern>` (`*` for a deny on every resource). */
  deny?: string[];
  /** CodeBuild actions: `<action>|<project name>`. */
  builds?: string[];
  /** EC2 actions (the verification project's network interfaces), checked in detail below. */
  network?: string[];
  /** Step Functions actions: `<action>|<resource>`. */
  states?: string[];
  /** EventBridge Scheduler actions: `<action>|<resource>`. */
  scheduler?: string[];
  /** Roles a function may pass to a service: `<role>|<service>`. */
  passRole?: string[];
  /** The run queue's wake-up queue (infra/run-queue.yml): `send` a wake-up, or `receive` them (the dispatcher's SQS event source). */
  wake?: ('send' | 'receive')[];
}

/** What each role may do. S3 patterns are object-key patterns under the bucket, as in the ARNs. */
const ALLOWED: Record<string, Grants> = {
  // The webhook verifies and stores the delivery, nothing else.
  WebhookRole: { get: [], put: ['deliveries/*'], del: [], list: [], invoke: [], secrets: ['webhook-secret'], dlq: false },
  IntakeRole: {
    get: [
      'deliveries/*',
      'runs/*/run.json',
      'runs/*/request.json',
      'runs/*/control/*',
      'locks/*',
      'limits/*',
      'issues/*',
      'runs/*/publish.json',
      'intakes/*',
      'campaigns/*',
      'installations/*',
      'queue/*',
    ],
    put: [
      'runs/*/request.json',
      'runs/*/control/*',
      'runs/*/ci/*',
      'locks/*',
      'limits/*',
      'issues/*',
      'intakes/*',
      'campaigns/*/campaign.json',
      'campaigns/*/closed.json',
      'campaigns/*/paused.json',
      'campaigns/*/close-requests/*',
      'campaigns/*/refreshes/*',
      'installations/*',
      'queue/*',
    ],
    // The run queue: an entry leaves it when its run starts or is cancelled; slots taken for a run that did not start go back.
    del: ['locks/*', 'intakes/*', 'campaigns/*/paused.json', 'queue/*', 'limits/*'],
    list: ['limits/*', 'locks/*', 'issues/*', 'runs/*/ci/*', 'runs/*/control/follow-up-repair-*', 'runs/*/attempts/', 'campaigns/*', 'queue/*'],
    // token-read, and schedule-sync when a default branch's policy changed or the App was uninstalled.
    invoke: ['tokenRead', 'scheduleSync'],
    secrets: [],
    dlq: true,
    // The campaign's fan-out, started once under the campaign id.
    states: ['states:StartExecution|REF:CampaignStateMachine'],
  },
  // The campaign state machine's task states: its own items, slots and tracking record; the intake's run-start path; never the campaign record.
  CampaignRole: {
    get: ['campaigns/*', 'runs/*/run.json', 'runs/*/request.json', 'runs/*/control/*', 'locks/*', 'limits/*', 'intakes/*', 'queue/*'],
    put: [
      'campaigns/*/items/*',
      'campaigns/*/slots/*',
      'campaigns/*/tracking.json',
      'campaigns/*/pull-states.json',
      'runs/*/request.json',
      'locks/*',
      'limits/*',
      'issues/*',
      'intakes/*',
      'queue/*',
    ],
    del: ['locks/*', 'intakes/*', 'queue/*', 'limits/*'],
    list: ['campaigns/*/items/*', 'campaigns/*/slots/*', 'limits/*', 'queue/*'],
    invoke: ['tokenRead'],
    secrets: [],
    dlq: false,
  },
  // The state machine itself: the campaign function, and the Distributed Map's child executions of its own machine.
  CampaignStatesRole: {
    get: [],
    put: [],
    del: [],
    list: [],
    invoke: ['campaign', 'campaign:*'],
    secrets: [],
    dlq: false,
    states: [
      `states:StartExecution|arn:aws:states:${REGION}:${ACCOUNT}:stateMachine:draftsman-${STAGE}-campaign`,
      `states:DescribeExecution|arn:aws:states:${REGION}:${ACCOUNT}:execution:draftsman-${STAGE}-campaign/*`,
      `states:StopExecution|arn:aws:states:${REGION}:${ACCOUNT}:execution:draftsman-${STAGE}-campaign/*`,
    ],
  },
  // The schedule sync: the stack's schedule group only, SchedulerInvokeRole passed to the Scheduler only, no bucket access.
  ScheduleSyncRole: {
    get: [],
    put: [],
    del: [],
    list: [],
    invoke: ['tokenRead'],
    secrets: [],
    dlq: true,
    scheduler: [
      ...['CreateSchedule', 'UpdateSchedule', 'GetSchedule', 'DeleteSchedule'].map(
        (a) => `scheduler:${a}|arn:aws:scheduler:${REGION}:${ACCOUNT}:schedule/draftsman-${STAGE}/*`,
      ),
      // ListSchedules has no resource-level permission in IAM.
      'scheduler:ListSchedules|*',
    ],
    passRole: ['GETATT:SchedulerInvokeRole.Arn|scheduler.amazonaws.com'],
  },
  // What the Scheduler assumes to fire a schedule: schedule-fire, nothing else.
  SchedulerInvokeRole: { get: [], put: [], del: [], list: [], invoke: ['scheduleFire'], secrets: [], dlq: false },
  // A due schedule: the intake's run-start path (intake record, lock, limits, issue pointer, the run queue, request.json).
  ScheduleFireRole: {
    // The admission pass reads a run's record (does it still hold a worker?) and its cancel marker.
    get: ['runs/*/request.json', 'runs/*/run.json', 'runs/*/control/*', 'locks/*', 'limits/*', 'intakes/*', 'queue/*'],
    put: ['runs/*/request.json', 'locks/*', 'limits/*', 'issues/*', 'intakes/*', 'queue/*'],
    del: ['locks/*', 'intakes/*', 'queue/*', 'limits/*'],
    list: ['limits/*', 'queue/*'],
    invoke: ['tokenRead'],
    secrets: [],
    dlq: false,
  },
  // Also the run queue's admission pass (woken through its own SQS queue): it takes slots, renews waiting runs' locks and writes an admitted run's request.json.
  DispatcherRole: {
    get: [
      'runs/*/request.json',
      'runs/*/control/*',
      'runs/*/publish.json',
      'runs/*/dispatch/*',
      'runs/*/verify/*/result.json',
      'runs/*/run.json',
      'queue/*',
      'limits/*',
      'locks/*',
    ],
    put: ['runs/*/dispatch/*', 'runs/*/request.json', 'queue/*', 'limits/*', 'locks/*'],
    del: ['queue/*', 'limits/*'],
    list: ['runs/*/dispatch/*', 'queue/*', 'limits/*'],
    invoke: ['worker', 'tokenRead'],
    secrets: [],
    dlq: true,
    wake: ['receive'],
  },
  RunSessionRole: {
    get: ['runs/*/request.json', 'runs/*/dispatch/*'],
    put: [],
    del: [],
    list: ['runs/*/dispatch/*'],
    invoke: ['tokenRead'],
    secrets: [],
    dlq: false,
    assume: ['runWorker'],
  },
  // The worker runs on untrusted input: no bucket access, no token function, no secret; run-session and model-call.
  WorkerRole: { get: [], put: [], del: [], list: [], invoke: ['runSession', 'modelCall'], secrets: [], dlq: true },
  // The model key's only holder and the spend records' only writer: a run's request (its installation), spend/* and runs/*/spend.json.
  ModelCallRole: {
    get: ['runs/*/request.json', 'spend/*', 'runs/*/spend.json'],
    put: ['spend/*', 'runs/*/spend.json', 'trail/*/spend/*'],
    del: [],
    list: [],
    invoke: [],
    secrets: ['model-api-key'],
    dlq: false,
  },
  // What a worker session may do, every key spelled from the session's tags.
  RunWorkerRole: {
    get: [
      `${RUN}/request.json`,
      `${RUN}/run.json`,
      `${RUN}/control/*`,
      `${RUN}/attempts/*`,
      `${RUN}/candidate/*`,
      `${RUN}/verify/*`,
      `${TRAIL}/*`,
      `${RUN}/spend.json`,
      `maps/${REPO}/*`,
      `locks/${REPO}/issues/${ISSUE}.json`,
    ],
    put: [`${RUN}/attempts/*`, `${RUN}/candidate/*`, `${RUN}/run.json`, `${TRAIL}/*`, `issues/${REPO}/${ISSUE}/latest.json`, `maps/${REPO}/*`],
    del: [],
    list: [`${RUN}/attempts/*`, `${TRAIL}/*`, `maps/${REPO}/*`],
    invoke: [],
    secrets: [],
    dlq: false,
    deny: [
      's3:DeleteObject,s3:PutObject|runs/*/attempts/*/request.json',
      's3:DeleteObject,s3:GetObject,s3:PutObject|runs/*/dispatch/*',
      `s3:DeleteObject,s3:PutObject|${RUN}/verify/*`,
      's3:DeleteObject,s3:PutObject|trail/*/spend/*',
      'codebuild:*|*',
    ],
  },
  // The verifier: admits a worker's build request, starts the build, writes the trusted result.
  VerifierRole: {
    get: ['runs/*/request.json', 'runs/*/control/*', 'runs/*/attempts/*/verify/*', 'runs/*/verify/*'],
    put: ['runs/*/verify/*/source.zip', 'runs/*/verify/*/started.json', 'runs/*/verify/*/result.json', 'runs/*/verify/attempt-*.json'],
    del: [],
    list: ['runs/*/verify/*'],
    invoke: [],
    secrets: [],
    dlq: true,
    assume: ['verifyBuild'],
    deny: ['s3:DeleteObject,s3:PutObject|runs/*/verify/*/build/*'],
    builds: ['codebuild:BatchGetBuilds|verify', 'codebuild:StartBuild|verify'],
  },
  // One build's session: its archive, its build/ prefix, every key spelled from the tags.
  VerifyBuildRole: {
    get: [`${RUN}/verify/${DIGEST}/source.zip`],
    put: [`${RUN}/verify/${DIGEST}/build/*`],
    del: [],
    list: [],
    invoke: [],
    secrets: [],
    dlq: false,
  },
  // The verification project's service role: its network interfaces, nothing of the bucket.
  VerifyProjectRole: {
    get: [],
    put: [],
    del: [],
    list: [],
    invoke: [],
    secrets: [],
    dlq: false,
    network: [
      'ec2:CreateNetworkInterface',
      'ec2:CreateNetworkInterfacePermission',
      'ec2:DeleteNetworkInterface',
      'ec2:DescribeDhcpOptions',
      'ec2:DescribeNetworkInterfaces',
      'ec2:DescribeSecurityGroups',
      'ec2:DescribeSubnets',
      'ec2:DescribeVpcs',
    ],
  },
  PublisherRole: {
    get: [
      'runs/*/candidate/*',
      'runs/*/ci/*',
      'runs/*/run.json',
      'runs/*/spend.json',
      'runs/*/request.json',
      'runs/*/publish.json',
      'runs/*/control/*',
      'locks/*',
      'issues/*',
      'runs/*/attempts/*/progress.json',
      'runs/*/attempts/*/approval-request.json',
      'runs/*/attempts/*/plan.json',
      // `/agent campaign close`: the record, the close request, the items and the closures.
      'campaigns/*',
    ],
    put: [
      'runs/*/control/gate-*',
      'runs/*/control/publish-retry.json',
      'runs/*/publish.json',
      'runs/*/run.json',
      'runs/*/attempts/*/request.json',
      'issues/*',
      'campaigns/*/closures/*',
    ],
    del: ['locks/*'],
    list: ['runs/*/ci/*', 'campaigns/*/items/*'],
    invoke: ['tokenWrite'],
    secrets: [],
    dlq: true,
  },
  TokenReadRole: { get: [], put: [], del: [], list: [], invoke: [], secrets: ['app-private-key'], dlq: false },
  TokenWriteRole: { get: [], put: [], del: [], list: [], invoke: [], secrets: ['app-private-key'], dlq: false },
  SweeperRole: {
    get: [
      'locks/*',
      'issues/*',
      'runs/*/request.json',
      'runs/*/run.json',
      'runs/*/publish.json',
      'runs/*/attempts/*/heartbeat.json',
      // A worker the dispatcher started that never beat.
      'runs/*/dispatch/*',
      'runs/*/ci/*',
      'runs/*/candidate/pr-candidate.json',
      'runs/*/control/publish-retry.json',
      'intakes/*',
      'queue/*',
    ],
    put: ['runs/*/run.json', 'runs/*/ci/*', 'runs/*/control/publish-retry.json'],
    del: ['locks/*', 'intakes/*'],
    list: ['locks/*', 'issues/*', 'runs/*/ci/*', 'runs/*/dispatch/*', 'intakes/*', 'queue/*'],
    wake: ['send'],
    invoke: ['tokenRead'],
    secrets: [],
    dlq: true,
  },
};

const FUNCTIONS: Record<string, { role: string; handler: string }> = {
  WebhookLambdaFunction: { role: 'WebhookRole', handler: 'src/handlers/webhook.handler' },
  IntakeLambdaFunction: { role: 'IntakeRole', handler: 'src/handlers/intake.handler' },
  DispatcherLambdaFunction: { role: 'DispatcherRole', handler: 'src/handlers/dispatcher.handler' },
  RunSessionLambdaFunction: { role: 'RunSessionRole', handler: 'src/handlers/run-session.handler' },
  WorkerLambdaFunction: { role: 'WorkerRole', handler: 'src/handlers/worker.handler' },
  ModelCallLambdaFunction: { role: 'ModelCallRole', handler: 'src/handlers/model-call.handler' },
  PublisherLambdaFunction: { role: 'PublisherRole', handler: 'src/handlers/publisher.handler' },
  TokenReadLambdaFunction: { role: 'TokenReadRole', handler: 'src/handlers/token-read.handler' },
  TokenWriteLambdaFunction: { role: 'TokenWriteRole', handler: 'src/handlers/token-write.handler' },
  SweeperLambdaFunction: { role: 'SweeperRole', handler: 'src/handlers/sweeper.handler' },
  VerifierLambdaFunction: { role: 'VerifierRole', handler: 'src/handlers/verifier.handler' },
  CampaignLambdaFunction: { role: 'CampaignRole', handler: 'src/handlers/campaign.handler' },
  ScheduleSyncLambdaFunction: { role: 'ScheduleSyncRole', handler: 'src/handlers/schedule-sync.handler' },
  ScheduleFireLambdaFunction: { role: 'ScheduleFireRole', handler: 'src/handlers/schedule-fire.handler' },
};

const WASM = ['tree-sitter.wasm', ...['java', 'typescript', 'tsx', 'javascript', 'python', 'go'].map((g) => `tree-sitter-${g}.wasm`)];

let out: string;
let home: string;
let scratch: string;
let template: Json;
let resources: Record<string, Json>;
let packagingMs = 0;

/** Resolve the intrinsics this template uses in IAM documents to plain strings. */
function resolve(value: Json): Json {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(resolve);
  if (value && typeof value === 'object') {
    if ('Fn::Sub' in value) {
      return String(value['Fn::Sub'])
        .replaceAll('${AWS::Partition}', 'aws')
        .replaceAll('${AWS::Region}', REGION)
        .replaceAll('${AWS::AccountId}', ACCOUNT)
        .replace(/\$\{(\w+)\}/g, (_, ref: string) => `REF:${ref}`)
        .replaceAll('${!', '${');
    }
    if ('Fn::GetAtt' in value) return `GETATT:${(value['Fn::GetAtt'] as string[]).join('.')}`;
    if ('Ref' in value) return `REF:${value.Ref as string}`;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v)]));
  }
  return value;
}

const asArray = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
const functionArn = (name: string) => `arn:aws:lambda:${REGION}:${ACCOUNT}:function:draftsman-${STAGE}-${name}`;
const parameterArn = (name: string) => `arn:aws:ssm:${REGION}:${ACCOUNT}:parameter/draftsman/${STAGE}/${name}`;

/** What a role's statements grant, gathered action by action for comparison with its table. */
interface SeenGrants {
  get: string[];
  put: string[];
  del: string[];
  list: string[];
  invoke: string[];
  secrets: string[];
  decrypt: string[];
  dlq: boolean;
  assume: string[];
  tag: string[];
  deny: string[];
  builds: string[];
  network: string[];
  states: string[];
  scheduler: string[];
  passRole: string[];
  wake: string[];
}

/** The schedule sync's grants: Scheduler actions by resource, and the role it may pass to which service. */
function recordScheduleAction(role: string, actions: string[], s: Json, resourcesOf: string[], seen: SeenGrants): void {
  if (actions[0] === 'iam:PassRole' && actions.length === 1) {
    expect(Object.keys(s.Condition)).toEqual(['StringEquals']);
    seen.passRole.push(...resourcesOf.map((r) => `${r}|${String(s.Condition.StringEquals['iam:PassedToService'])}`));
    return;
  }
  const known = ['CreateSchedule', 'UpdateSchedule', 'GetSchedule', 'DeleteSchedule', 'ListSchedules'].map((a) => `scheduler:${a}`);
  for (const a of actions) {
    if (!known.includes(a)) throw new Error(`${role}: unexpected action ${a}`);
    seen.scheduler.push(...resourcesOf.map((r) => `${a}|${r}`));
  }
}

/** The dead-letter queue (send only), or the run queue's wake-up queue: send, or receive with delete and attributes (Lambda's SQS event source). */
function recordSqs(actions: string[], resourcesOf: string[], seen: SeenGrants): void {
  expect(resourcesOf).toHaveLength(1);
  if (actions[0] === 'sqs:ReceiveMessage') {
    expect([...actions].sort()).toEqual(['sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:ReceiveMessage']);
    expect(resourcesOf).toEqual(['GETATT:RunQueueWake.Arn']);
    seen.wake.push('receive');
    return;
  }
  expect(actions).toEqual(['sqs:SendMessage']);
  if (resourcesOf[0] === 'GETATT:RunQueueWake.Arn') seen.wake.push('send');
  else expect(resourcesOf).toEqual(['GETATT:DeadLetterQueue.Arn']);
  if (resourcesOf[0] === 'GETATT:DeadLetterQueue.Arn') seen.dlq = true;
}

/** Checks the allowed action (`actions[0]`; the log actions come in pairs) of `role`'s statement `s` and records what it grants in `seen`. */
function recordAction(role: string, actions: string[], s: Json, resourcesOf: string[], objectKeys: () => string[], seen: SeenGrants): void {
  const action = actions[0];
  switch (action) {
    case 'logs:CreateLogStream':
    case 'logs:PutLogEvents':
      expect(actions.sort()).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents']);
      expect(resourcesOf).toHaveLength(1);
      expect(resourcesOf[0]).toMatch(new RegExp(`^arn:aws:logs:${REGION}:${ACCOUNT}:log-group:/aws/lambda/draftsman-${STAGE}-[A-Za-z]+:\\*$`));
      break;
    case 's3:GetObject':
      seen.get.push(...objectKeys());
      break;
    case 's3:PutObject':
      seen.put.push(...objectKeys());
      break;
    case 's3:DeleteObject':
      seen.del.push(...objectKeys());
      break;
    case 's3:ListBucket':
      expect(resourcesOf).toEqual([BUCKET_ARN]);
      expect(Object.keys(s.Condition)).toEqual(['StringLikeIfExists']);
      seen.list.push(...asArray<string>(s.Condition.StringLikeIfExists['s3:prefix']));
      break;
    case 'lambda:InvokeFunction':
      seen.invoke.push(...resourcesOf);
      break;
    case 'ssm:GetParameter':
      seen.secrets.push(...resourcesOf);
      break;
    case 'kms:Decrypt':
      expect(resourcesOf).toEqual(['GETATT:SecretsKey.Arn']);
      expect(s.Condition.StringEquals['kms:ViaService']).toBe(`ssm.${REGION}.amazonaws.com`);
      seen.decrypt.push(...asArray<string>(s.Condition.StringLike['kms:EncryptionContext:PARAMETER_ARN']));
      break;
    case 'sts:AssumeRole':
      seen.assume.push(...resourcesOf);
      break;
    case 'sts:TagSession':
      seen.tag.push(...resourcesOf);
      break;
    case 'bedrock:InvokeModel':
      throw new Error(`${role}: bedrock:InvokeModel granted although no Bedrock model is configured`);
    case 'codebuild:StartBuild':
    case 'codebuild:BatchGetBuilds': {
      const project = `arn:aws:codebuild:${REGION}:${ACCOUNT}:project/draftsman-${STAGE}-`;
      for (const r of resourcesOf) {
        expect(r.startsWith(project)).toBe(true);
        seen.builds.push(`${action}|${r.slice(project.length)}`);
      }
      break;
    }
    case 'states:StartExecution':
    case 'states:DescribeExecution':
    case 'states:StopExecution':
      seen.states.push(...resourcesOf.map((r) => `${action}|${r}`));
      break;
    default:
      if (action.startsWith('sqs:')) return recordSqs(actions, resourcesOf, seen);
      // Anything else must be the schedule sync's; recordScheduleAction throws for any other action.
      recordScheduleAction(role, actions, s, resourcesOf, seen);
  }
}

function statementsOf(role: string): Json[] {
  // Conditional statements (the Bedrock grant) as this deployment, with no model, creates them.
  const props = resolve(applyConditions(resources[role].Properties, conditionEvaluator(template.Conditions)));
  expect(props.ManagedPolicyArns ?? []).toEqual([]);
  return props.Policies.flatMap((p: Json) => asArray(p.PolicyDocument.Statement));
}

/** S3 rules: the key matches iff it starts with the prefix and ends with the suffix. */
function s3RuleMatches(rules: { Name: string; Value: string }[], key: string): boolean {
  const prefix = rules.find((r) => r.Name === 'prefix')?.Value ?? '';
  const suffix = rules.find((r) => r.Name === 'suffix')?.Value ?? '';
  return key.startsWith(prefix) && key.endsWith(suffix) && key.length >= prefix.length + suffix.length;
}

/** EventBridge `wildcard`: `*` matches any run of characters, `/` included. */
function wildcardMatches(pattern: string, key: string): boolean {
  const re = new RegExp(
    `^${pattern
      .split('*')
      .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
  return re.test(key);
}

/** Which functions the bucket invokes for an ObjectCreated on `key`. */
function triggered(key: string): string[] {
  const hit = new Set<string>();
  const bucket = resources.ArtifactBucket.Properties;
  for (const c of bucket.NotificationConfiguration.LambdaConfigurations) {
    if (String(c.Event).startsWith('s3:ObjectCreated') && s3RuleMatches(c.Filter.S3Key.Rules, key)) hit.add(c.Function['Fn::GetAtt'][0]);
  }
  for (const r of Object.values(resources).filter((x: Json) => x.Type === 'AWS::Events::Rule' && x.Properties.EventPattern?.source?.includes('aws.s3'))) {
    const pattern = r.Properties.EventPattern;
    expect(pattern['detail-type']).toEqual(['Object Created']);
    if (pattern.detail.object.key.some((k: Json) => wildcardMatches(k.wildcard, key))) {
      for (const t of r.Properties.Targets) hit.add(t.Arn['Fn::GetAtt'][0]);
    }
  }
  return [...hit].sort();
}

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'draftsman-package-'));
  home = mkdtempSync(join(tmpdir(), 'draftsman-osls-home-'));
  // serverless-esbuild leaves one directory per function in the temporary directory: give it one that is removed afterwards.
  scratch = mkdtempSync(join(tmpdir(), 'draftsman-osls-tmp-'));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    TMPDIR: scratch,
    SLS_TELEMETRY_DISABLED: '1',
    SLS_NOTIFICATIONS_MODE: 'off',
    AWS_EC2_METADATA_DISABLED: 'true',
    CI: '1',
  };
  const started = performance.now();
  await promisify(execFile)(process.execPath, [OSLS, 'package', '--stage', STAGE, '--region', REGION, '--param=githubAppId=12345', '--package', out], {
    cwd: ROOT,
    env,
    maxBuffer: 16 * 1024 * 1024,
    timeout: 170_000,
  });
  packagingMs = performance.now() - started;
  template = JSON.parse(readFileSync(join(out, 'cloudformation-template-update-stack.json'), 'utf8'));
  resources = template.Resources;
}, 180_000);

afterAll(() => {
  if (out) rmSync(out, { recursive: true, force: true });
  if (home) rmSync(home, { recursive: true, force: true });
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** One Allow statement of a role: no wildcard action, a resource for each, then its grants recorded. */
function recordAllow(role: string, s: Json, seen: SeenGrants): void {
  expect(s.Effect).toBe('Allow');
  expect(s.NotAction).toBeUndefined();
  expect(s.NotResource).toBeUndefined();
  const actions = asArray<string>(s.Action);
  const resourcesOf = asArray<string>(s.Resource);
  for (const action of actions) expect(action).not.toContain('*');
  // The one action IAM cannot scope to a resource.
  for (const r of resourcesOf) if (actions[0] !== 'scheduler:ListSchedules') expect(r).not.toBe('*');
  expect(actions).toHaveLength(actions[0].startsWith('logs:') ? 2 : actions[0].startsWith('scheduler:') || actions[0].startsWith('sqs:') ? actions.length : 1);
  if (actions[0].startsWith('sqs:') && actions.length > 1) actions.sort((a, b) => (a === 'sqs:ReceiveMessage' ? -1 : b === 'sqs:ReceiveMessage' ? 1 : 0));
  const objectKeys = () =>
    resourcesOf.map((r) => {
      expect(r.startsWith(`${BUCKET_ARN}/`)).toBe(true);
      return r.slice(BUCKET_ARN.length + 1);
    });
  recordAction(role, actions, s, resourcesOf, objectKeys, seen);
}

describe('osls package', () => {
  it('packages offline into the given directory and leaves the work tree clean', () => {
    expect(existsSync(join(ROOT, '.esbuild'))).toBe(false);
    expect(existsSync(join(out, 'worker.zip'))).toBe(true);
    // Measured, not asserted tightly: the machine is shared.
    expect(packagingMs).toBeLessThan(170_000);
  });

  it('defines the fourteen functions on nodejs22.x, each with its own role, timeouts and reserved concurrency', () => {
    const functions = Object.entries(resources).filter(([, r]) => r.Type === 'AWS::Lambda::Function');
    expect(functions.map(([id]) => id).sort()).toEqual(Object.keys(FUNCTIONS).sort());
    for (const [id, fn] of functions) {
      expect(fn.Properties.Runtime).toBe('nodejs22.x');
      expect(fn.Properties.Handler).toBe(FUNCTIONS[id].handler);
      expect(fn.Properties.Role).toEqual({ 'Fn::GetAtt': [FUNCTIONS[id].role, 'Arn'] });
      expect(fn.Properties.ReservedConcurrentExecutions).toBeGreaterThan(0);
    }
    const worker = resources.WorkerLambdaFunction.Properties;
    expect(worker.Timeout).toBe(900);
    expect(worker.MemorySize).toBeGreaterThanOrEqual(3008);
    expect(worker.Environment.Variables.DRAFTSMAN_WASM_DIR).toBe('/var/task/wasm');
    expect(resources.WebhookLambdaFunction.Properties.Timeout).toBeLessThan(30);
    // Every role is used by exactly one function.
    expect(new Set(functions.map(([, f]) => f.Properties.Role['Fn::GetAtt'][0])).size).toBe(14);
  });

  it('gives each function only the configuration it needs: parameter names, never values', () => {
    const env = (id: string) => Object.keys(resources[id].Properties.Environment?.Variables ?? {}).sort();
    expect(env('TokenReadLambdaFunction')).toEqual(['APP_PRIVATE_KEY_PARAMETER', 'GITHUB_API_URL', 'GITHUB_APP_ID']);
    expect(env('TokenWriteLambdaFunction')).toEqual(['APP_PRIVATE_KEY_PARAMETER', 'GITHUB_API_URL', 'GITHUB_APP_ID']);
    for (const id of [
      'WebhookLambdaFunction',
      'IntakeLambdaFunction',
      'DispatcherLambdaFunction',
      'RunSessionLambdaFunction',
      'WorkerLambdaFunction',
      'PublisherLambdaFunction',
      'SweeperLambdaFunction',
      'VerifierLambdaFunction',
      'CampaignLambdaFunction',
      'ScheduleSyncLambdaFunction',
      'ScheduleFireLambdaFunction',
    ]) {
      expect(env(id)).not.toContain('APP_PRIVATE_KEY_PARAMETER');
      expect(env(id)).not.toContain(id === 'PublisherLambdaFunction' ? 'TOKEN_READ_FUNCTION' : 'TOKEN_WRITE_FUNCTION');
    }
    expect(env('WebhookLambdaFunction')).toEqual(['ARTIFACT_BUCKET', 'GITHUB_APP_ID', 'GITHUB_APP_SLUG', 'LOG_LEVEL', 'WEBHOOK_SECRET_PARAMETER']);
    expect(env('IntakeLambdaFunction')).not.toContain('WEBHOOK_SECRET_PARAMETER');
    expect(resources.IntakeLambdaFunction.Properties.Environment.Variables.TOKEN_READ_FUNCTION).toBe(`draftsman-${STAGE}-tokenRead`);
    // model-call reads the model key at cold start: without a model the variable must be absent.
    expect(resources.ModelCallLambdaFunction.Properties.Environment.Variables.MODEL_API_KEY_PARAMETER).toEqual({
      'Fn::If': ['UsesModelKey', `/draftsman/${STAGE}/model-api-key`, { Ref: 'AWS::NoValue' }],
    });
    // The worker never names the key: it invokes model-call, when a model is configured.
    expect(env('WorkerLambdaFunction')).not.toContain('MODEL_API_KEY_PARAMETER');
    expect(resources.WorkerLambdaFunction.Properties.Environment.Variables.MODEL_CALL_FUNCTION).toEqual({
      'Fn::If': ['HasModel', `draftsman-${STAGE}-modelCall`, { Ref: 'AWS::NoValue' }],
    });
    expect(resources.PublisherLambdaFunction.Properties.Environment.Variables.TOKEN_WRITE_FUNCTION).toBe(`draftsman-${STAGE}-tokenWrite`);
    expect(resources.WorkerLambdaFunction.Properties.Environment.Variables.RUN_SESSION_FUNCTION).toBe(`draftsman-${STAGE}-runSession`);
    expect(env('WorkerLambdaFunction')).not.toContain('TOKEN_READ_FUNCTION');
    expect(resources.RunSessionLambdaFunction.Properties.Environment.Variables.TOKEN_READ_FUNCTION).toBe(`draftsman-${STAGE}-tokenRead`);
    expect(resources.DispatcherLambdaFunction.Properties.Environment.Variables.WORKER_FUNCTION).toBe(`draftsman-${STAGE}-worker`);
    // The verifier names its project and the build role, no function and no secret.
    expect(env('VerifierLambdaFunction')).toEqual(['ARTIFACT_BUCKET', 'GITHUB_APP_ID', 'LOG_LEVEL', 'VERIFY_BUILD_ROLE_ARN', 'VERIFY_IMAGE', 'VERIFY_PROJECT']);
    const verifier = resolve(resources.VerifierLambdaFunction.Properties.Environment.Variables);
    expect(verifier.VERIFY_PROJECT).toBe(`draftsman-${STAGE}-verify`);
    expect(verifier.VERIFY_BUILD_ROLE_ARN).toBe(`arn:aws:iam::${ACCOUNT}:role/draftsman-${STAGE}-verifyBuild-${REGION}`);
    expect(JSON.stringify(template)).not.toMatch(/BEGIN [A-Z ]*PRIVATE KEY/);
  });

  it('declares the campaign state machine from infra/campaign-state-machine.json, run by its own role, started by the intake', () => {
    const machine = resources.CampaignStateMachine.Properties;
    expect(machine.Definition).toEqual(JSON.parse(readFileSync(join(ROOT, 'infra', 'campaign-state-machine.json'), 'utf8')));
    expect(machine.DefinitionSubstitutions).toEqual({ CampaignFunctionArn: { 'Fn::GetAtt': ['CampaignLambdaFunction', 'Arn'] } });
    expect(machine.RoleArn).toEqual({ 'Fn::GetAtt': ['CampaignStatesRole', 'Arn'] });
    expect(machine.StateMachineName).toBe(`draftsman-${STAGE}-campaign`);
    expect(resources.IntakeLambdaFunction.Properties.Environment.Variables.CAMPAIGN_STATE_MACHINE_ARN).toEqual({ Ref: 'CampaignStateMachine' });
    const trust = resources.CampaignStatesRole.Properties.AssumeRolePolicyDocument.Statement;
    expect(trust.map((t: Json) => t.Principal)).toEqual([{ Service: 'states.amazonaws.com' }]);
  });

  it('keeps schedules in the stack’s own group, fired only by the Scheduler through SchedulerInvokeRole, synchronised by the intake’s asynchronous call', () => {
    expect(resources.ScheduleGroup).toMatchObject({ Type: 'AWS::Scheduler::ScheduleGroup', Properties: { Name: `draftsman-${STAGE}` } });
    const env = (id: string) => resolve(resources[id].Properties.Environment.Variables);
    expect(env('IntakeLambdaFunction').SCHEDULE_SYNC_FUNCTION).toBe(`draftsman-${STAGE}-scheduleSync`);
    expect(Object.keys(env('ScheduleSyncLambdaFunction')).sort()).toEqual([
      'ARTIFACT_BUCKET',
      'GITHUB_API_URL',
      'GITHUB_APP_ID',
      'GITHUB_APP_SLUG',
      'LOG_LEVEL',
      'SCHEDULER_ROLE_ARN',
      'SCHEDULE_FIRE_ARN',
      'SCHEDULE_GROUP',
      'TOKEN_READ_FUNCTION',
    ]);
    expect(env('ScheduleSyncLambdaFunction')).toMatchObject({
      SCHEDULE_GROUP: `draftsman-${STAGE}`,
      SCHEDULE_FIRE_ARN: functionArn('scheduleFire'),
      SCHEDULER_ROLE_ARN: 'GETATT:SchedulerInvokeRole.Arn',
    });
    expect(Object.keys(env('ScheduleFireLambdaFunction')).sort()).toEqual([
      'ARTIFACT_BUCKET',
      'GITHUB_API_URL',
      'GITHUB_APP_ID',
      'GITHUB_APP_SLUG',
      'LOG_LEVEL',
      'TOKEN_READ_FUNCTION',
      // The run queue's worker slots, as the intake counts them.
      'WORKER_CONCURRENCY',
    ]);
    const trust = resolve(resources.SchedulerInvokeRole.Properties.AssumeRolePolicyDocument.Statement);
    expect(trust).toEqual([
      {
        Effect: 'Allow',
        Principal: { Service: 'scheduler.amazonaws.com' },
        Action: 'sts:AssumeRole',
        Condition: { StringEquals: { 'aws:SourceAccount': ACCOUNT } },
      },
    ]);
    expect(resources.ScheduleSyncLambdaEvConf.Properties).toMatchObject({
      MaximumRetryAttempts: 2,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': ['DeadLetterQueue', 'Arn'] } } },
    });
  });

  it('routes POST /api/github/webhooks to the webhook and runs the sweeper on a schedule', () => {
    const route = Object.values(resources).find((r: Json) => r.Type === 'AWS::ApiGatewayV2::Route');
    expect(route.Properties.RouteKey).toBe('POST /api/github/webhooks');
    const integration = Object.values(resources).find((r: Json) => r.Type === 'AWS::ApiGatewayV2::Integration');
    expect(integration.Properties.IntegrationUri).toEqual({ 'Fn::GetAtt': ['WebhookLambdaFunction', 'Arn'] });
    const schedules = Object.values(resources).filter((r: Json) => r.Type === 'AWS::Events::Rule' && r.Properties.ScheduleExpression);
    expect(schedules.map((r: Json) => [r.Properties.ScheduleExpression, r.Properties.Targets[0].Arn['Fn::GetAtt'][0]])).toEqual([
      ['rate(15 minutes)', 'SweeperLambdaFunction'],
    ]);
  });

  it('triggers the intake, the dispatcher and the publisher on exactly their keys, and nothing else', () => {
    const k = runKeys('acme', 'widgets', 'abcdefghijkl');
    const ci = runKeys('acme', 'ci', 'abcdefghijkl'); // a repository named "ci" must not confuse the ci rule
    const campaign = campaignKeys('acme', 'home', 3, 'jakarta-abcdefghijkl');
    const sha = 'a'.repeat(40);
    const expected: [string, string[]][] = [
      [deliveryKey('72d3162e-cc78-11e3-81ab-4c9367dc0958'), ['IntakeLambdaFunction']],
      [k.request, ['DispatcherLambdaFunction']],
      [k.attempt(2).request, ['DispatcherLambdaFunction']],
      [k.attempt(3).continue(1), ['DispatcherLambdaFunction']],
      [k.attempt(1).continue(12), ['DispatcherLambdaFunction']],
      [k.candidate.prCandidate, ['PublisherLambdaFunction']],
      [k.attempt(1).progress, ['PublisherLambdaFunction']],
      [k.attempt(3).approvalRequest, ['PublisherLambdaFunction']],
      [k.ci(987654321), ['PublisherLambdaFunction']],
      [k.ci(`poll-${sha}`), ['PublisherLambdaFunction']],
      [k.ci('pr-closed-4'), ['PublisherLambdaFunction']],
      [ci.ci(5), ['PublisherLambdaFunction']],
      // `/agent campaign close`: the intake's close request -> the publisher.
      [campaign.closeRequest(4321), ['PublisherLambdaFunction']],
      // A worker's build request -> the verifier; the verifier's trusted result -> the dispatcher.
      [k.attempt(2).verifyRequest(DIGEST_HEX), ['VerifierLambdaFunction']],
      [k.verify(DIGEST_HEX).result, ['DispatcherLambdaFunction']],
      // The build's own result matches the rule's wildcard too: the dispatcher's strict key parser ignores it (verify-resume.ts).
      [k.verify(DIGEST_HEX).buildResult, ['DispatcherLambdaFunction']],
    ];
    // A run record written (a run that ended frees its worker slot) wakes the run queue (infra/run-queue.yml).
    expected.push([k.run, ['RunQueueWake']], [ci.run, ['RunQueueWake']]);
    const silent = [
      campaign.record,
      campaign.closed,
      campaign.closure('acme', 'widgets'),
      campaign.item('acme', 'widgets'),
      campaign.pullStates,
      k.cancel,
      k.approve(2),
      k.publish,
      k.candidate.prBody,
      k.candidate.diffSummary,
      k.candidate.change(sha),
      k.attempt(1).lease,
      k.attempt(1).ledger(1),
      k.attempt(1).ledger(12),
      k.attempt(1).checkpoint(3, 'ci'),
      k.attempt(1).patch(2, 'seg'),
      k.attempt(1).baseRef,
      k.attempt(1).repoMap,
      `${k.attempt(1).prefix}run-report.md`,
      k.gate(1),
      ci.attempt(1).ledger(7),
      ci.attempt(2).checkpoint(1, 'change'),
      'issues/acme/widgets/4/latest.json',
      'locks/acme/widgets/issues/4.json',
      'limits/acme/widgets/2025-06-01T12/slot-000000.json',
      'queue/waiting/acme/widgets/000000000001-abcdefghijkl.json',
      'queue/counters/acme/widgets.json',
      'queue/workers/slot-000000.json',
      `maps/acme/widgets/${sha}/v1-abc.json`,
      'deliveries/72d3162e-cc78-11e3-81ab-4c9367dc0958.txt',
      k.attempt(2).verifySource(DIGEST_HEX),
      k.verify(DIGEST_HEX).source,
      k.verify(DIGEST_HEX).started,
    ];
    for (const [key, fns] of expected) expect([key, triggered(key)]).toEqual([key, fns]);
    for (const key of silent) expect([key, triggered(key)]).toEqual([key, []]);
  });

  it('has S3 notification rules that S3 accepts: no two overlap for the same event', () => {
    const configs = resources.ArtifactBucket.Properties.NotificationConfiguration.LambdaConfigurations;
    const overlaps = (a: string, b: string, f: (x: string, y: string) => boolean) => f(a, b) || f(b, a);
    for (let i = 0; i < configs.length; i++) {
      for (let j = i + 1; j < configs.length; j++) {
        const rule = (c: Json, n: string) => c.Filter.S3Key.Rules.find((r: Json) => r.Name === n)?.Value ?? '';
        const prefixes = overlaps(rule(configs[i], 'prefix'), rule(configs[j], 'prefix'), (x, y) => x.startsWith(y));
        const suffixes = overlaps(rule(configs[i], 'suffix'), rule(configs[j], 'suffix'), (x, y) => x.endsWith(y));
        expect(prefixes && suffixes).toBe(false);
      }
    }
    // Every function the bucket or EventBridge invokes has a permission for exactly that source.
    const permissions = Object.values(resources)
      .filter((r: Json) => r.Type === 'AWS::Lambda::Permission')
      .map((r: Json) => resolve(r.Properties));
    const rulesTargeting = (fn: string) =>
      Object.entries(resources)
        .filter(([, r]: [string, Json]) => r.Type === 'AWS::Events::Rule' && r.Properties.Targets.some((t: Json) => t.Arn['Fn::GetAtt']?.[0] === fn))
        .map(([id]) => `GETATT:${id}.Arn`)
        .sort();
    for (const fn of ['IntakeLambdaFunction', 'DispatcherLambdaFunction', 'PublisherLambdaFunction', 'VerifierLambdaFunction']) {
      expect(permissions.filter((p) => p.FunctionName === `GETATT:${fn}.Arn` && p.Principal === 's3.amazonaws.com').map((p) => p.SourceArn)).toEqual(
        fn === 'VerifierLambdaFunction' ? [] : [BUCKET_ARN],
      );
      if (fn === 'IntakeLambdaFunction') continue;
      const fromEvents = permissions.filter((p) => p.FunctionName === `GETATT:${fn}.Arn` && p.Principal === 'events.amazonaws.com').map((p) => p.SourceArn);
      expect(fromEvents.sort()).toEqual(rulesTargeting(fn));
    }
    expect(rulesTargeting('VerifierLambdaFunction')).toEqual(['GETATT:VerifierBuildStateRule.Arn', 'GETATT:VerifierRequestRule.Arn']);
    expect(rulesTargeting('DispatcherLambdaFunction')).toEqual(['GETATT:VerifyResultRule.Arn', 'GETATT:WorkerContinueRule.Arn']);
  });

  it('wakes the run queue through its own SQS queue (not the dead letters): run records and the sweeper send, only the dispatcher receives', () => {
    const queue = resources.RunQueueWake;
    expect(queue.Type).toBe('AWS::SQS::Queue');
    expect(queue.Properties.QueueName).toBe(`draftsman-${STAGE}-run-queue-wake`);
    // Lambda's SQS event source for it polls for the dispatcher alone, in batches (one pass serves a batch).
    const mappings = Object.values(resources)
      .filter((r: Json) => r.Type === 'AWS::Lambda::EventSourceMapping')
      .map((r: Json) => resolve(r.Properties));
    const fromQueue = mappings.filter((m: Json) => m.EventSourceArn === 'GETATT:RunQueueWake.Arn');
    expect(fromQueue.map((m: Json) => m.FunctionName)).toEqual(['GETATT:DispatcherLambdaFunction.Arn']);
    expect(fromQueue[0].BatchSize).toBe(10);
    expect(mappings.filter((m: Json) => m.EventSourceArn === 'GETATT:DeadLetterQueue.Arn')).toEqual([]);
    // The visibility timeout outlasts the dispatcher's timeout, as Lambda requires.
    expect(queue.Properties.VisibilityTimeout).toBeGreaterThan(resources.DispatcherLambdaFunction.Properties.Timeout);
    // EventBridge may send to it for the run-record rule only; that rule selects run.json and nothing else.
    const policy = resolve(resources.RunQueueWakePolicy.Properties);
    expect(policy.Queues).toEqual(['REF:RunQueueWake']);
    expect(policy.PolicyDocument.Statement).toEqual([
      expect.objectContaining({
        Principal: { Service: 'events.amazonaws.com' },
        Action: 'sqs:SendMessage',
        Resource: 'GETATT:RunQueueWake.Arn',
        Condition: { ArnEquals: { 'aws:SourceArn': 'GETATT:RunRecordWakeRule.Arn' } },
      }),
    ]);
    expect(resources.RunRecordWakeRule.Properties.EventPattern.detail.object.key).toEqual([{ wildcard: 'runs/*/*/*/run.json' }]);
    expect(resources.RunRecordWakeRule.Properties.Targets.map((t: Json) => resolve(t.Arn))).toEqual(['GETATT:RunQueueWake.Arn']);
    // The sweeper is told where to send; the intake and the dispatcher count the worker's reserved concurrency as worker slots.
    const env = (fn: string) => resolve(resources[fn].Properties.Environment.Variables);
    expect(env('SweeperLambdaFunction').RUN_QUEUE_URL).toBe('REF:RunQueueWake');
    const workers = String(resources.WorkerLambdaFunction.Properties.ReservedConcurrentExecutions);
    expect(env('IntakeLambdaFunction').WORKER_CONCURRENCY).toBe(workers);
    expect(env('DispatcherLambdaFunction').WORKER_CONCURRENCY).toBe(workers);
    // The campaign items' and the schedules' runs go through the same admission pass.
    expect(env('CampaignLambdaFunction').WORKER_CONCURRENCY).toBe(workers);
    expect(env('ScheduleFireLambdaFunction').WORKER_CONCURRENCY).toBe(workers);
  });

  it('turns an EventBridge Object Created event into the S3 notification shape the handlers parse', () => {
    const target = resources.PublisherCiRule.Properties.Targets[0];
    const event = {
      region: REGION,
      time: '2025-06-01T12:00:00Z',
      detail: {
        bucket: { name: BUCKET },
        object: { key: 'runs/acme/widgets/abcdefghijkl/ci/42.json', size: 120, etag: 'd41d8cd98f00b204e9800998ecf8427e', sequencer: '00617F08299329D189' },
        requester: ACCOUNT,
        'source-ip-address': '10.0.0.1',
        'request-id': 'N4N7GDK58NMKJ12R',
      },
    };
    const transformer = target.InputTransformer;
    const rendered = String(transformer.InputTemplate).replace(/<(\w+)>/g, (_, name: string) => {
      const path = String(transformer.InputPathsMap[name]).replace(/^\$\./, '').split('.');
      const value = path.reduce<Json>((v, p) => v?.[p], event);
      return JSON.stringify(value);
    });
    const parsed = JSON.parse(rendered);
    expect(PublisherS3Event.parse(parsed).Records[0].s3.object.key).toBe('runs/acme/widgets/abcdefghijkl/ci/42.json');
    expect(parsed.Records[0]).toMatchObject({ eventSource: 'aws:s3', eventName: 'ObjectCreated:Put', s3: { bucket: { name: BUCKET }, object: { size: 120 } } });
    // Undeliverable events go to the same dead-letter queue.
    expect(target.DeadLetterConfig.Arn).toEqual({ 'Fn::GetAtt': ['DeadLetterQueue', 'Arn'] });
  });

  it('sets async retries deliberately and sends failures to the dead-letter queue, which has an alarm', () => {
    const config = (fn: string) => resources[`${fn}LambdaEvConf`].Properties;
    expect(config('Worker')).toMatchObject({ MaximumRetryAttempts: 1, MaximumEventAgeInSeconds: 7200 });
    expect(config('Publisher')).toMatchObject({ MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 3600 });
    expect(config('Dispatcher')).toMatchObject({ MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 7200 });
    expect(config('Sweeper')).toMatchObject({ MaximumRetryAttempts: 0 });
    expect(config('Intake')).toMatchObject({ MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 3600 });
    expect(config('Verifier')).toMatchObject({ MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 7200 });
    for (const fn of ['Intake', 'Dispatcher', 'Worker', 'Publisher', 'Sweeper', 'Verifier']) {
      expect(config(fn).DestinationConfig.OnFailure.Destination).toEqual({ 'Fn::GetAtt': ['DeadLetterQueue', 'Arn'] });
    }
    const alarm = resources.DeadLetterAlarm.Properties;
    expect(alarm).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
    });
    expect(alarm.Dimensions[0].Value).toEqual({ 'Fn::GetAtt': ['DeadLetterQueue', 'QueueName'] });
    expect(alarm.AlarmActions).toEqual([{ Ref: 'AlarmTopic' }]);
  });

  it('creates the recommended alarms and a dashboard, reading only metrics, dimensions and values the functions write', () => {
    // What the functions write: each builder as the code calls it (fn as the callers pass it).
    const ctx = (fn: string) => ({ fn, runId: 'r', attempt: 1, timestamp: 0 });
    const usage = { modelCalls: 1, toolCalls: 1, tokensIn: 1, tokensOut: 1, costMicroUsd: 1 };
    const specs: MetricSpec[] = [
      phaseMetric({ phase: 'ingestion', state: 'failed', files: { count: 1, of: 'snapshot' }, elapsedMs: 1 }, ctx('worker')),
      publishMetric({ outcome: 'published', prNumber: 1 }, { ...ctx('publisher'), durationMs: 1, diff: { files: 1, lines: 1 } }),
      publishMetric({ outcome: 'refused', reason: 'TREE_MISMATCH' }, ctx('publisher')),
      sweepMetric({ intakesEnded: [], locksReleased: [], runsFailed: [], ciPolled: [], problems: [] }, 0),
      attemptStartMetric(ctx('worker')),
      attemptEndMetric('FAILED', usage, ctx('worker')),
      ...[
        { outcome: 'started' as const },
        { outcome: 'published' as const },
        { outcome: 'failed' as const, reason: 'STUCK' },
        { outcome: 'merged' as const, timeToMergeMs: 1, spendMicroUsd: 1 },
        { outcome: 'closed' as const, spendMicroUsd: 1 },
      ].map((event) => runOutcomeMetric(event, { owner: 'o', repo: 'r', source: { kind: 'local', location: '/r' } }, ctx('publisher'))),
    ];
    const written = new Set<string>();
    for (const spec of specs) {
      const doc = buildEmf(spec);
      for (const directive of doc._aws.CloudWatchMetrics)
        for (const set of directive.Dimensions)
          for (const metric of directive.Metrics)
            written.add(
              `${metric.Name}|${[...set]
                .sort()
                .map((d) => `${d}=${d === 'fn' ? String(doc.fn) : '*'}`)
                .join(',')}`,
            );
    }
    const values: Record<string, readonly string[]> = {
      phase: ['ingestion', ...PHASE_NAMES],
      reason: PUBLISH_REASONS,
      status: RUN_STATUSES,
      outcome: ['published', 'refused', ...RUN_OUTCOME_EVENTS],
    };
    const reads: { name: string; dimensions: [string, string][] }[] = [];
    const alarms = Object.entries(resources).filter(([, r]) => r.Type === 'AWS::CloudWatch::Alarm' && r.Properties.Namespace !== 'AWS/SQS');
    expect(alarms.map(([name]) => name).sort()).toEqual(['IngestionNearTimeoutAlarm', 'PhaseNearTimeoutAlarm', 'PublishTamperAlarm', 'StuckRunsAlarm']);
    for (const [, alarm] of alarms) {
      expect(alarm.Properties.AlarmActions).toEqual([{ Ref: 'AlarmTopic' }]);
      const stats = alarm.Properties.Metrics.filter((m: Json) => m.MetricStat);
      expect(stats.length).toBeLessThanOrEqual(10);
      for (const m of stats) {
        expect(m.MetricStat.Metric.Namespace).toBe(METRIC_NAMESPACE);
        reads.push({ name: m.MetricStat.Metric.MetricName, dimensions: m.MetricStat.Metric.Dimensions.map((d: Json) => [d.Name, d.Value]) });
      }
    }
    const body = JSON.parse(resources.RunsDashboard.Properties.DashboardBody['Fn::Sub']);
    for (const widget of body.widgets)
      for (const row of widget.properties.metrics as unknown[][]) {
        // A search line: every series with exactly the schema's dimensions, filtered by some of their values.
        const expression = (row[0] as { expression?: string }).expression;
        if (expression !== undefined) {
          const match = /^SEARCH\('\{([^}]+)\} MetricName="([^"]+)"((?: \w+="[^"]*")*)', '\w+', \d+\)$/.exec(expression);
          expect(match, expression).not.toBeNull();
          const [namespace, ...dims] = match![1].split(',');
          expect(namespace).toBe(METRIC_NAMESPACE);
          const filter = Object.fromEntries([...match![3].matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
          reads.push({ name: match![2], dimensions: dims.map((d) => [d, filter[d] ?? '*']) });
          continue;
        }
        expect(row[0]).toBe(METRIC_NAMESPACE);
        const pairs = row.slice(2, -1) as string[];
        reads.push({ name: row[1] as string, dimensions: pairs.flatMap((v, i) => (i % 2 === 0 ? [[v, pairs[i + 1]] as [string, string]] : [])) });
      }
    expect(reads.length).toBeGreaterThan(30);
    for (const read of reads) {
      const sorted = [...read.dimensions].sort(([a], [b]) => a.localeCompare(b));
      const key = `${read.name}|${sorted.map(([d, v]) => `${d}=${d === 'fn' ? v : '*'}`).join(',')}`;
      expect(written, key).toContain(key);
      for (const [d, v] of read.dimensions) if (values[d] && v !== '*') expect(values[d], `${read.name} ${d}`).toContain(v);
    }
  });

  it('keeps the bucket encrypted, private, versioned, with runs/ and limits/ expiring', () => {
    const bucket = resolve(resources.ArtifactBucket.Properties);
    expect(bucket.BucketName).toBe(BUCKET);
    expect(bucket.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault.SSEAlgorithm).toBe('AES256');
    expect(bucket.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(bucket.VersioningConfiguration.Status).toBe('Enabled');
    const expiry = (prefix: string) => bucket.LifecycleConfiguration.Rules.find((r: Json) => r.Prefix === prefix)?.ExpirationInDays;
    expect(expiry('runs/')).toBe(90);
    expect(expiry('limits/')).toBe(2);
    expect(expiry('deliveries/')).toBe(2);
    expect(expiry('locks/')).toBeUndefined();
    // The trails outlive the runs' scratch data: one year unless the deployment says otherwise.
    expect(expiry('trail/')).toBe(365);
  });

  it.each(Object.keys(ALLOWED))('%s grants exactly its table and nothing more', (role) => {
    const allowed = ALLOWED[role];
    const statements = statementsOf(role);
    const seen: SeenGrants = {
      get: [],
      put: [],
      del: [],
      list: [],
      invoke: [],
      secrets: [],
      decrypt: [],
      dlq: false,
      assume: [],
      tag: [],
      deny: [],
      builds: [],
      network: [],
      states: [],
      scheduler: [],
      passRole: [],
      wake: [],
    };
    for (const s of statements) {
      if (s.Effect === 'Deny') {
        for (const resource of asArray<string>(s.Resource)) {
          if (resource !== '*') expect(resource.startsWith(`${BUCKET_ARN}/`)).toBe(true);
          seen.deny.push(`${asArray<string>(s.Action).sort().join(',')}|${resource === '*' ? '*' : resource.slice(BUCKET_ARN.length + 1)}`);
        }
        continue;
      }
      // EC2 network interface actions (VerifyProjectRole): Describe* take no resource; the rest are pinned below.
      if (asArray<string>(s.Action).every((a) => a.startsWith('ec2:'))) {
        seen.network.push(...asArray<string>(s.Action));
        continue;
      }
      recordAllow(role, s, seen);
    }
    const sorted = (xs: string[]) => [...xs].sort();
    expect(sorted(seen.get)).toEqual(sorted(allowed.get));
    expect(sorted(seen.put)).toEqual(sorted(allowed.put));
    expect(sorted(seen.del)).toEqual(sorted(allowed.del));
    expect(sorted(seen.list)).toEqual(sorted(allowed.list));
    expect(sorted(seen.invoke)).toEqual(sorted(allowed.invoke.map(functionArn)));
    expect(sorted(seen.secrets)).toEqual(sorted(allowed.secrets.map(parameterArn)));
    expect(sorted(seen.decrypt)).toEqual(sorted(allowed.secrets.map(parameterArn)));
    expect(seen.dlq).toBe(allowed.dlq);
    const roleArn = (name: string) => `arn:aws:iam::${ACCOUNT}:role/draftsman-${STAGE}-${name}-${REGION}`;
    expect(sorted(seen.assume)).toEqual(sorted((allowed.assume ?? []).map(roleArn)));
    expect(sorted(seen.tag)).toEqual(sorted((allowed.assume ?? []).map(roleArn)));
    expect(sorted(seen.deny)).toEqual(sorted(allowed.deny ?? []));
    expect(sorted(seen.builds)).toEqual(sorted(allowed.builds ?? []));
    expect(sorted(seen.network)).toEqual(sorted(allowed.network ?? []));
    expect(sorted(seen.states)).toEqual(sorted(allowed.states ?? []));
    expect(sorted(seen.scheduler)).toEqual(sorted(allowed.scheduler ?? []));
    expect(sorted(seen.passRole)).toEqual(sorted(allowed.passRole ?? []));
    expect(sorted(seen.wake)).toEqual(sorted(allowed.wake ?? []));
  });

  it('lets only the token functions read the App key, only the webhook read its secret, and only the right callers mint tokens', () => {
    const holders = (needle: string) =>
      Object.keys(ALLOWED)
        .filter((role) => statementsOf(role).some((s) => asArray<string>(s.Resource).includes(needle)))
        .sort();
    expect(holders(parameterArn('app-private-key'))).toEqual(['TokenReadRole', 'TokenWriteRole']);
    expect(holders(parameterArn('webhook-secret'))).toEqual(['WebhookRole']);
    expect(holders(parameterArn('model-api-key'))).toEqual(['ModelCallRole']);
    expect(holders(functionArn('modelCall'))).toEqual(['WorkerRole']);
    expect(holders(functionArn('tokenRead'))).toEqual([
      'CampaignRole',
      'DispatcherRole',
      'IntakeRole',
      'RunSessionRole',
      'ScheduleFireRole',
      'ScheduleSyncRole',
      'SweeperRole',
    ]);
    expect(holders(functionArn('scheduleSync'))).toEqual(['IntakeRole']);
    expect(holders(functionArn('scheduleFire'))).toEqual(['SchedulerInvokeRole']);
    expect(holders(functionArn('runSession'))).toEqual(['WorkerRole']);
    expect(holders(functionArn('worker'))).toEqual(['DispatcherRole']);
    expect(holders(functionArn('tokenWrite'))).toEqual(['PublisherRole']);
    // Nothing outside these roles is an IAM role or policy that could widen them.
    const iam = Object.entries(resources)
      .filter(([, r]) => String(r.Type).startsWith('AWS::IAM::'))
      .map(([id]) => id)
      .sort();
    expect(iam).toEqual(Object.keys(ALLOWED).sort());
  });

  it('ships the tree-sitter runtime and grammars in the worker package only', () => {
    const listing = (zip: string) => readFileSync(join(out, zip)).toString('latin1');
    const worker = listing('worker.zip');
    expect(worker).toContain('src/handlers/worker.mjs');
    for (const file of WASM) expect(worker).toContain(`wasm/${file}`);
    for (const zip of [
      'webhook.zip',
      'intake.zip',
      'dispatcher.zip',
      'runSession.zip',
      'publisher.zip',
      'tokenRead.zip',
      'tokenWrite.zip',
      'sweeper.zip',
      'verifier.zip',
      'scheduleSync.zip',
      'scheduleFire.zip',
    ])
      expect(listing(zip)).not.toContain('tree-sitter.wasm');
  });
});

/**
 * The trust chain under AWS's own evaluation rules (test/helpers/iam-policy.ts): what a
 * compromised worker of run X can reach with the credentials run-session vends (RunWorkerRole
 * with X's session tags, intersected with X's session policy), and with its own role.
 */
describe('IAM: a worker reaches its own run only', () => {
  const X: RunScope = { owner: 'acme', repo: 'widgets', runId: 'abcdefghijkl', issue: 4 };
  const x = runKeys(X.owner, X.repo, X.runId);
  const other = runKeys('acme', 'widgets', 'zyxwvutsrqpo');
  const sha = 'a'.repeat(40);
  const object = (key: string) => `${BUCKET_ARN}/${key}`;
  const tags = () => Object.fromEntries(sessionTags(X).map((t) => [t.Key, t.Value]));
  const roleLayer = () => statementsOf('RunWorkerRole') as Statement[];
  const sessionLayer = () => buildSessionPolicy(X, BUCKET)!.Statement as Statement[];
  /** The worker's session as vended, and the role alone (a session policy that did not fit). */
  const sessions = () => ({ 'session policy ∩ RunWorkerRole': [roleLayer(), sessionLayer()], 'RunWorkerRole alone': [roleLayer()] });
  const decide = (layers: Statement[][], action: string, key: string): Decision =>
    evaluate(layers, action === 's3:ListBucket' ? { action, resource: BUCKET_ARN, context: { 's3:prefix': key } } : { action, resource: object(key) }, tags());

  /** Keys a forging worker of run X would write (or read, or delete) to hijack something. */
  const FORGED: [string, string][] = [
    ['s3:PutObject', 'runs/acme/widgets/attempts/request.json'], // the request of a run whose id is "attempts"
    ['s3:PutObject', 'runs/acme/widgets/attempts/candidate/pr-candidate.json'],
    ['s3:PutObject', other.candidate.prCandidate],
    ['s3:PutObject', other.request],
    ['s3:PutObject', other.run],
    ['s3:PutObject', other.attempt(1).ledger(1)],
    ['s3:PutObject', x.request],
    ['s3:PutObject', x.attempt(2).request],
    ['s3:PutObject', x.attempt(999999).request],
    ['s3:DeleteObject', x.attempt(2).request],
    ['s3:PutObject', x.cancel],
    ['s3:PutObject', x.approve(2)],
    ['s3:PutObject', x.publish],
    ['s3:PutObject', x.ci(5)],
    ['s3:PutObject', `${x.prefix}dispatch/${'0'.repeat(64)}.json`],
    ['s3:GetObject', `${x.prefix}dispatch/${'0'.repeat(64)}.json`],
    ['s3:PutObject', runKeys('evil', 'widgets', X.runId).candidate.prCandidate],
    ['s3:PutObject', runKeys('acme', 'other', X.runId).candidate.prCandidate],
    ['s3:PutObject', runKeys('acme', 'widgets-x', X.runId).request],
    ['s3:PutObject', `maps/acme/other/${sha}/v1-abc.json`],
    ['s3:PutObject', issueLatestKey('acme', 'widgets', 5)],
    ['s3:PutObject', issueLatestKey('acme', 'other', 4)],
    ['s3:DeleteObject', lockKey('acme', 'widgets', 5)],
    ['s3:PutObject', lockKey('acme', 'widgets', 4)],
    // The lock and the gate are the trusted functions'.
    ['s3:DeleteObject', lockKey('acme', 'widgets', 4)],
    ['s3:PutObject', x.gate(1)],
    ['s3:PutObject', 'limits/acme/widgets/2026-01-01T00/abcdefghijkl'],
    // A stored delivery is trusted as signed: only the webhook may write one.
    ['s3:PutObject', deliveryKey('72d3162e-cc78-11e3-81ab-4c9367dc0958')],
    ['s3:GetObject', other.request],
    ['s3:GetObject', other.candidate.prCandidate],
    ['s3:ListBucket', 'runs/'],
    ['s3:ListBucket', other.prefix],
    ['s3:ListBucket', 'maps/acme/other/'],
  ];
  /** What the worker of run X does in a real run (so the denials above are not vacuous). */
  const NEEDED: [string, string][] = [
    ['s3:GetObject', x.request],
    ['s3:GetObject', x.run],
    ['s3:GetObject', x.cancel],
    ['s3:GetObject', x.attempt(2).request],
    ['s3:GetObject', x.candidate.prBody],
    ['s3:PutObject', x.attempt(1).lease],
    ['s3:PutObject', x.attempt(1).continue(1)],
    ['s3:PutObject', x.attempt(1).ledger(7)],
    ['s3:PutObject', x.attempt(1).checkpoint(3, 'change')],
    ['s3:PutObject', x.candidate.prCandidate],
    ['s3:PutObject', x.candidate.change(sha)],
    ['s3:PutObject', x.run],
    ['s3:PutObject', issueLatestKey('acme', 'widgets', 4)],
    ['s3:PutObject', `maps/acme/widgets/${sha}/v1-abc.json`],
    ['s3:GetObject', lockKey('acme', 'widgets', 4)],
    ['s3:PutObject', x.attempt(1).progress],
    ['s3:PutObject', x.attempt(1).approvalRequest],
    ['s3:ListBucket', `${x.prefix}attempts/`],
    ['s3:ListBucket', 'maps/acme/widgets/'],
  ];

  it.each(['session policy ∩ RunWorkerRole', 'RunWorkerRole alone'] as const)('%s: every forged key is refused, every key the run needs is allowed', (name) => {
    const layers = sessions()[name];
    for (const [action, key] of FORGED) expect([action, key, decide(layers, action, key)]).not.toContainEqual('allow');
    for (const [action, key] of NEEDED) expect([action, key, decide(layers, action, key)]).toEqual([action, key, 'allow']);
    // Attempt requests and dispatch records are refused by an explicit Deny, whatever else grants.
    expect(decide(layers, 's3:PutObject', x.attempt(3).request)).toBe('explicit-deny');
    expect(decide(layers, 's3:GetObject', `${x.prefix}dispatch/x.json`)).toBe('explicit-deny');
  });

  it('the packaged bucket policy makes a trail create-only: no write without If-None-Match, no delete, for the worker as for anyone', () => {
    const policy = JSON.parse(
      JSON.stringify(resolve(resources.ArtifactBucketPolicy.Properties).PolicyDocument.Statement).replaceAll('REF:ArtifactBucket', BUCKET),
    ) as (Statement & { Principal?: unknown })[];
    const bucketPolicy = policy.map(({ Principal: _principal, ...statement }) => statement);
    const ledger = x.attempt(1).ledger(0);
    const secure = { 'aws:SecureTransport': 'true' };
    const write = (layers: Statement[][], context: Record<string, string>, key = ledger) =>
      evaluate(layers, { action: 's3:PutObject', resource: object(key), context: { ...secure, ...context } }, tags(), bucketPolicy);
    for (const [name, layers] of Object.entries(sessions())) {
      expect([name, write(layers, { 's3:if-none-match': '*' })]).toEqual([name, 'allow']);
      expect([name, write(layers, {})]).toEqual([name, 'explicit-deny']);
      expect([name, write(layers, { 's3:if-match': '"etag"' })]).toEqual([name, 'explicit-deny']);
      for (const action of ['s3:DeleteObject', 's3:DeleteObjectVersion']) {
        expect([name, action, evaluate(layers, { action, resource: object(ledger), context: secure }, tags(), bucketPolicy)]).toEqual([
          name,
          action,
          'explicit-deny',
        ]);
      }
      // Another run's trail, and the model caller's spend records in its own, are out of reach even with the condition.
      expect([name, write(layers, { 's3:if-none-match': '*' }, other.attempt(1).ledger(0))]).toEqual([name, 'implicit-deny']);
      expect([name, write(layers, { 's3:if-none-match': '*' }, x.attempt(1).spendCall('c1'))]).toEqual([name, 'explicit-deny']);
    }
    // Outside trail/ the bucket policy adds nothing: run.json still changes by compare-and-swap.
    expect(write([roleLayer()], { 's3:if-match': '"etag"' }, x.run)).toBe('allow');
  });

  it('the session policy alone pins the run too (it does not rely on the tags)', () => {
    // It is coarse inside the run (the role lists the keys); outside the run it allows nothing.
    const layers = [sessionLayer()];
    for (const [action, key] of FORGED.filter(([, k]) => !k.startsWith(x.prefix) || k.includes('/dispatch/') || /attempts\/\d+\/request\.json$/.test(k)))
      expect([
        action,
        key,
        evaluate(layers, action === 's3:ListBucket' ? { action, resource: BUCKET_ARN, context: { 's3:prefix': key } } : { action, resource: object(key) }),
      ]).not.toContainEqual('allow');
  });

  it('a session without tags reaches nothing', () => {
    for (const [action, key] of NEEDED)
      expect(
        evaluate(
          [roleLayer()],
          action === 's3:ListBucket' ? { action, resource: BUCKET_ARN, context: { 's3:prefix': key } } : { action, resource: object(key) },
          {},
        ),
      ).not.toBe('allow');
  });

  it('the worker execution role itself has no S3 access, no secret, and can invoke run-session and model-call only', () => {
    const worker = statementsOf('WorkerRole') as Statement[];
    for (const [action, key] of [...NEEDED, ...FORGED]) {
      expect(
        evaluate([worker], action === 's3:ListBucket' ? { action, resource: BUCKET_ARN, context: { 's3:prefix': key } } : { action, resource: object(key) }),
      ).toBe('implicit-deny');
    }
    for (const fn of ['tokenRead', 'tokenWrite', 'worker', 'dispatcher', 'publisher']) {
      expect([fn, evaluate([worker], { action: 'lambda:InvokeFunction', resource: functionArn(fn) })]).toEqual([fn, 'implicit-deny']);
    }
    expect(evaluate([worker], { action: 'lambda:InvokeFunction', resource: functionArn('runSession') })).toBe('allow');
    expect(evaluate([worker], { action: 'lambda:InvokeFunction', resource: functionArn('modelCall') })).toBe('allow');
    for (const secret of ['model-api-key', 'app-private-key', 'webhook-secret']) {
      expect([secret, evaluate([worker], { action: 'ssm:GetParameter', resource: parameterArn(secret) })]).toEqual([secret, 'implicit-deny']);
    }
    expect(evaluate([worker], { action: 'sts:AssumeRole', resource: `arn:aws:iam::${ACCOUNT}:role/draftsman-${STAGE}-runWorker-${REGION}` })).toBe(
      'implicit-deny',
    );
  });

  it('only run-session may assume RunWorkerRole, and only with the run tags', () => {
    const trust = resolve(resources.RunWorkerRole.Properties.AssumeRolePolicyDocument).Statement;
    expect(trust).toHaveLength(1);
    expect(trust[0].Principal).toEqual({ AWS: 'GETATT:RunSessionRole.Arn' });
    expect(asArray(trust[0].Action).sort()).toEqual(['sts:AssumeRole', 'sts:TagSession']);
    expect(Object.keys(trust[0].Condition.StringLike).sort()).toEqual(['aws:RequestTag/owner', 'aws:RequestTag/repo', 'aws:RequestTag/runId']);
    const runWorker = `arn:aws:iam::${ACCOUNT}:role/draftsman-${STAGE}-runWorker-${REGION}`;
    const assumers = Object.keys(ALLOWED).filter(
      (role) => evaluate([statementsOf(role) as Statement[]], { action: 'sts:AssumeRole', resource: runWorker }) === 'allow',
    );
    expect(assumers).toEqual(['RunSessionRole']);
  });

  it('only the token functions can read the App key parameter', () => {
    const key = parameterArn('app-private-key');
    const readers = Object.keys(ALLOWED).filter(
      (role) => evaluate([statementsOf(role) as Statement[]], { action: 'ssm:GetParameter', resource: key }) === 'allow',
    );
    expect(readers.sort()).toEqual(['TokenReadRole', 'TokenWriteRole']);
  });

  it("fits the session policy in STS's limit for realistic names, and builds it from validated names only", () => {
    expect(
      JSON.stringify(buildSessionPolicy({ owner: 'a'.repeat(39), repo: 'r'.repeat(40), runId: 'abcdefghijkl', issue: 123456 }, BUCKET)).length,
    ).toBeLessThanOrEqual(2048);
    for (const scope of [
      { ...X, owner: 'ac*me' },
      { ...X, repo: 'wid?gets' },
      { ...X, repo: '..' },
      { ...X, owner: 'a/b' },
      { ...X, runId: 'ABCDEFGHIJKL' },
      { ...X, runId: 'attempts' },
    ]) {
      expect(() => buildSessionPolicy(scope, BUCKET)).toThrow(/cannot be put in an ARN/);
      expect(() => sessionTags(scope)).toThrow(/cannot be put in an ARN/);
    }
  });
});

/**
 * Verification builds under the same evaluator: the session a build gets (VerifyBuildRole with
 * the run's and the digest's tags, intersected with the verifier's session policy), the verifier's
 * own grants, and what the worker may not do (docs/trust-chain.md, "Verification builds").
 */
describe('IAM: a verification build reaches its own run and digest only', () => {
  const scope = { owner: 'acme', repo: 'widgets', runId: 'abcdefghijkl', digest: DIGEST_HEX };
  const x = runKeys(scope.owner, scope.repo, scope.runId);
  const other = runKeys('acme', 'widgets', 'zyxwvutsrqpo');
  const otherDigest = 'e'.repeat(64);
  const object = (key: string) => `${BUCKET_ARN}/${key}`;
  const tags = { owner: scope.owner, repo: scope.repo, runId: scope.runId, digest: scope.digest };
  const roleLayer = () => statementsOf('VerifyBuildRole') as Statement[];
  const sessions = () => ({
    'session policy ∩ VerifyBuildRole': [roleLayer(), verifyBuildSessionPolicy(BUCKET, scope).Statement as Statement[]],
    'VerifyBuildRole alone': [roleLayer()],
  });

  it.each(['session policy ∩ VerifyBuildRole', 'VerifyBuildRole alone'] as const)(
    '%s: reads its archive and writes its build/ prefix, and nothing of another run, another digest or the trusted result',
    (name) => {
      const layers = sessions()[name];
      const decide = (action: string, key: string) => evaluate(layers, { action, resource: object(key) }, tags);
      expect(decide('s3:GetObject', x.verify(DIGEST_HEX).source)).toBe('allow');
      expect(decide('s3:PutObject', x.verify(DIGEST_HEX).buildResult)).toBe('allow');
      const forged: [string, string][] = [
        ['s3:PutObject', x.verify(DIGEST_HEX).result],
        ['s3:PutObject', x.verify(DIGEST_HEX).started],
        ['s3:PutObject', x.verify(DIGEST_HEX).source],
        ['s3:GetObject', x.verify(DIGEST_HEX).result],
        ['s3:GetObject', x.verify(otherDigest).source],
        ['s3:PutObject', x.verify(otherDigest).buildResult],
        ['s3:GetObject', other.verify(DIGEST_HEX).source],
        ['s3:PutObject', other.verify(DIGEST_HEX).buildResult],
        ['s3:PutObject', x.attempt(1).verifyRequest(DIGEST_HEX)],
        ['s3:GetObject', x.attempt(1).verifySource(DIGEST_HEX)],
        ['s3:GetObject', x.request],
        ['s3:PutObject', x.candidate.prCandidate],
        ['s3:PutObject', `${x.prefix}dispatch/${'0'.repeat(64)}.json`],
      ];
      for (const [action, key] of forged) expect([action, key, decide(action, key)]).not.toContainEqual('allow');
      // Without the tags (a session that was not vended by the verifier) it reaches nothing.
      expect(evaluate([roleLayer()], { action: 's3:GetObject', resource: object(x.verify(DIGEST_HEX).source) }, {})).not.toBe('allow');
    },
  );

  it('only the verifier may assume VerifyBuildRole, and only with the run and digest tags', () => {
    const trust = resolve(resources.VerifyBuildRole.Properties.AssumeRolePolicyDocument).Statement;
    expect(trust).toHaveLength(1);
    expect(trust[0].Principal).toEqual({ AWS: 'GETATT:VerifierRole.Arn' });
    expect(asArray(trust[0].Action).sort()).toEqual(['sts:AssumeRole', 'sts:TagSession']);
    expect(Object.keys(trust[0].Condition.StringLike).sort()).toEqual([
      'aws:RequestTag/digest',
      'aws:RequestTag/owner',
      'aws:RequestTag/repo',
      'aws:RequestTag/runId',
    ]);
    expect(resources.VerifyBuildRole.Properties.MaxSessionDuration).toBe(3600);
    const verifyBuild = `arn:aws:iam::${ACCOUNT}:role/draftsman-${STAGE}-verifyBuild-${REGION}`;
    const assumers = Object.keys(ALLOWED).filter(
      (role) => evaluate([statementsOf(role) as Statement[]], { action: 'sts:AssumeRole', resource: verifyBuild }) === 'allow',
    );
    expect(assumers).toEqual(['VerifierRole']);
  });

  it('the verifier writes the trusted keys of a build, not the build’s own output', () => {
    const verifier = [statementsOf('VerifierRole') as Statement[]];
    const decide = (action: string, key: string) => evaluate(verifier, { action, resource: object(key) });
    for (const key of [x.verify(DIGEST_HEX).result, x.verify(DIGEST_HEX).started, x.verify(DIGEST_HEX).source, `${x.verifyPrefix}attempt-2.json`])
      expect([key, decide('s3:PutObject', key)]).toEqual([key, 'allow']);
    for (const key of [x.attempt(2).verifyRequest(DIGEST_HEX), x.attempt(2).verifySource(DIGEST_HEX), x.verify(DIGEST_HEX).buildResult, x.request, x.cancel])
      expect([key, decide('s3:GetObject', key)]).toEqual([key, 'allow']);
    expect(decide('s3:PutObject', x.verify(DIGEST_HEX).buildResult)).toBe('explicit-deny');
    for (const key of [x.request, x.attempt(2).request, x.candidate.prCandidate, `${x.prefix}dispatch/x.json`, x.attempt(2).verifyRequest(DIGEST_HEX)])
      expect([key, decide('s3:PutObject', key)]).toEqual([key, 'implicit-deny']);
    const project = `arn:aws:codebuild:${REGION}:${ACCOUNT}:project/draftsman-${STAGE}-verify`;
    expect(evaluate(verifier, { action: 'codebuild:StartBuild', resource: project })).toBe('allow');
    expect(evaluate(verifier, { action: 'codebuild:StartBuild', resource: `${project}-other` })).toBe('implicit-deny');
    // The dispatcher reads the result it resumes with, and writes nothing of verify/.
    const dispatcher = [statementsOf('DispatcherRole') as Statement[]];
    expect(evaluate(dispatcher, { action: 's3:GetObject', resource: object(x.verify(DIGEST_HEX).result) })).toBe('allow');
    expect(evaluate(dispatcher, { action: 's3:PutObject', resource: object(x.verify(DIGEST_HEX).result) })).toBe('implicit-deny');
  });

  it('a worker session reads its run’s builds but writes none of verify/ and calls no CodeBuild action', () => {
    const run: RunScope = { owner: scope.owner, repo: scope.repo, runId: scope.runId, issue: 4 };
    const workerTags = Object.fromEntries(sessionTags(run).map((t) => [t.Key, t.Value]));
    const layers = [statementsOf('RunWorkerRole') as Statement[], buildSessionPolicy(run, BUCKET)!.Statement as Statement[]];
    const decide = (action: string, key: string) => evaluate(layers, { action, resource: object(key) }, workerTags);
    expect(decide('s3:GetObject', x.verify(DIGEST_HEX).result)).toBe('allow');
    expect(decide('s3:PutObject', x.attempt(1).verifyRequest(DIGEST_HEX))).toBe('allow');
    expect(decide('s3:PutObject', x.attempt(1).verifySource(DIGEST_HEX))).toBe('allow');
    for (const key of [x.verify(DIGEST_HEX).result, x.verify(DIGEST_HEX).started, x.verify(DIGEST_HEX).source, x.verify(DIGEST_HEX).buildResult])
      expect([key, decide('s3:PutObject', key)]).toEqual([key, 'explicit-deny']);
    expect(decide('s3:GetObject', other.verify(DIGEST_HEX).result)).not.toBe('allow');
    for (const action of ['codebuild:StartBuild', 'codebuild:BatchGetBuilds', 'codebuild:CreateProject'])
      expect([action, evaluate(layers, { action, resource: `arn:aws:codebuild:${REGION}:${ACCOUNT}:project/draftsman-${STAGE}-verify` }, workerTags)]).toEqual([
        action,
        'explicit-deny',
      ]);
  });

  it('the verification project runs with a role that has no S3 grant, in a network whose only way out is the artifact bucket', () => {
    const role = statementsOf('VerifyProjectRole') as Statement[];
    for (const action of ['s3:GetObject', 's3:PutObject', 's3:ListBucket'])
      expect([action, evaluate([role], { action, resource: object(x.verify(DIGEST_HEX).source) })]).toEqual([action, 'implicit-deny']);
    const pinned = role.filter((s) => asArray<string>(s.Action).some((a) => !a.startsWith('ec2:Describe')));
    for (const s of pinned) expect(JSON.stringify(s.Condition)).toMatch(/ec2:(Vpc|Subnet)/);
    const project = resolve(resources.VerifyProject.Properties);
    expect(project.ServiceRole).toBe('GETATT:VerifyProjectRole.Arn');
    expect(project.Source.Type).toBe('NO_SOURCE');
    expect(project.Environment).toMatchObject({ Type: 'LINUX_CONTAINER', PrivilegedMode: false });
    expect(project.VpcConfig).toMatchObject({ VpcId: 'REF:VerifyVpc', Subnets: ['REF:VerifySubnet'] });
    // No internet or NAT gateway anywhere in the stack; the subnet's route table has the S3 endpoint only, limited to the bucket.
    const types = Object.values(resources).map((r: Json) => String(r.Type));
    for (const t of ['AWS::EC2::InternetGateway', 'AWS::EC2::NatGateway', 'AWS::EC2::Route', 'AWS::EC2::VPCGatewayAttachment']) expect(types).not.toContain(t);
    const endpoint = resolve(resources.VerifyS3Endpoint.Properties);
    expect(endpoint).toMatchObject({ VpcEndpointType: 'Gateway', RouteTableIds: ['REF:VerifyRouteTable'] });
    expect(endpoint.PolicyDocument.Statement.map((st: Json) => st.Resource)).toEqual([`${BUCKET_ARN}/runs/*`]);
    const rule = resources.VerifierBuildStateRule.Properties.EventPattern;
    expect(rule).toMatchObject({
      source: ['aws.codebuild'],
      'detail-type': ['CodeBuild Build State Change'],
      detail: { 'project-name': [`draftsman-${STAGE}-verify`] },
    });
  });
});
