/**
 * Webhook acknowledgement latency, in process: signed deliveries built from
 * `@octokit/webhooks-examples` go through the webhook handler's testable core
 * (`createWebhookHandler`) with the S3 store on a local s3rver; then the intake
 * (`createIntakeHandler`) runs each stored delivery against the GitHub REST stand-in behind an
 * in-process token broker, the stand-in answering every call after `latencyMs` (default 150 ms,
 * what real GitHub takes). The acknowledgement makes no GitHub call, so the latency shows in the
 * intake's records only. Runnable alone:
 *   node --import tsx bench/webhook.bench.ts [--json] [deliveries] [--latency=<ms>]
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { sign } from '@octokit/webhooks-methods';
import { S3ArtifactStore } from '../src/app/aws/s3-artifact-store.js';
import { createGitHubApi } from '../src/app/github/github-api.js';
import { InProcessTokenBroker } from '../src/app/tokens/in-process-token-broker.js';
import { mintInstallationToken } from '../src/app/tokens/mint-installation-token.js';
import { scopesFor } from '../src/app/tokens/token-scopes.js';
import { CapturingLogger } from '../src/app/logger.js';
import { createIntakeHandler } from '../src/app/webhook/create-intake-handler.js';
import { createWebhookHandler } from '../src/app/webhook/create-webhook-handler.js';
import type { TokenBroker } from '../src/core/ports.js';
import { STANDIN_GITHUB_POLICY, startGitHubStandin } from '../test/helpers/github-standin/index.js';
import { createTestS3Client, startS3Server } from '../test/helpers/s3-server.js';
import { fixedClock, testAppKey } from '../test/integration/github/standin-fixture.js';
import type { BenchRecord } from './bench-record.js';
import { recordingPuts } from '../test/helpers/recording-store.js';

export type { BenchRecord };

const OWNER = 'acme';
const REPO = 'widgets';
const REPO_ID = 11;
const APP_ID = 31;
const INSTALLATION_ID = 1;
const SECRET = 'bench-webhook-secret';
const BOT = 'draftsman[bot]';

/** Delivery kinds, in the order of the mix; `share` of the total, the rest go to the first. */
type Kind = 'label-start' | 'label-other' | 'comment-chat' | 'comment-bot' | 'push' | 'unsubscribed';
const MIX: { kind: Kind; share: number; what: string }[] = [
  { kind: 'label-start', share: 0.4, what: 'issues.labeled agent:run by a writer on a fresh issue: stored; the intake starts a run' },
  { kind: 'label-other', share: 0.1, what: 'issues.labeled with another label: stored; the intake reads the policy and ignores it' },
  { kind: 'comment-chat', share: 0.2, what: 'issue_comment.created without a command: ignored by the webhook, nothing stored' },
  { kind: 'comment-bot', share: 0.1, what: 'issue_comment.created by a bot: ignored by the webhook, nothing stored' },
  { kind: 'push', share: 0.1, what: 'push to a branch: stored; the intake looks for agent pull requests on it' },
  { kind: 'unsubscribed', share: 0.1, what: 'star/watch: not subscribed, nothing stored' },
];

/** Intakes in flight at once, as Lambda runs them side by side (the function's reserved concurrency). */
const INTAKE_CONCURRENCY = 10;
/**
 * Stored deliveries the intake runs, at most (an even sample over the run): the stand-in takes
 * up to a second a call under load on top of `latencyMs`, so all of them would not fit the job.
 */
const INTAKE_SAMPLE = 100;

const require = createRequire(import.meta.url);
interface ExampleGroup {
  name: string;
  examples: Record<string, unknown>[];
}
const EXAMPLES = require('@octokit/webhooks-examples') as ExampleGroup[];

function example(event: string, action?: string): Record<string, unknown> {
  const group = EXAMPLES.find((g) => g.name === event);
  const found = group?.examples.find((e) => action === undefined || e.action === action);
  if (!found) throw new Error(`no webhooks example for ${event}.${action ?? '*'}`);
  return structuredClone(found);
}

/** Point an example payload at the stand-in's repository and installation. */
function retarget(payload: Record<string, unknown>): Record<string, unknown> {
  const repository = payload.repository as Record<string, unknown> | undefined;
  if (repository) {
    Object.assign(repository, {
      id: REPO_ID,
      name: REPO,
      full_name: `${OWNER}/${REPO}`,
      default_branch: 'main',
      clone_url: `https://github.example/${OWNER}/${REPO}.git`,
      owner: { ...(repository.owner as object), login: OWNER },
    });
  }
  payload.installation = { id: INSTALLATION_ID, node_id: 'MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uMQ==' };
  return payload;
}

function delivery(kind: Kind, n: number, issue: number): { event: string; payload: Record<string, unknown> } {
  const human = { login: 'alice', id: 1001, type: 'User' };
  const bot = { login: 'ci-helper[bot]', id: 2002, type: 'Bot' };
  switch (kind) {
    case 'label-start':
    case 'label-other': {
      const p = retarget(example('issues', 'labeled'));
      const i = p.issue as Record<string, unknown>;
      Object.assign(i, { number: issue, title: `Issue ${issue}`, body: 'Please rename the helper.', pull_request: undefined });
      delete i.pull_request;
      p.label = { ...(p.label as object), name: kind === 'label-start' ? 'agent:run' : 'bug' };
      p.sender = human;
      return { event: 'issues', payload: p };
    }
    case 'comment-chat':
    case 'comment-bot': {
      const p = retarget(example('issue_comment', 'created'));
      const i = p.issue as Record<string, unknown>;
      Object.assign(i, { number: issue });
      delete i.pull_request;
      const user = kind === 'comment-bot' ? bot : human;
      p.comment = {
        ...(p.comment as object),
        id: 900_000 + n,
        body: kind === 'comment-bot' ? '/agent run' : 'Thanks, looks good to me.',
        user,
        performed_via_github_app: null,
      };
      p.sender = user;
      return { event: 'issue_comment', payload: p };
    }
    case 'push': {
      const p = retarget(example('push'));
      p.sender = human;
      return { event: 'push', payload: p };
    }
    case 'unsubscribed': {
      const events = ['star', 'watch'] as const;
      const event = events[Math.abs(n) % events.length];
      return { event, payload: retarget(example(event)) };
    }
  }
}

/** An API Gateway HTTP API (payload v2) event carrying one signed delivery. */
async function signedEvent(event: string, payload: Record<string, unknown>, id: string): Promise<APIGatewayProxyEventV2> {
  const body = JSON.stringify(payload);
  return {
    version: '2.0',
    routeKey: 'POST /webhook',
    rawPath: '/webhook',
    rawQueryString: '',
    headers: {
      'Content-Type': 'application/json',
      'X-GitHub-Delivery': `${id}-0000-0000-0000-000000000000`,
      'X-GitHub-Event': event,
      'X-Hub-Signature-256': await sign(SECRET, body),
    },
    body,
    isBase64Encoded: false,
  } as unknown as APIGatewayProxyEventV2;
}

function statusOf(response: unknown): number {
  return typeof response === 'object' && response !== null && 'statusCode' in response ? Number((response as { statusCode: unknown }).statusCode) : 0;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

const round = (n: number, digits = 1): number => Number(n.toFixed(digits));

/** `total` delivery kinds in MIX's shares (the remainder labeled starts), interleaved deterministically. */
function deliveryOrder(total: number): Kind[] {
  const plan: Kind[] = [];
  for (const m of MIX) for (let i = 0; i < Math.floor(total * m.share); i++) plan.push(m.kind);
  while (plan.length < total) plan.push('label-start');
  // Interleave deterministically (a fixed stride over the list) so kinds are spread out.
  const order = plan.map((_, i) => plan[(i * 7919) % plan.length]);
  if (new Set(plan.map((_, i) => (i * 7919) % plan.length)).size !== plan.length) order.splice(0, order.length, ...plan);
  return order;
}

/**
 * p50/p99 of the webhook's acknowledgement (handler call to its 202) over `deliveries` signed
 * deliveries, one at a time as a Lambda container takes them; then the intake of every stored
 * delivery, INTAKE_CONCURRENCY at a time, each timed from its start to its end. Labeled starts
 * each use a distinct delivery id and issue, so no lock or run id collides.
 */
export async function runWebhookBench(options: { deliveries?: number; latencyMs?: number } = {}): Promise<BenchRecord[]> {
  const total = options.deliveries ?? 1000;
  const latencyMs = options.latencyMs ?? 150;
  const order = deliveryOrder(total);

  const issues = order.length + 2;
  const keys = testAppKey();
  const clock = fixedClock();
  const s3 = await startS3Server();
  const standin = await startGitHubStandin({
    appId: APP_ID,
    privateKeyPem: keys.privateKeyPem,
    clock,
    latencyMs,
    repos: [
      {
        owner: OWNER,
        name: REPO,
        id: REPO_ID,
        installationId: INSTALLATION_ID,
        files: {
          'README.md': '# widgets\n',
          'src/helper.ts': 'export const helper = 1;\n',
          '.agent-policy.yaml': 'version: 1\nlimits:\n  runsPerHour: 1000\n  maxOpenPullRequests: 100\n',
        },
        collaborators: { alice: 'write' },
        issues: Array.from({ length: issues }, (_, i) => ({ number: i + 1, title: `Issue ${i + 1}`, body: 'Please rename the helper.' })),
      },
    ],
  });
  try {
    const logger = new CapturingLogger({ level: 'info' });
    const store = new S3ArtifactStore({ client: createTestS3Client(s3.endpoint, { maxAttempts: 1 }), bucket: s3.bucket, sleep: async () => {} });
    // The webhook's store notes the keys it wrote: those are the intake's work.
    const stored: string[] = [];
    /** How long each of those writes took (the S3 PUT inside the acknowledgement). */
    const putMs: number[] = [];
    const webhookStore = recordingPuts(store, (key, ms) => {
      putMs.push(ms);
      stored.push(key);
    });
    const handler = createWebhookHandler({ store: webhookStore, clock, logger, secret: SECRET, botLogin: BOT });
    const tokenOptions = { appId: APP_ID, apiUrl: standin.url, clock, loadPrivateKey: async () => keys.privateKeyPem, policy: STANDIN_GITHUB_POLICY };
    const build = (tokens: TokenBroker) =>
      createIntakeHandler({
        store,
        tokens,
        github: (token) => createGitHubApi({ token, baseUrl: standin.url, policy: STANDIN_GITHUB_POLICY }),
        clock,
        logger,
        appId: APP_ID,
        botLogin: BOT,
        apiUrl: standin.url,
      });
    // A probe start on a spare issue (not measured): when the token-read scopes cannot do what
    // the trigger path asks, every start would fail. Measure with the missing scope added and
    // say so, rather than timing a failure path.
    let intake = await build(new InProcessTokenBroker({ ...tokenOptions, role: 'read' }));
    const caveats: string[] = [];
    const probeOnce = async (n: number, id: string): Promise<string> => {
      const response = await handler(await signedEvent('issues', delivery('label-start', n, order.length + (n === -1 ? 1 : 2)).payload, id));
      const key = stored.pop();
      if (statusOf(response) !== 202 || !key) return `ack ${statusOf(response)}`;
      return intake.receive(key).then(
        (o) => (o.handled ? 'ok' : o.why),
        (error: unknown) => `failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    };
    const probe = await probeOnce(-1, 'probe');
    if (probe !== 'ok') {
      const denied = standin.calls.filter((c) => c.status === 403).map((c) => `${c.method} ${c.path.split('?')[0]}`);
      const widened: TokenBroker = {
        token: (request) =>
          mintInstallationToken({
            ...tokenOptions,
            privateKey: keys.privateKeyPem,
            installationId: request.installationId,
            repositoryId: request.repositoryId,
            permissions: { ...scopesFor('read'), pull_requests: 'read' },
          }),
      };
      intake = await build(widened);
      const retry = await probeOnce(-2, 'probe-2');
      caveats.push(
        `the token-read scopes gave "${probe}" on a start (403 on ${[...new Set(denied)].join(', ') || 'nothing'}); measured with pull_requests:read added (probe then ${retry})`,
      );
    }
    // One unmeasured delivery of each kind: the measured ones find the container warm, as all but a cold start's first do.
    for (const [i, m] of MIX.entries()) {
      const { event, payload } = delivery(m.kind, -10 - i, order.length + 1);
      await handler(await signedEvent(event, payload, `warm-${i}`));
    }
    stored.length = 0;
    putMs.length = 0;
    const probeRuns = (await store.list(`runs/${OWNER}/${REPO}/`)).filter((k) => k.endsWith('/request.json')).length;
    standin.calls.length = 0;
    s3.requests.length = 0;
    const probeLogLines = logger.lines.length;

    // 1. The acknowledgements, one at a time.
    const latencies = new Map<Kind, number[]>(MIX.map((m) => [m.kind, []]));
    const all: number[] = [];
    const statuses = new Map<number, number>();
    const work: { kind: Kind; key: string }[] = [];
    let signMs = 0;
    for (let n = 0; n < order.length; n++) {
      const kind = order[n];
      const { event, payload } = delivery(kind, n, n + 1);
      const s = performance.now();
      const request = await signedEvent(event, payload, `bench-${n.toString().padStart(6, '0')}`);
      signMs += performance.now() - s;
      const before = stored.length;
      const start = performance.now();
      const response = await handler(request);
      const ms = performance.now() - start;
      clock.advance(1000);
      all.push(ms);
      latencies.get(kind)!.push(ms);
      const code = statusOf(response);
      statuses.set(code, (statuses.get(code) ?? 0) + 1);
      for (const key of stored.slice(before)) work.push({ kind, key });
    }
    const callsDuringAcks = standin.calls.length;

    // 2. The intakes of (a sample of) what was stored, side by side.
    const stride = Math.max(1, work.length / INTAKE_SAMPLE);
    const sample = work.length <= INTAKE_SAMPLE ? work : Array.from({ length: INTAKE_SAMPLE }, (_, i) => work[Math.floor(i * stride)]);
    const intakeMs = new Map<Kind, number[]>(MIX.map((m) => [m.kind, []]));
    let failures = 0;
    const intakeStart = performance.now();
    let next = 0;
    const lane = async () => {
      for (let i = next++; i < sample.length; i = next++) {
        const start = performance.now();
        await intake.receive(sample[i].key).catch(() => (failures += 1));
        intakeMs.get(sample[i].kind)!.push(performance.now() - start);
      }
    };
    await Promise.all(Array.from({ length: INTAKE_CONCURRENCY }, lane));
    const intakeWallMs = performance.now() - intakeStart;

    const outcomes = new Map<string, number>();
    for (const entry of logger.entries().slice(probeLogLines))
      if (typeof entry.outcome === 'string') outcomes.set(entry.outcome, (outcomes.get(entry.outcome) ?? 0) + 1);
    const requests = (await store.list(`runs/${OWNER}/${REPO}/`)).filter((k) => k.endsWith('/request.json')).length - probeRuns;
    const statusText = [...statuses].map(([c, k]) => `${k}x${c}`).join(', ');
    const outcomeText = [...outcomes].map(([o, k]) => `${o} ${k}`).join(', ');

    const sorted = [...all].sort((a, b) => a - b);
    const records: BenchRecord[] = [
      {
        name: 'webhook.ack.p50',
        size: all.length,
        value: round(percentile(sorted, 50)),
        unit: 'ms',
        note: `all deliveries; statuses ${statusText}; ${work.length} stored for the intake; GitHub calls before the answers: ${callsDuringAcks}`,
      },
      {
        name: 'webhook.ack.p99',
        size: all.length,
        value: round(percentile(sorted, 99)),
        unit: 'ms',
        note: `max ${round(sorted[sorted.length - 1])} ms; stand-in latency ${latencyMs} ms a call`,
      },
    ];
    for (const m of MIX) {
      const xs = [...latencies.get(m.kind)!].sort((a, b) => a - b);
      if (xs.length === 0) continue;
      records.push(
        { name: `webhook.ack.${m.kind}.p50`, size: xs.length, value: round(percentile(xs, 50)), unit: 'ms', note: m.what },
        { name: `webhook.ack.${m.kind}.p99`, size: xs.length, value: round(percentile(xs, 99)), unit: 'ms' },
      );
    }
    const puts = [...putMs].sort((a, b) => a - b);
    records.push({
      name: 'webhook.storePut.p50',
      size: puts.length,
      value: round(percentile(puts, 50)),
      unit: 'ms',
      note: `the one S3 PUT (s3rver, in this process) inside each storing acknowledgement; p99 ${round(percentile(puts, 99))} ms`,
    });
    for (const m of MIX) {
      const xs = [...intakeMs.get(m.kind)!].sort((a, b) => a - b);
      if (xs.length === 0) continue;
      records.push({
        name: `webhook.intake.${m.kind}.p50`,
        size: xs.length,
        value: round(percentile(xs, 50)),
        unit: 'ms',
        note: `after the 202; p99 ${round(percentile(xs, 99))} ms; stand-in latency ${latencyMs} ms a call`,
      });
    }
    records.push({
      name: 'webhook.intake.all',
      size: sample.length,
      value: round(intakeWallMs),
      unit: 'ms',
      note: `${sample.length} of ${work.length} stored deliveries, ${INTAKE_CONCURRENCY} at a time; ${failures} failed; ${requests} request.json written; outcomes: ${outcomeText}`,
    });
    if (caveats.length > 0) records[0].note = `${records[0].note}; NOTE: ${caveats.join('; ')}`;
    records.push({
      name: 'webhook.serialiseAndSign (sender side, not in the ack)',
      size: all.length,
      value: round(signMs / all.length, 3),
      unit: 'ms/delivery',
    });
    records.push({
      name: 'webhook.calls.perStart',
      size: requests,
      value: round(standin.calls.length / Math.max(1, requests), 1),
      unit: 'GitHub calls',
      note: `${standin.calls.length} stand-in calls, all in the intake (${standin.calls.filter((c) => c.status >= 400).length} answered >= 400), ${s3.requests.length} S3 requests in total`,
    });
    return records;
  } finally {
    await standin.stop();
    await s3.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const count = process.argv
    .slice(2)
    .map(Number)
    .find((n) => n > 0);
  const latency = process.argv.find((a) => a.startsWith('--latency='));
  const records = await runWebhookBench({ deliveries: count, latencyMs: latency ? Number(latency.slice('--latency='.length)) : undefined });
  if (process.argv.includes('--json')) for (const r of records) console.log(JSON.stringify(r));
  else
    for (const r of records)
      console.log(`${r.name.padEnd(44)} ${String(r.value).padStart(9)} ${r.unit.padEnd(12)} n=${r.size}${r.note ? `  (${r.note})` : ''}`);
}
