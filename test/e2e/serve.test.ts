import { sign } from '@octokit/webhooks-methods';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/app/cli/cli-io.js';
import { CapturingLogger } from '../../src/app/logger.js';
import { readServeSettings } from '../../src/app/serve/serve-settings.js';
import { serveCommand } from '../../src/app/serve/serve-command.js';
import { ONE_PROCESS_NOTICE, startServe, type ServeHandle } from '../../src/app/serve/start-serve.js';
import { TOKEN_SCOPES } from '../../src/app/tokens/token-scopes.js';
import { MAX_WEBHOOK_BYTES } from '../../src/app/webhook/receive-webhook.js';
import {
  buildPayloads,
  harnessStandinOptions,
  HARNESS_APP_ID,
  HARNESS_FULL_NAME,
  HARNESS_REPOSITORY_ID,
  HARNESS_START,
  MAINTAINER,
  MIGRATION_CHANGED_FILES,
  MIGRATION_ISSUE_BODY,
  READER,
} from '../helpers/app-harness.js';
import { startGitHttpServer, type GitHttpServer } from '../helpers/git-http-server.js';
import { startGitHubStandin, type GitHubStandin } from '../helpers/github-standin/index.js';
import { startGitAuthProxy } from '../helpers/sandbox/git-auth-proxy.js';
import { postDelivery } from '../helpers/sandbox/start-sandbox.js';

/**
 * `draftsman serve` end to end: the CLI command reads `.env` (App id, webhook secret, the key
 * through PRIVATE_KEY_PATH, the stand-in as GITHUB_API_URL), listens on a loopback port, and a
 * signed `issues.labeled` delivery to that port ends as a draft pull request on the stand-in:
 * webhook -> request.json on disk -> worker -> candidate -> publisher, all in one process.
 */

const SECRET = 'serve-webhook-secret-0123456789';
const ISSUE = 1;

describe('draftsman serve: the App in one process', () => {
  const clock = { now: () => HARNESS_START };
  let standin: GitHubStandin;
  let backend: GitHttpServer;
  let proxy: Awaited<ReturnType<typeof startGitAuthProxy>>;
  let cwd: string;
  const stdout: string[] = [];
  const stderr: string[] = [];
  let exitCode: Promise<number>;
  let handle: ServeHandle;
  let release: () => void;
  let ack: { status: number; body: string };
  let forged: { status: number; body: string };
  let wrongPath: number;
  let ping: { status: number; body: unknown };
  let objectsAfterForged: string[];

  beforeAll(async () => {
    const privateKey = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    }).privateKey;
    const users = { [MAINTAINER]: 'write', [READER]: 'read' } as const;
    standin = await startGitHubStandin(
      harnessStandinOptions({
        privateKeyPem: privateKey,
        clock,
        users,
        issues: [{ number: ISSUE, title: 'Migrate to Jakarta Persistence', body: MIGRATION_ISSUE_BODY, user: MAINTAINER }],
      }),
    );
    backend = await startGitHttpServer({ root: standin.gitRoot });
    proxy = await startGitAuthProxy(standin, backend.url);

    cwd = mkdtempSync(join(tmpdir(), 'draftsman-serve-'));
    writeFileSync(join(cwd, 'app.pem'), privateKey);
    writeFileSync(
      join(cwd, '.env'),
      [
        `APP_ID=${HARNESS_APP_ID}`,
        `WEBHOOK_SECRET=${SECRET}`,
        'PRIVATE_KEY_PATH=app.pem',
        `GITHUB_API_URL=${standin.url}`,
        'HOST=127.0.0.1',
        'PORT=3000',
        'LOG_LEVEL=debug',
        '',
      ].join('\n'),
    );
    const io: CliIo = { stdout: (t) => void stdout.push(t), stderr: (t) => void stderr.push(t), env: {}, cwd, clock, isTty: false };
    const started = new Promise<ServeHandle>((ready) => {
      // `--port 0` over the .env's PORT: the flag wins, and the test gets a free port.
      exitCode = serveCommand(['--port', '0', '--dir', 'store'], io, (h) => {
        ready(h);
        return new Promise<void>((done) => (release = done));
      });
    });
    handle = await started;

    ping = await fetch(`${handle.url}/ping`).then(async (r) => ({ status: r.status, body: await r.json() }));
    wrongPath = (await fetch(`${handle.url}/not-the-webhook`, { method: 'POST', body: '{}' })).status;
    const payload = buildPayloads(standin).labeled(ISSUE) as { repository: Record<string, unknown> };
    // The worker clones what the delivery's repository names: here the stand-in's git, behind its token check.
    payload.repository.clone_url = `${proxy.url}/${HARNESS_FULL_NAME}.git`;
    forged = await postDelivery(handle.webhookUrl, 'issues', payload, { id: '00000000-0000-4000-8000-000000000001', secret: `${SECRET}-wrong` });
    await handle.idle();
    objectsAfterForged = await handle.store.list('');
    ack = await postDelivery(handle.webhookUrl, 'issues', payload, { id: '00000000-0000-4000-8000-000000000002', secret: SECRET });
    await handle.idle();
  }, 120_000);

  afterAll(async () => {
    release?.();
    await exitCode;
    await new Promise<void>((done) => proxy?.server.close(() => done()));
    await backend?.stop();
    await standin?.stop();
    if (cwd) rmSync(cwd, { recursive: true, force: true });
  });

  it('serve says at start that the least-privilege split does not apply, and answers on its port', () => {
    expect(stderr.join('')).toContain(ONE_PROCESS_NOTICE);
    expect(stdout.join('')).toContain('does NOT apply here');
    expect(handle.webhookUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/github\/webhooks$/);
    expect(handle.url).not.toMatch(/:3000$/);
    expect(ping).toEqual({ status: 200, body: { status: 'ok', queued: 0 } });
    expect(wrongPath).toBe(404);
  });

  it('serve refuses a delivery signed with another secret before anything is stored', () => {
    expect(forged.status).toBe(401);
    expect(objectsAfterForged).toEqual([]);
  });

  it('serve turns a signed issues.labeled delivery into a draft pull request on the stand-in', async () => {
    expect(ack.status).toBe(202);
    const pulls = [...standin.repo(HARNESS_FULL_NAME).pulls.values()];
    expect(pulls).toHaveLength(1);
    expect(pulls[0]).toMatchObject({ draft: true, base: 'main' });
    const head = (pulls[0] as unknown as { head: string }).head;
    expect(head).toMatch(new RegExp(`^agent/i${ISSUE}/r[a-z2-7]{12}$`));
    const changed = await standin.readFile(HARNESS_FULL_NAME, `refs/heads/${head}`, MIGRATION_CHANGED_FILES[0]);
    expect(changed?.toString('utf8')).toContain('jakarta.persistence');
  });

  it('serve ran the worker once, and the publisher for its progress and its candidate, from the disk store, and nothing failed', async () => {
    const history = handle.queue.history();
    expect(history.filter((t) => !t.ok)).toEqual([]);
    expect(history.filter((t) => t.label.startsWith('worker '))).toHaveLength(1);
    expect(history.filter((t) => t.label.startsWith('publisher ') && t.label.endsWith('/candidate/pr-candidate.json'))).toHaveLength(1);
    expect(history.filter((t) => t.label.startsWith('publisher ') && t.label.endsWith('/progress.json')).length).toBeGreaterThan(0);
    const keys = await handle.store.list('runs/');
    expect(keys.some((k) => k.endsWith('/request.json'))).toBe(true);
    expect(keys.some((k) => k.endsWith('/candidate/pr-candidate.json'))).toBe(true);
    expect(keys.some((k) => k.endsWith('/publish.json'))).toBe(true);
    // The clone went through the token check: the only refusals are git's first, anonymous, probes.
    expect(proxy.served).toBeGreaterThan(0);
    expect(proxy.denied.filter((d) => d.credential)).toEqual([]);
  });

  it('serve mints every token with exactly the scopes of a token role (read, worker, write), for the one repository', () => {
    const scopes = (permissions: Record<string, string>) =>
      JSON.stringify(
        Object.entries(permissions)
          .filter(([k]) => k !== 'metadata')
          .sort(),
      );
    const roles = new Map([
      [scopes(TOKEN_SCOPES.read), 'read'],
      [scopes(TOKEN_SCOPES.worker), 'worker'],
      [scopes(TOKEN_SCOPES.write), 'write'],
    ]);
    const minted = standin.state.tokens();
    expect(new Set(minted.map((t) => roles.get(scopes(t.permissions))))).toEqual(new Set(['read', 'worker', 'write']));
    for (const t of minted) expect(t.repositoryIds).toEqual([HARNESS_REPOSITORY_ID]);
  });

  it('serve keeps secrets out of its log: no webhook secret, no private key, no minted token', () => {
    const log = stdout.join('');
    expect(log).not.toContain(SECRET);
    expect(log).not.toContain('PRIVATE KEY');
    for (const token of standin.state.tokenValues()) expect(log).not.toContain(token);
  });

  it('serve runs the sweeper in the same queue, and what it writes reaches the publisher', async () => {
    const before = handle.queue.history().length;
    handle.sweep();
    await handle.idle();
    const ran = handle.queue.history().slice(before);
    expect(ran[0]).toEqual({ label: 'sweeper', ok: true });
    // The CI poll of the open agent pull request is a ci/ record: the publisher takes it, as the bucket notification would.
    expect(ran.slice(1).map((t) => [t.label.replace(/\/[^/]+\.json$/, ''), t.ok])).toEqual([
      [expect.stringMatching(/^publisher runs\/acme\/orders\/[a-z2-7]{12}\/ci$/), true],
    ]);
  });
});

/** A webhook proxy channel as smee.io serves it: Server-Sent Events, one per delivery, headers and body in `data`. */
async function startProxyChannel(): Promise<{ url: string; send(data: Record<string, unknown>): void; stop(): Promise<void> }> {
  const listeners = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.write('event: ready\ndata: {}\n\n');
    listeners.add(res);
    req.on('close', () => listeners.delete(res));
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/channel`,
    send: (data) => {
      for (const res of listeners) res.write(`data: ${JSON.stringify(data)}\n\n`);
    },
    stop: async () => {
      for (const res of listeners) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}

describe('draftsman serve behind a webhook proxy channel (smee-client)', () => {
  it('serve receives a signed delivery relayed by the proxy channel, and still refuses a forged one', async () => {
    const channel = await startProxyChannel();
    const logger = new CapturingLogger({ clock: { now: () => HARNESS_START } });
    const cwd = mkdtempSync(join(tmpdir(), 'draftsman-serve-proxy-'));
    const privateKey = generateKeyPairSync('rsa', {
      modulusLength: 1024,
      privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    }).privateKey;
    // Nothing here reaches GitHub: an installation event is only logged.
    const settings = readServeSettings(
      {
        APP_ID: String(HARNESS_APP_ID),
        WEBHOOK_SECRET: SECRET,
        PRIVATE_KEY: privateKey,
        GITHUB_API_URL: 'http://127.0.0.1:9',
        PORT: '0',
        WEBHOOK_PROXY_URL: channel.url,
      },
      cwd,
    );
    const handle = await startServe({ settings, dir: join(cwd, 'store'), logger, sweepEveryMs: 0, clock: { now: () => HARNESS_START } });
    try {
      const examples = createRequire(import.meta.url)('@octokit/webhooks-examples') as { name: string; examples: Record<string, unknown>[] }[];
      const payload = examples.find((g) => g.name === 'installation')!.examples.find((e) => e.action === 'created')!;
      const relay = async (id: string, secret: string) =>
        channel.send({
          'x-github-event': 'installation',
          'x-github-delivery': id,
          'x-hub-signature-256': await sign(secret, JSON.stringify(payload)),
          'content-type': 'application/json',
          host: 'smee.io',
          body: payload,
        });
      const seen = () => logger.entries().filter((e) => e.msg === 'installation event' || e.msg === 'webhook signature rejected');
      const until = async (count: number) => {
        for (let i = 0; i < 200 && seen().length < count; i++) await new Promise((r) => setTimeout(r, 25));
      };
      // One at a time: the client forwards each event as it arrives, so two in flight could land in either order.
      await relay('proxy-forged', `${SECRET}-wrong`);
      await until(1);
      await relay('proxy-signed', SECRET);
      await until(2);
      expect(seen().map((e) => [e.msg, e.delivery])).toEqual([
        ['webhook signature rejected', 'proxy-forged'],
        ['installation event', 'proxy-signed'],
      ]);
      expect(logger.entries().find((e) => e.fn === 'smee' && String(e.msg).startsWith('Connected to'))).toBeDefined();
    } finally {
      await handle.stop();
      await channel.stop();
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});

describe('draftsman serve when a function fails', () => {
  it('serve retries a failing worker as the deployment would, logs the failure and keeps serving what comes next, and turns away what is no delivery', async () => {
    const logger = new CapturingLogger({ clock: { now: () => HARNESS_START } });
    const cwd = mkdtempSync(join(tmpdir(), 'draftsman-serve-fail-'));
    const privateKey = generateKeyPairSync('rsa', {
      modulusLength: 1024,
      privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    }).privateKey;
    const settings = readServeSettings(
      { APP_ID: String(HARNESS_APP_ID), WEBHOOK_SECRET: SECRET, PRIVATE_KEY: privateKey, GITHUB_API_URL: 'http://127.0.0.1:9', PORT: '0' },
      cwd,
    );
    const handle = await startServe({ settings, dir: join(cwd, 'store'), logger, sweepEveryMs: 0, clock: { now: () => HARNESS_START } });
    try {
      // A trigger whose request.json is not a run request: the worker's session refuses it every time.
      await handle.store.put('runs/acme/orders/abcdefghijkl/request.json', '{"not":"a request"}');
      await handle.store.put('runs/acme/orders/abcdefghijkl/run.json', '{}');
      await handle.idle();
      handle.sweep();
      await handle.idle();
      expect(handle.queue.history().map((t) => [t.label, t.ok])).toEqual([
        ['worker runs/acme/orders/abcdefghijkl/request.json', false],
        ['sweeper', true],
      ]);
      const retries = logger.entries().filter((e) => e.msg === 'invocation failed; retrying as the deployment would');
      expect(retries.map((e) => [e.function, e.retry])).toEqual([['worker', 1]]);
      expect(logger.entries().filter((e) => e.level === 'error' && e.task === 'worker runs/acme/orders/abcdefghijkl/request.json')).toHaveLength(1);

      // What no GitHub delivery looks like is answered at the door.
      expect((await fetch(handle.webhookUrl)).status).toBe(405);
      const oversized = await fetch(handle.webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: Buffer.alloc(MAX_WEBHOOK_BYTES + 1, 0x20),
      });
      expect(oversized.status).toBe(413);
    } finally {
      await handle.stop();
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
