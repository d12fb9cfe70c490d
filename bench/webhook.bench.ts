/**
 * Webhook acknowledgement latency, in process: signed deliveries built from
 * `@octokit/webhooks-examples` go through the webhook handler's testable core
 * (`createWebhookHandler`) with the S3 store on a local s3rver and the GitHub REST stand-in
 * behind an in-process token broker. Runnable alone:
 *   node --import tsx bench/webhook.bench.ts [--json] [deliveries]
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
import { createWebhookHandler } from '../src/app/webhook/create-webhook-handler.js';
import type { TokenBroker } from '../src/core/ports.js';
import { STANDIN_GITHUB_POLICY, startGitHubStandin } from '../test/helpers/github-standin/index.js';
import { createTestS3Client, startS3Server } from '../test/helpers/s3-server.js';
import { fixedClock, testAppKey } from '../test/integration/github/standin-fixture.js';
import type { BenchRecord } from './bench-record.js';

export type { BenchRecord };

const OWNER = 'acme';
const REPO = 'widgets';
const REPO_ID = 11;
const APP_ID = 31;
const INSTALLATION_ID = 1;
const SECRET = 'bench-webhook-secret';
const BOT = 'draftsman[bot]';

/** Delivery kinds, in the order of the mix; `share` of the total, the rest go to the first. */
type Kind = 'label-start' | 'label-other' | 'comment-chat' | 'comment-bot' | 'unsubscribed';
const MIX: { kind: Kind; share: number; what: string }[] = [
  { kind: 'label-start', share: 0.4, what: 'issues.labeled agent:run by a writer on a fresh issue: starts a run' },
  { kind: 'label-other', share: 0.1, what: 'issues.labeled with another label: policy read, ignored' },
  { kind: 'comment-chat', share: 0.2, what: 'issue_comment.created without a command: ignored before any API call' },
  { kind: 'comment-bot', share: 0.1, what: 'issue_comment.created by a bot: ignored' },
  { kind: 'unsubscribed', share: 0.2, what: 'star/watch/push: no handler' },
];

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
      p.comment = { ...(p.comment as object), id: 900_000 + n, body: kind === 'comment-bot' ? '/agent run' : 'Thanks, looks good to me.', user, performed_via_github_app: null };
      p.sender = user;
      return { event: 'issue_comment', payload: p };
    }
    case 'unsubscribed': {
      const events = ['star', 'watch', 'push'] as const;
      const event = events[n % events.length];
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

/**
 * p50/p99 of the webhook's acknowledgement (handler call to its 202) over `deliveries` signed
 * deliveries, one at a time as a Lambda container takes them. Labeled starts each use a
 * distinct delivery id and issue, so no lock or run id collides.
 */
export async function runWebhookBench(options: { deliveries?: number } = {}): Promise<BenchRecord[]> {
  const total = options.deliveries ?? 1000;
  const plan: Kind[] = [];
  for (const m of MIX) for (let i = 0; i < Math.floor(total * m.share); i++) plan.push(m.kind);
  while (plan.length < total) plan.push('label-start');
  // Interleave deterministically (a fixed stride over the list) so kinds are spread out.
  const order = plan.map((_, i) => plan[(i * 7919) % plan.length]);
  if (new Set(plan.map((_, i) => (i * 7919) % plan.length)).size !== plan.length) order.splice(0, order.length, ...plan);

  const issues = order.length + 2;
  const keys = testAppKey();
  const clock = fixedClock();
  const s3 = await startS3Server();
  const standin = await startGitHubStandin({
    appId: APP_ID,
    privateKeyPem: keys.privateKeyPem,
    clock,
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
    const tokenOptions = { appId: APP_ID, apiUrl: standin.url, clock, loadPrivateKey: async () => keys.privateKeyPem, policy: STANDIN_GITHUB_POLICY };
    const build = (tokens: TokenBroker) =>
      createWebhookHandler({
        store,
        tokens,
        github: (token) => createGitHubApi({ token, baseUrl: standin.url, policy: STANDIN_GITHUB_POLICY }),
        clock,
        logger,
        secret: SECRET,
        appId: APP_ID,
        botLogin: BOT,
        apiUrl: standin.url,
      });
    // A probe start on a spare issue (not measured): when the token-read scopes cannot do what
    // the trigger path asks, every start would be a 500. Measure with the missing scope added
    // and say so, rather than timing a failure path.
    let handler = await build(new InProcessTokenBroker({ ...tokenOptions, role: 'read' }));
    const caveats: string[] = [];
    const probe = await handler(await signedEvent('issues', delivery('label-start', -1, order.length + 1).payload, 'probe'));
    if (statusOf(probe) !== 202) {
      const denied = standin.calls.filter((c) => c.status === 403).map((c) => `${c.method} ${c.path.split('?')[0]}`);
      const widened: TokenBroker = {
        token: (request) =>
          mintInstallationToken({ ...tokenOptions, privateKey: keys.privateKeyPem, installationId: request.installationId, repositoryId: request.repositoryId, permissions: { ...scopesFor('read'), pull_requests: 'read' } }),
      };
      handler = await build(widened);
      const retry = await handler(await signedEvent('issues', delivery('label-start', -2, order.length + 2).payload, 'probe-2'));
      caveats.push(`the token-read scopes gave ${statusOf(probe)} on a start (403 on ${[...new Set(denied)].join(', ') || 'nothing'}); measured with pull_requests:read added (probe then ${statusOf(retry)})`);
    }
    const probeRuns = (await store.list(`runs/${OWNER}/${REPO}/`)).filter((k) => k.endsWith('/request.json')).length;
    standin.calls.length = 0;
    s3.requests.length = 0;
    const probeLogLines = logger.lines.length;

    const latencies = new Map<Kind, number[]>(MIX.map((m) => [m.kind, []]));
    const all: number[] = [];
    const statuses = new Map<number, number>();
    let signMs = 0;
    for (let n = 0; n < order.length; n++) {
      const kind = order[n];
      const { event, payload } = delivery(kind, n, n + 1);
      const s = performance.now();
      const request = await signedEvent(event, payload, `bench-${n.toString().padStart(6, '0')}`);
      signMs += performance.now() - s;
      const start = performance.now();
      const response = await handler(request);
      const ms = performance.now() - start;
      clock.advance(1000);
      all.push(ms);
      latencies.get(kind)!.push(ms);
      const code = statusOf(response);
      statuses.set(code, (statuses.get(code) ?? 0) + 1);
    }

    const outcomes = new Map<string, number>();
    for (const entry of logger.entries().slice(probeLogLines)) if (typeof entry.outcome === 'string') outcomes.set(entry.outcome, (outcomes.get(entry.outcome) ?? 0) + 1);
    const requests = (await store.list(`runs/${OWNER}/${REPO}/`)).filter((k) => k.endsWith('/request.json')).length - probeRuns;
    const statusText = [...statuses].map(([c, k]) => `${k}x${c}`).join(', ');
    const outcomeText = [...outcomes].map(([o, k]) => `${o} ${k}`).join(', ');

    const sorted = [...all].sort((a, b) => a - b);
    const records: BenchRecord[] = [
      { name: 'webhook.ack.p50', size: all.length, value: round(percentile(sorted, 50)), unit: 'ms', note: `all deliveries; statuses ${statusText}` },
      { name: 'webhook.ack.p99', size: all.length, value: round(percentile(sorted, 99)), unit: 'ms', note: `max ${round(sorted[sorted.length - 1])} ms; ${requests} request.json written; outcomes: ${outcomeText}` },
    ];
    for (const m of MIX) {
      const xs = [...latencies.get(m.kind)!].sort((a, b) => a - b);
      if (xs.length === 0) continue;
      records.push(
        { name: `webhook.ack.${m.kind}.p50`, size: xs.length, value: round(percentile(xs, 50)), unit: 'ms', note: m.what },
        { name: `webhook.ack.${m.kind}.p99`, size: xs.length, value: round(percentile(xs, 99)), unit: 'ms' },
      );
    }
    if (caveats.length > 0) records[0].note = `${records[0].note}; NOTE: ${caveats.join('; ')}`;
    records.push({ name: 'webhook.serialiseAndSign (sender side, not in the ack)', size: all.length, value: round(signMs / all.length, 3), unit: 'ms/delivery' });
    records.push({ name: 'webhook.calls.perStart', size: latencies.get('label-start')!.length, value: round(standin.calls.length / Math.max(1, requests), 1), unit: 'GitHub calls', note: `${standin.calls.length} stand-in calls (${standin.calls.filter((c) => c.status >= 400).length} answered >= 400), ${s3.requests.length} S3 requests in total` });
    return records;
  } finally {
    await standin.stop();
    await s3.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const count = process.argv.slice(2).map(Number).find((n) => n > 0);
  const records = await runWebhookBench({ deliveries: count });
  if (process.argv.includes('--json')) for (const r of records) console.log(JSON.stringify(r));
  else for (const r of records) console.log(`${r.name.padEnd(44)} ${String(r.value).padStart(9)} ${r.unit.padEnd(12)} n=${r.size}${r.note ? `  (${r.note})` : ''}`);
}
