import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WASM_FILES from '../../../src/app/local/wasm-files.json' with { type: 'json' };
import { HARNESS_FULL_NAME, HARNESS_INSTALLATION_ID, HARNESS_REPOSITORY_ID, scopesOf } from '../../helpers/app-harness.js';
import { LambdaModelProvider } from '../../../src/app/model/model-call.js';
import { S3ArtifactStore } from '../../../src/app/aws/s3-artifact-store.js';
import { runKeys } from '../../../src/core/artifacts/keys.js';
import { startLambdaStandin, startSsmStandin } from '../../helpers/bundle/aws-standins.js';
import { LambdaInitError, startLambdaProcess } from '../../helpers/bundle/lambda-process.js';
import { startScriptedModelServer } from '../../helpers/scripted-model-server.js';
import { executionSession, functionName, startBundledApp, WEBHOOK_SECRET, type BundledApp, type Invocation } from '../../helpers/bundle/bundled-app.js';

/**
 * What ships, run: every function of serverless.yml built with its esbuild configuration and
 * plugins (test/helpers/bundle/build-lambda-bundles.ts), each started in a fresh Node process
 * from a task root outside the repository, configured only through its serverless.yml
 * environment and the AWS SDK endpoint variables, and driven with the events AWS sends:
 * API Gateway HTTP API v2 for the webhook, the bucket's S3 notifications and EventBridge rules
 * (infra/bucket.yml) for intake, dispatcher and publisher, Lambda async and sync invokes for the
 * worker, run-session and the token functions, an EventBridge schedule for the sweeper.
 */

let app: BundledApp;
let ack: { ok: boolean; result?: any };
let chain: Invocation[];
/** The publisher showing the worker's progress on the issue (the worker cannot write there). */
let relays: Invocation[];
let runId: string;
const relay = (c: Invocation) => c.fn === 'publisher' && /\/attempts\/\d+\/(progress|approval-request)\.json$/.test(c.key ?? '');
const outcomeOf = (i: Invocation) => (i.outcome.ok ? true : `${i.outcome.errorType}: ${i.outcome.errorMessage}`);

beforeAll(async () => {
  app = await startBundledApp();
  const labeled = app.payloads.labeled(1);
  ack = await app.processes.webhook.invoke(await app.webhookEvent('issues', labeled));
  const all = await app.drain();
  chain = all.filter((c) => !relay(c));
  relays = all.filter(relay);
  runId = /^runs\/acme\/orders\/([^/]+)\//.exec(chain.find((c) => c.key?.startsWith('runs/'))?.key ?? '')?.[1] ?? '';
}, 150_000);

afterAll(async () => app?.stop());

describe('the packaged Lambda bundles', () => {
  it('bundle: every function of serverless.yml starts cold in its own process, outside the repository', () => {
    expect(Object.keys(app.processes).sort()).toEqual([
      'campaign',
      'dispatcher',
      'intake',
      'modelCall',
      'publisher',
      'runSession',
      'scheduleFire',
      'scheduleSync',
      'sweeper',
      'tokenRead',
      'tokenWrite',
      'verifier',
      'webhook',
      'worker',
    ]);
    for (const fn of Object.values(app.functions)) expect(fn.taskRoot.startsWith(process.cwd())).toBe(false);
    // The worker's package holds every wasm file the loader reads by name: runtime, grammars and formatters.
    const shipped = readdirSync(join(app.functions.worker.taskRoot, 'wasm')).sort();
    expect(shipped).toEqual(
      Object.values(WASM_FILES)
        .map((file) => basename(file))
        .sort(),
    );
    expect(shipped).toEqual(expect.arrayContaining(['gofmt.wasm', 'ruff_fmt_bg.wasm']));
    // The cold starts read their secrets from SSM, decrypted: the webhook its secret (before the first event), the token functions the App key on first use.
    expect(app.ssm.calls.filter((c) => c.name.endsWith('/webhook-secret'))).toEqual([
      { name: '/draftsman/test/webhook-secret', withDecryption: true, accessKeyId: 'S3RVER' },
    ]);
    console.log(
      `bundle build ${app.timings.buildMs} ms, build + ${Object.keys(app.functions).length} cold starts ${app.timings.startMs} ms; ${Object.values(
        app.functions,
      )
        .map((f) => `${f.key} ${(f.bytes / 1024).toFixed(0)} KiB`)
        .join(', ')}`,
    );
  });

  it('bundle: a signed issues.labeled delivery runs webhook -> intake -> dispatcher -> worker -> publisher through the bundles to a draft pull request', () => {
    expect(ack).toMatchObject({ ok: true, result: { statusCode: 202 } });
    // A failed invocation shows its error (errorType: errorMessage) instead of `true`.
    expect(chain.map((c) => [c.fn, c.via, outcomeOf(c)])).toEqual([
      ['intake', 's3', true],
      ['dispatcher', 's3', true],
      ['worker', 'lambda-event', true],
      ['publisher', 's3', true],
    ]);
    expect(relays.length).toBeGreaterThan(0);
    expect(relays.map(outcomeOf).filter((o) => o !== true)).toEqual([]);
    expect(chain[0].key).toMatch(/^deliveries\/[0-9a-f-]+\.json$/);
    expect(chain[3].key).toBe(`runs/acme/orders/${runId}/candidate/pr-candidate.json`);
    const pulls = [...app.standin.repo(HARNESS_FULL_NAME).pulls.values()];
    expect(pulls).toHaveLength(1);
    expect(pulls[0]).toMatchObject({ draft: true, state: 'open', head: `agent/i1/r${runId}`, base: 'main' });
    expect(chain[3].outcome).toMatchObject({
      ok: true,
      result: [{ outcome: { kind: 'published', record: { prNumber: pulls[0].number, branch: `agent/i1/r${runId}` } } }],
    });
  });

  it('bundle: each function reaches only the functions the trust chain allows, with the scopes of its role', () => {
    const caller = (token: string | undefined) => Object.keys(app.functions).find((k) => executionSession(k) === token) ?? 'test';
    // Each call once, in the order first made (the publisher asks token-write once per invocation).
    expect([...new Set(app.lambda.calls.map((c) => `${caller(c.sessionToken)} -> ${c.type === 'Event' ? 'async' : 'sync'} ${c.functionName}`))]).toEqual([
      `intake -> sync ${functionName('tokenRead')}`,
      `dispatcher -> async ${functionName('worker')}`,
      `worker -> sync ${functionName('runSession')}`,
      `runSession -> sync ${functionName('tokenRead')}`,
      `publisher -> sync ${functionName('tokenWrite')}`,
    ]);
    // run-session asked STS for RunWorkerRole, limited by the run's tags and a session policy.
    expect(app.sts.calls).toHaveLength(1);
    expect(app.sts.calls[0]).toMatchObject({
      roleArn: expect.stringMatching(/:role\/draftsman-test-runWorker-us-east-1$/),
      tags: { owner: 'acme', repo: 'orders', runId },
    });
    expect(app.sts.calls[0].policy).toMatchObject({ Version: '2012-10-17' });
    // Every S3 request of every bundle was within its role (and the worker's within its session).
    expect(app.iam.log.filter((d) => d.decision !== 'allow')).toEqual([]);
    const principals = new Set(app.iam.log.map((d) => d.principal));
    expect([...principals].sort()).toEqual(['dispatcher', 'intake', 'publisher', 'runSession', 'webhook', 'worker session 1']);
    // The webhook only wrote its delivery.
    expect(app.iam.log.filter((d) => d.principal === 'webhook').map((d) => d.action)).toEqual(['s3:PutObject']);
    const minted = app.standin.state.tokens().map((t) => t.permissions);
    // The intake's read token, the worker's (no issues permission, minted by token-read for run-session), the publisher's write token (reused while it lives).
    expect(minted).toEqual([scopesOf('read'), scopesOf('worker'), scopesOf('write')]);
  });

  it('bundle: S3 refuses the worker its own execution role and another run; the IAM check in front of S3 is live', async () => {
    const asSession = (sessionToken: string) =>
      new S3Client({
        endpoint: app.iam.url,
        region: 'us-east-1',
        forcePathStyle: true,
        maxAttempts: 1,
        credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', sessionToken },
      });
    const read = async (client: S3Client, key: string) => {
      try {
        await client.send(new GetObjectCommand({ Bucket: app.s3.bucket, Key: key }));
        return 'read';
      } catch (error) {
        return (error as { name?: string }).name;
      } finally {
        client.destroy();
      }
    };
    const request = `runs/acme/orders/${runId}/request.json`;
    expect(await read(asSession(executionSession('worker')), request)).toBe('AccessDenied');
    expect(await read(asSession('standin-session-token-1'), request)).toBe('read');
    expect(await read(asSession('standin-session-token-1'), 'runs/acme/orders/other-run/request.json')).toBe('AccessDenied');
  });

  it('bundle: every log line is JSON naming its function, and no secret reaches a log', () => {
    const secrets = [WEBHOOK_SECRET, ...app.standin.state.tokenValues(), ...app.privateKeyPem.split('\n').filter((l) => l.length >= 40)];
    for (const [key, p] of Object.entries(app.processes)) {
      for (const line of p.logs) {
        for (const secret of secrets) expect(line, `${key} logged a secret`).not.toContain(secret);
      }
      // The token functions log nothing (nor do the sweeper, model-call, the verifier, the campaign and schedule functions, not invoked here); the others only JSON lines.
      if (key.startsWith('token') || key.startsWith('schedule') || ['sweeper', 'modelCall', 'verifier', 'campaign'].includes(key)) continue;
      expect(p.logs.length, key).toBeGreaterThan(0);
      for (const line of p.logs) expect(JSON.parse(line), `${key}: ${line}`).toMatchObject({ fn: key, level: expect.any(String), msg: expect.any(String) });
      // Each line names its invocation; only the container's first invocation is a cold start.
      const entries = p.logs.map((line) => JSON.parse(line) as { awsRequestId?: unknown; coldStart?: unknown });
      for (const e of entries) expect(e, key).toMatchObject({ awsRequestId: expect.any(String), coldStart: expect.any(Boolean) });
      expect(entries[0].coldStart, key).toBe(true);
      expect(new Set(entries.filter((e) => e.coldStart).map((e) => e.awsRequestId)).size, key).toBe(1);
    }
  });

  it('bundle: a failing check suite reaches the publisher bundle through the EventBridge rule (Verification section) and starts one CI repair through the dispatcher and the worker', async () => {
    const [pr] = [...app.standin.repo(HARNESS_FULL_NAME).pulls.values()];
    const head = (await app.standin.resolve(HARNESS_FULL_NAME, `refs/heads/${pr.head}`))!;
    const suite = app.standin.addCheckSuite(HARNESS_FULL_NAME, {
      headSha: head,
      headBranch: pr.head,
      conclusion: 'failure',
      runs: [{ name: 'integration-tests', conclusion: 'failure', detailsUrl: 'https://ci.example/it/1' }],
    });
    const res = await app.processes.webhook.invoke(
      await app.webhookEvent('check_suite', app.payloads.checkSuiteCompleted({ id: suite.id, headSha: head, headBranch: pr.head, conclusion: 'failure' })),
    );
    expect(res).toMatchObject({ ok: true, result: { statusCode: 202 } });
    const all = await app.drain();
    expect(
      all
        .filter(relay)
        .map(outcomeOf)
        .filter((o) => o !== true),
    ).toEqual([]);
    const ran = all.filter((r) => !relay(r));
    expect(ran.map((r) => [r.fn, r.via, r.key, outcomeOf(r)])).toEqual([
      ['intake', 's3', expect.stringMatching(/^deliveries\//), true],
      ['publisher', 'eventbridge', `runs/acme/orders/${runId}/ci/${suite.id}.json`, true],
      // agent.ciRepair.maxAttempts defaults to 1: the intake asked for a repair attempt.
      ['dispatcher', 's3', `runs/acme/orders/${runId}/attempts/2/request.json`, true],
      ['worker', 'lambda-event', undefined, true],
    ]);
    expect(app.standin.repo(HARNESS_FULL_NAME).pulls.get(pr.number)!.body).toMatch(
      /\| \[integration-tests\]\(https:\/\/ci\.example\/it\/1\) \| completed \| failure \|/,
    );
  });

  it('bundle: the webhook bundle refuses a delivery signed with another secret', async () => {
    const res = await app.processes.webhook.invoke(await app.webhookEvent('issues', app.payloads.labeled(1), { secret: 'not-the-secret' }));
    expect(res).toMatchObject({ ok: true, result: { statusCode: 401 } });
  });

  it('bundle: the sweeper bundle answers its EventBridge schedule', async () => {
    const scheduled = {
      version: '0',
      id: '5d0f4b5e-0d6c-4c5a-9b1e-000000000001',
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      account: '123456789012',
      time: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
      region: 'us-east-1',
      resources: ['arn:aws:events:us-east-1:123456789012:rule/draftsman-test-SweeperEventsRuleSchedule1'],
      detail: {},
    };
    const res = await app.processes.sweeper.invoke(scheduled);
    expect(res).toMatchObject({ ok: true, result: { locksReleased: [], runsFailed: [], problems: 0 } });
  });

  it('bundle: the token functions answer a direct Lambda invocation with their fixed scopes, and refuse anything else', async () => {
    const client = new LambdaClient({ endpoint: app.lambda.url, region: 'us-east-1', credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    const invoke = async (fn: string, payload: unknown) => {
      const out = await client.send(new InvokeCommand({ FunctionName: functionName(fn), Payload: Buffer.from(JSON.stringify(payload)) }));
      return { error: out.FunctionError, body: JSON.parse(Buffer.from(out.Payload!).toString('utf8')) };
    };
    const request = { installationId: HARNESS_INSTALLATION_ID, repositoryId: HARNESS_REPOSITORY_ID };
    const write = await invoke('tokenWrite', request);
    expect(write.error).toBeUndefined();
    expect(write.body).toMatchObject({ token: expect.any(String), permissions: scopesOf('write'), repositoryIds: [HARNESS_REPOSITORY_ID] });
    const read = await invoke('tokenRead', request);
    expect(read.body).toMatchObject({ permissions: scopesOf('read'), repositoryIds: [HARNESS_REPOSITORY_ID] });
    // A wider request is refused by the bundle's own validation, with the typed error's name.
    const wider = await invoke('tokenWrite', { ...request, permissions: { administration: 'write' } });
    expect(wider).toMatchObject({
      error: 'Unhandled',
      body: { errorType: 'TokenError', errorMessage: expect.stringContaining('exactly installationId and repositoryId') },
    });
    client.destroy();
  });

  it('bundle: model-call reads the model key from SSM and answers a worker request through the provider; the worker is never given the key', async () => {
    const KEY = 'sk-bundle-model-key-0123456789abcdef';
    const PARAMETER = '/draftsman/test/model-api-key';
    const model = await startScriptedModelServer({
      apiKey: KEY,
      script: [{ content: 'hello from the model', usage: { promptTokens: 3, completionTokens: 4 } }],
    });
    const ssm = await startSsmStandin({ [PARAMETER]: KEY });
    const fn = app.functions.modelCall;
    const p = await startLambdaProcess({
      name: 'draftsman-test-modelCall-keyed',
      taskRoot: fn.taskRoot,
      handler: fn.handler,
      environment: {
        AWS_ACCESS_KEY_ID: 'S3RVER',
        AWS_SECRET_ACCESS_KEY: 'S3RVER',
        AWS_ENDPOINT_URL_SSM: ssm.url,
        MODEL_BASE_URL: model.baseUrl,
        MODEL_NAME: 'scripted-1',
        MODEL_API_KEY_PARAMETER: PARAMETER,
        MODEL_PRICES: '{"scripted-1": {"inputPerMTokUsd": 1, "outputPerMTokUsd": 2}}',
        // The spend records: model-call's bucket (s3rver itself here; the IAM checks are the package test's).
        ARTIFACT_BUCKET: app.s3.bucket,
        AWS_ENDPOINT_URL_S3: app.s3.endpoint,
        LOG_LEVEL: 'info',
      },
    });
    const store = new S3ArtifactStore({ client: app.s3.client, bucket: app.s3.bucket, sleep: async () => undefined });
    const run = runKeys('acme', 'orders', 'bundlespend1');
    await store.put(
      run.request,
      JSON.stringify({
        schemaVersion: 1,
        runId: 'bundlespend1',
        owner: 'acme',
        repo: 'orders',
        source: { kind: 'github', repositoryId: 7, installationId: 77, cloneUrl: 'https://example.invalid/acme/orders.git', apiUrl: 'https://api.github.com' },
        trigger: { kind: 'label', key: 'label-1' },
        agentBranch: 'agent/i1/rbundlespend1',
        createdAt: '2026-02-03T04:05:06.000Z',
      }),
    );
    const stops: (() => Promise<void>)[] = [];
    try {
      // The worker's provider, through the Lambda Invoke API in front of the bundle.
      const lambda = await startLambdaStandin({ [functionName('modelCall')]: (payload) => p.invoke(payload) });
      stops.push(() => lambda.stop());
      const client = new LambdaClient({ endpoint: lambda.url, region: 'us-east-1', credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
      stops.push(async () => client.destroy());
      const unscoped = new LambdaModelProvider({ client, functionName: functionName('modelCall'), model: 'scripted-1' });
      // A request that names no run is charged to nobody: refused before the provider is asked.
      await expect(unscoped.complete({ messages: [{ role: 'user', content: 'hi' }], tools: [] })).rejects.toMatchObject({ reason: 'MODEL_REQUEST_REJECTED' });
      const provider = unscoped.forSpend({ owner: 'acme', repo: 'orders', runId: 'bundlespend1', attempt: 1, installation: 'ignored', caps: {} });
      const response = await provider.complete({ messages: [{ role: 'user', content: 'hi' }], tools: [] });
      expect(response.message.content).toBe('hello from the model');
      // Charged to the run's task record and its installation's month, at the configured price.
      const spent = JSON.parse(new TextDecoder().decode((await store.get(run.spend))!.body));
      expect(spent).toMatchObject({ calls: 1, tokensIn: 3, tokensOut: 4, costMicroUsd: 11, reserved: {} });
      expect((await store.list('spend/installations/77/')).length).toBe(1);
      expect(await store.list(run.attempt(1).trailPrefix)).toHaveLength(1);
      expect(model.requests.map((r) => r.authorization)).toEqual([`Bearer ${KEY}`]);
      expect(ssm.calls.map((c) => c.name)).toEqual([PARAMETER]);
      // A request that names where to send it, or with which key, is not a model request.
      const forged = await p.invoke({ messages: [{ role: 'user', content: 'hi' }], tools: [], baseUrl: 'http://127.0.0.1:9/', apiKey: 'x' });
      expect(forged).toMatchObject({ ok: true, result: { ok: false, reason: 'MODEL_REQUEST_REJECTED' } });
      expect(model.requests).toHaveLength(1);
      for (const line of p.logs) expect(line).not.toContain(KEY);
      // The worker's configuration never names the key; it names model-call.
      expect(Object.keys(app.functions.worker.environment)).not.toContain('MODEL_API_KEY_PARAMETER');
      expect(Object.keys(app.functions.worker.environment)).toContain('MODEL_CALL_FUNCTION');
    } finally {
      await Promise.all([p.stop(), ssm.stop(), model.close(), ...stops.map((stop) => stop())]);
    }
  });

  it('bundle: a function started without the configuration it needs fails at cold start, as Lambda reports an init error', async () => {
    const publisher = app.functions.publisher;
    const started = startLambdaProcess({
      name: 'draftsman-test-misconfigured',
      taskRoot: publisher.taskRoot,
      handler: publisher.handler,
      environment: { ARTIFACT_BUCKET: app.s3.bucket, GITHUB_APP_ID: '31' },
    });
    await expect(started).rejects.toThrow(LambdaInitError);
    await expect(started).rejects.toThrow(/TOKEN_WRITE_FUNCTION is required by the publisher/);
  });

  it('bundle: a container invoked again is warm: its later invocations log coldStart false under their own request ids', () => {
    for (const key of ['webhook', 'publisher'] as const) {
      const entries = app.processes[key].logs.map((line) => JSON.parse(line) as { awsRequestId: string; coldStart: boolean });
      const ids = [...new Set(entries.map((e) => e.awsRequestId))];
      expect(ids.length, key).toBeGreaterThan(1);
      for (const e of entries) expect(e.coldStart, `${key} ${e.awsRequestId}`).toBe(e.awsRequestId === ids[0]);
    }
  });
});
