import { sign } from '@octokit/webhooks-methods';
import type { APIGatewayProxyEventV2, S3EventRecord } from 'aws-lambda';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeS3EventKey } from '../../../src/app/aws/s3-artifact-store.js';
import { buildPayloads, harnessStandinOptions, HARNESS_APP_ID, HARNESS_FULL_NAME, MAINTAINER, READER, type HarnessPayloads } from '../app-harness.js';
import { startGitHttpServer, type GitHttpServer } from '../git-http-server.js';
import { startGitHubStandin, type GitHubStandin } from '../github-standin/index.js';
import { startS3Server, type S3TestServer } from '../s3-server.js';
import { startLambdaStandin, startSsmStandin, startStsStandin, type InvokeOutcome } from './aws-standins.js';
import { roleStatements } from '../stack-roles.js';
import type { Statement } from '../iam-policy.js';
import { bucketRouting } from './bucket-routing.js';
import { startIamS3Proxy, type Principal } from './iam-s3-proxy.js';
import { buildLambdaBundles, type BuiltFunction } from './build-lambda-bundles.js';
import { startLambdaProcess, type LambdaProcess } from './lambda-process.js';

/**
 * The packaged App on loopback: every function of serverless.yml built as `osls package` builds
 * it and started in its own Node process, talking to s3rver, the GitHub stand-in (with a git
 * http-backend for clones) and the SSM, STS and Lambda stand-ins only through the AWS SDK's
 * endpoint variables and the configured GitHub API URL. Nothing of src/ is loaded in process
 * except pure helpers to read keys.
 */

export const STAGE = 'test';
const PREFIX = `draftsman-${STAGE}`;
const PARAMETERS = { appPrivateKey: `/draftsman/${STAGE}/app-private-key`, webhookSecret: `/draftsman/${STAGE}/webhook-secret` };
/** The keys s3rver accepts; STS vends them too, so a worker session reaches the bucket. */
const S3_KEYS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
/** GitHub asks for a second between writes; the functions keep that spacing, fifty times faster. */
const TIME_SCALE = 50;
export const WEBHOOK_SECRET = 'bundle-webhook-secret-0123456789abcdef';

/** The session token of a function's execution-role credentials (how S3 tells the callers apart). */
export const executionSession = (key: string) => `execution-role-session-${key}`;

/** Deployed name of a function: serverless.yml's explicit names, else `<service>-<stage>-<key>`. */
export const functionName = (key: string) => `${PREFIX}-${key}`;

/** One invocation `drain()` made: which function, how it was triggered, what it answered. */
export interface Invocation {
  fn: string;
  via: 's3' | 'eventbridge' | 'lambda-event';
  key?: string;
  outcome: InvokeOutcome;
  ms: number;
}

export interface BundledApp {
  /** How long building the bundles, and building plus all cold starts, took. */
  timings: { buildMs: number; startMs: number };
  functions: Record<string, BuiltFunction>;
  processes: Record<string, LambdaProcess>;
  s3: S3TestServer;
  /** The IAM check in front of S3 (every function's S3 endpoint), with its decisions. */
  iam: Awaited<ReturnType<typeof startIamS3Proxy>>;
  standin: GitHubStandin;
  git: GitHttpServer;
  ssm: Awaited<ReturnType<typeof startSsmStandin>>;
  sts: Awaited<ReturnType<typeof startStsStandin>>;
  lambda: Awaited<ReturnType<typeof startLambdaStandin>>;
  payloads: HarnessPayloads;
  privateKeyPem: string;
  /** An API Gateway HTTP API (payload 2.0) event for a signed delivery, as GitHub sends it through the route in serverless.yml. */
  webhookEvent(eventName: string, payload: unknown, options?: { secret?: string; deliveryId?: string }): Promise<APIGatewayProxyEventV2>;
  /** Forward queued S3 notifications and queued async invocations to the functions until none is left; returns what ran. */
  drain(): Promise<Invocation[]>;
  stop(): Promise<void>;
}

export async function startBundledApp(): Promise<BundledApp> {
  const timings = { buildMs: 0, startMs: 0 };
  const dir = mkdtempSync(join(tmpdir(), 'draftsman-bundles-'));
  const privateKeyPem = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  }).privateKey;
  const users = { [MAINTAINER]: 'write', [READER]: 'read' } as const;
  const t0 = Date.now();
  const [functions, s3, standin, ssm, sts] = await Promise.all([
    buildLambdaBundles(dir).then((f) => ((timings.buildMs = Date.now() - t0), f)),
    startS3Server(),
    startGitHubStandin(harnessStandinOptions({ privateKeyPem, users })),
    startSsmStandin({ [PARAMETERS.webhookSecret]: WEBHOOK_SECRET, [PARAMETERS.appPrivateKey]: privateKeyPem }),
    startStsStandin({ credentials: S3_KEYS, now: () => Date.now() }),
  ]);
  const git = await startGitHttpServer({ root: standin.gitRoot });
  // Each function's S3 requests are authorised as IAM would: its execution role, or for a
  // worker session RunWorkerRole with run-session's session policy and tags.
  const rolesOf = (role: string) => {
    try {
      return roleStatements(role, { bucket: s3.bucket, prefix: PREFIX });
    } catch {
      return []; // a role without inline policies grants nothing
    }
  };
  const runWorkerRole = rolesOf('RunWorkerRole');
  const principalOf = (sessionToken: string | undefined): Principal | undefined => {
    const fn = Object.values(functions).find((f) => sessionToken === executionSession(f.key));
    if (fn) return { name: fn.key, layers: [rolesOf(fn.role)] };
    const vended = /^standin-session-token-(\d+)$/.exec(sessionToken ?? '');
    const session = vended ? sts.calls[Number(vended[1]) - 1] : undefined;
    if (!session) return undefined;
    const policy = (session.policy as { Statement?: Statement[] } | undefined)?.Statement;
    return { name: `worker session ${vended![1]}`, layers: policy ? [runWorkerRole, policy] : [runWorkerRole], tags: session.tags };
  };
  const iam = await startIamS3Proxy({ target: s3.endpoint, bucket: s3.bucket, principalOf });
  const invokers: Record<string, (payload: unknown) => Promise<InvokeOutcome>> = {};
  const lambda = await startLambdaStandin(invokers);

  const s3Events: S3EventRecord[] = [];
  const unsubscribe = s3.onEvent((event) => s3Events.push(...event.Records));

  // Each function gets exactly the variables serverless.yml gives it, with values for this stage.
  const values: Record<string, (fn: BuiltFunction) => string | undefined> = {
    ARTIFACT_BUCKET: () => s3.bucket,
    GITHUB_APP_ID: () => String(HARNESS_APP_ID),
    GITHUB_APP_SLUG: () => 'draftsman',
    GITHUB_API_URL: () => standin.url,
    WEBHOOK_SECRET_PARAMETER: () => PARAMETERS.webhookSecret,
    APP_PRIVATE_KEY_PARAMETER: () => PARAMETERS.appPrivateKey,
    TOKEN_READ_FUNCTION: () => functionName('tokenRead'),
    TOKEN_WRITE_FUNCTION: () => functionName('tokenWrite'),
    WORKER_FUNCTION: () => functionName('worker'),
    // The run queue: the worker's reserved concurrency, and its wake-up queue (no run waits here, so nothing is sent).
    WORKER_CONCURRENCY: () => '5', // serverless.yml's default workerConcurrency
    RUN_QUEUE_URL: () => `https://sqs.us-east-1.amazonaws.com/123456789012/${PREFIX}-run-queue-wake`,
    RUN_SESSION_FUNCTION: () => functionName('runSession'),
    // The campaign state machine the intake starts (no campaign is started here).
    CAMPAIGN_STATE_MACHINE_ARN: () => `arn:aws:states:us-east-1:123456789012:stateMachine:${PREFIX}-campaign`,
    // Schedules (no schedule is synchronised or fired here).
    SCHEDULE_SYNC_FUNCTION: () => functionName('scheduleSync'),
    SCHEDULE_GROUP: () => PREFIX,
    SCHEDULE_FIRE_ARN: () => `arn:aws:lambda:us-east-1:123456789012:function:${functionName('scheduleFire')}`,
    SCHEDULER_ROLE_ARN: () => `arn:aws:iam::123456789012:role/${PREFIX}-schedulerInvoke-us-east-1`,
    RUN_WORKER_ROLE_ARN: () => `arn:aws:iam::123456789012:role/${PREFIX}-runWorker-us-east-1`,
    // The verifier's project and build role (no build is started here: the harness policy runs no commands).
    VERIFY_PROJECT: () => `${PREFIX}-verify`,
    VERIFY_BUILD_ROLE_ARN: () => `arn:aws:iam::123456789012:role/${PREFIX}-verifyBuild-us-east-1`,
    VERIFY_IMAGE: (fn) => String(fn.environment.VERIFY_IMAGE),
    DRAFTSMAN_WASM_DIR: (fn) => join(fn.taskRoot, 'wasm'),
    LOG_LEVEL: () => 'info',
    // Process tuning, set as deployed (src/app/runtime/worker-environment.ts).
    MALLOC_ARENA_MAX: (fn) => String(fn.environment.MALLOC_ARENA_MAX),
    // Set only when a model is configured (CloudFormation !If): no model here.
    MODEL_PROVIDER: () => undefined,
    MODEL_BASE_URL: () => undefined,
    MODEL_NAME: () => undefined,
    MODEL_PRICES: () => undefined,
    MODEL_MAX_OUTPUT_TOKENS: () => undefined,
    MODEL_API_KEY_PARAMETER: () => undefined,
    MODEL_CALL_FUNCTION: () => undefined,
    // The deployment's cap on each installation's monthly spend (CloudFormation !If): none here.
    INSTALLATION_MONTHLY_COST_USD: () => undefined,
  };
  const environmentOf = (fn: BuiltFunction): Record<string, string> => {
    const env: Record<string, string> = {
      AWS_ACCESS_KEY_ID: S3_KEYS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: S3_KEYS.secretAccessKey,
      AWS_SESSION_TOKEN: executionSession(fn.key),
      AWS_ENDPOINT_URL_S3: iam.url,
      AWS_ENDPOINT_URL_SSM: ssm.url,
      AWS_ENDPOINT_URL_STS: sts.url,
      AWS_ENDPOINT_URL_LAMBDA: lambda.url,
    };
    for (const name of Object.keys(fn.environment)) {
      const value = values[name];
      if (!value) throw new Error(`serverless.yml gives ${fn.key} ${name}, which the bundle test does not know how to set`);
      const resolved = value(fn);
      if (resolved !== undefined) env[name] = resolved;
    }
    return env;
  };

  const processes: Record<string, LambdaProcess> = {};
  const started = await Promise.allSettled(
    Object.values(functions).map(async (fn) => {
      const p = await startLambdaProcess({
        name: functionName(fn.key),
        taskRoot: fn.taskRoot,
        handler: fn.handler,
        environment: environmentOf(fn),
        memorySize: fn.memorySize,
        timeoutSeconds: fn.timeout,
        timeScale: TIME_SCALE,
      });
      processes[fn.key] = p;
      invokers[functionName(fn.key)] = (payload) => p.invoke(payload);
    }),
  );

  timings.startMs = Date.now() - t0;
  const stop = async () => {
    unsubscribe();
    await Promise.all(Object.values(processes).map((p) => p.stop()));
    await Promise.all([iam.stop(), lambda.stop(), ssm.stop(), sts.stop(), git.stop(), standin.stop(), s3.stop()]);
    rmSync(dir, { recursive: true, force: true });
  };
  const failed = started.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed.length > 0) {
    await stop();
    throw new AggregateError(
      failed.map((f) => f.reason),
      failed.map((f) => (f.reason instanceof Error ? f.reason.message : String(f.reason))).join('\n'),
    );
  }

  const payloads = buildPayloads(standin);
  const cloneUrl = `${git.url}/${HARNESS_FULL_NAME}.git`;
  let deliveries = 0;
  const webhookEvent = async (eventName: string, payload: unknown, options: { secret?: string; deliveryId?: string } = {}): Promise<APIGatewayProxyEventV2> => {
    deliveries += 1;
    // The worker clones what the delivery names; here that is the git server over the stand-in's repositories.
    const withClone =
      payload && typeof payload === 'object' && 'repository' in payload
        ? { ...payload, repository: { ...(payload.repository as object), clone_url: cloneUrl } }
        : payload;
    const body = JSON.stringify(withClone);
    const headers: Record<string, string> = {
      accept: '*/*',
      'content-length': String(Buffer.byteLength(body)),
      'content-type': 'application/json',
      host: 'abc123.execute-api.us-east-1.amazonaws.com',
      'user-agent': 'GitHub-Hookshot/044aadd',
      'x-github-delivery': options.deliveryId ?? `00000000-0000-4000-8000-${String(deliveries).padStart(12, '0')}`,
      'x-github-event': eventName,
      'x-github-hook-id': '1',
      'x-github-hook-installation-target-id': String(HARNESS_APP_ID),
      'x-github-hook-installation-target-type': 'integration',
      'x-hub-signature-256': await sign(options.secret ?? WEBHOOK_SECRET, body),
    };
    const now = new Date();
    return {
      version: '2.0',
      routeKey: 'POST /api/github/webhooks',
      rawPath: '/api/github/webhooks',
      rawQueryString: '',
      headers,
      requestContext: {
        accountId: '123456789012',
        apiId: 'abc123',
        domainName: headers.host,
        domainPrefix: 'abc123',
        http: { method: 'POST', path: '/api/github/webhooks', protocol: 'HTTP/1.1', sourceIp: '140.82.115.1', userAgent: headers['user-agent'] },
        requestId: `api-request-${deliveries}`,
        routeKey: 'POST /api/github/webhooks',
        stage: '$default',
        time: now.toUTCString(),
        timeEpoch: now.getTime(),
      },
      body,
      isBase64Encoded: false,
    };
  };

  const route = bucketRouting();
  const drain = async () => {
    const ran: Invocation[] = [];
    const run = async (fn: string, event: unknown, via: Invocation['via'], key?: string) => {
      const started = Date.now();
      const outcome = await processes[fn].invoke(event);
      ran.push({ fn, via, key, outcome, ms: Date.now() - started });
    };
    while (ran.length < 50) {
      // s3rver emits its event after answering the PUT: give it a moment.
      await new Promise((resolve) => setTimeout(resolve, 20));
      const record = s3Events.shift();
      if (record) {
        for (const d of route(record)) await run(d.fn, d.event, d.via, decodeS3EventKey(record.s3.object.key));
        continue;
      }
      const queued = lambda.queued.shift();
      if (!queued) return ran;
      const key = Object.keys(functions).find((k) => functionName(k) === queued.functionName);
      if (!key) throw new Error(`async invocation of unknown function ${queued.functionName}`);
      await run(key, queued.payload, 'lambda-event');
    }
    throw new Error(`drain: more than 50 invocations: ${ran.map((r) => `${r.fn} ${r.key ?? ''}`).join(', ')}`);
  };

  return { timings, functions, processes, s3, iam, standin, git, ssm, sts, lambda, payloads, privateKeyPem, webhookEvent, drain, stop };
}
