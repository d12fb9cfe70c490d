import { sign } from '@octokit/webhooks-methods';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildPayloads, HARNESS_APP_ID, harnessStandinOptions, HARNESS_START, MAINTAINER, MIGRATION_ISSUE_BODY } from '../helpers/app-harness.js';
import { MAX_LOGGED_STRING } from '../../src/app/logger.js';
import { buildCliPackage, startCli, type CliProcess } from '../helpers/cli-process.js';
import { startGitHubStandin, type GitHubStandin } from '../helpers/github-standin/index.js';

/**
 * `draftsman serve` started as a process, through `bin/draftsman.mjs` and the bundle: what a
 * person sees when the configuration is missing or wrong, when the webhook proxy is away, and
 * the setup page that registers the App through GitHub's manifest flow.
 */

let bin: string;
let packageRoot: string;
const dirs: string[] = [];
const running: CliProcess[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'serve-process-'));
  dirs.push(dir);
  return dir;
};
const PEM = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
}).privateKey;

beforeAll(async () => {
  ({ bin, root: packageRoot } = await buildCliPackage());
  dirs.push(packageRoot);
}, 120_000);

afterAll(async () => {
  for (const p of running) await p.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function serve(args: string[], cwd: string, env: Record<string, string> = {}): CliProcess {
  const p = startCli(bin, ['serve', ...args], { cwd, env });
  running.push(p);
  return p;
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

describe('draftsman serve: configuration errors name the variable and the file', () => {
  it('serve without APP_ID says which variable is missing and where to set it, in a sentence, and exits 2', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'app.pem'), PEM);
    writeFileSync(join(cwd, '.env'), 'WEBHOOK_SECRET=0123456789abcdef\nPRIVATE_KEY_PATH=app.pem\n');
    const p = serve(['--port', '0'], cwd);
    expect(await p.exit).toBe(2);
    expect(p.stderr()).toBe('draftsman serve: APP_ID is missing: set it in .env\n');
  });

  it('serve with a webhook secret that is too short says what it must be and in which file', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'app.pem'), PEM);
    writeFileSync(join(cwd, 'serve.env'), 'APP_ID=12\nWEBHOOK_SECRET=short\nPRIVATE_KEY_PATH=app.pem\n');
    const p = serve(['--port', '0', '--env-file', 'serve.env'], cwd, { PORT: 'many' });
    expect(await p.exit).toBe(2);
    expect(p.stderr()).toBe('draftsman serve: WEBHOOK_SECRET in serve.env is not valid: it must be the webhook secret of the App, at least 8 characters\n');
  });

  it('serve --env-file naming no file is a draftsman error with exit code 2, not Node refusing to start', async () => {
    const cwd = tempDir();
    const p = serve(['--env-file', 'nope.env'], cwd);
    expect(await p.exit).toBe(2);
    expect(p.stderr()).toBe('draftsman serve: nope.env does not exist: --env-file must name an existing file (or leave it out to read .env)\n');
  });
});

describe('draftsman serve with a webhook proxy that cannot be reached', () => {
  it('serve says once that the proxy cannot be reached, with its cause, and keeps serving its own port', async () => {
    const cwd = tempDir();
    const port = await closedPort();
    writeFileSync(join(cwd, 'app.pem'), PEM);
    writeFileSync(
      join(cwd, '.env'),
      `APP_ID=12\nWEBHOOK_SECRET=0123456789abcdef\nPRIVATE_KEY_PATH=app.pem\nGITHUB_API_URL=http://127.0.0.1:9\nWEBHOOK_PROXY_URL=http://127.0.0.1:${port}/channel\n`,
    );
    const p = serve(['--port', '0'], cwd);
    const [, url] = await p.waitFor(/webhooks to (http:\S+)/);
    expect(p.stderr()).toContain(`(http://127.0.0.1:${port}/channel cannot be reached yet)`);
    expect((await fetch(new URL('/ping', url))).status).toBe(200);
    // The client reconnects every few seconds: two rounds of it, said once.
    await new Promise((r) => setTimeout(r, 7_000));
    const lines = p
      .stdout()
      .split('\n')
      .filter((l) => l.includes('"fn":"smee"'));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toMatchObject({ level: 'warn', fn: 'smee' });
    expect(JSON.parse(lines[0]).msg).toMatch(new RegExp(`^the webhook proxy http://127.0.0.1:${port}/channel cannot be reached: .+; serve keeps trying`));
    expect(p.stdout()).not.toContain('[object Event]');
    expect(await p.stop()).toBe(0);
  }, 30_000);
});

/** smee.io as the setup uses it: `/new` redirects to a fresh channel, and a channel is an event stream. */
async function startProxyService(): Promise<{ url: string; channel: string; send(data: Record<string, unknown>): void; server: Server }> {
  const listeners = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    if (req.url === '/new') return void res.writeHead(307, { location: `${base}/channel-setup` }).end();
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.write('event: ready\ndata: {}\n\n');
    listeners.add(res);
    req.on('close', () => listeners.delete(res));
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/new`,
    channel: `${base}/channel-setup`,
    send: (data) => {
      for (const res of listeners) res.write(`data: ${JSON.stringify(data)}\n\n`);
    },
    server,
  };
}

describe('draftsman serve with no App configured: the setup page', () => {
  let standin: GitHubStandin;
  let proxy: Awaited<ReturnType<typeof startProxyService>>;
  const WEBHOOK_SECRET = 'registered-webhook-secret-0123';

  beforeAll(async () => {
    standin = await startGitHubStandin({
      ...harnessStandinOptions({ privateKeyPem: PEM, clock: { now: () => HARNESS_START } }),
      manifestRegistrations: [{ code: 'manifest-code-1', owner: 'octocat', webhookSecret: WEBHOOK_SECRET }],
    });
    proxy = await startProxyService();
  });
  afterAll(async () => {
    proxy?.server.closeAllConnections();
    await new Promise<void>((done) => (proxy ? proxy.server.close(() => done()) : done()));
    await standin?.stop();
  });

  it('serve registers the App from app.yml through the manifest flow, writes its id, key, secret and proxy channel to .env, and serves it', async () => {
    const cwd = tempDir();
    const p = serve(['--port', '0'], cwd, { GITHUB_API_URL: standin.url, WEBHOOK_PROXY_NEW_URL: proxy.url });
    const [, setupUrl] = await p.waitFor(/open (http:\S+) to register one from app\.yml/);

    const html = await (await fetch(setupUrl)).text();
    const action = /<form action="([^"]+)" method="post">/.exec(html)![1].replace(/&#38;/g, '&');
    const manifest = JSON.parse(/name="manifest" value="([^"]+)"/.exec(html)![1].replace(/&#(\d+);/g, (_, c: string) => String.fromCharCode(Number(c))));
    expect(action).toMatch(/^https:\/\/github\.com\/settings\/apps\/new\?state=[0-9a-f-]{36}$/);
    const appYml = parse(readFileSync(join(packageRoot, 'app.yml'), 'utf8')) as Record<string, unknown>;
    expect(manifest).toEqual({
      ...appYml,
      hook_attributes: { url: proxy.channel, active: true },
      redirect_url: new URL('/setup/done', setupUrl).href,
    });

    // GitHub's redirect after the person confirms: the code, and the state the form carried.
    const state = new URL(action).searchParams.get('state')!;
    const forged = await fetch(new URL('/setup/done?code=manifest-code-1&state=other', setupUrl));
    expect(forged.status).toBe(400);
    const done = await fetch(new URL(`/setup/done?code=manifest-code-1&state=${state}`, setupUrl));
    expect(done.status).toBe(200);
    expect(await done.text()).toContain(`${standin.url}/apps/draftsman/installations/new`);
    expect(standin.calls.filter((c) => c.path.startsWith('/app-manifests/')).map((c) => [c.method, c.path, c.status, c.tokenId])).toEqual([
      ['POST', '/app-manifests/manifest-code-1/conversions', 201, null],
    ]);

    const env = parseEnv(readFileSync(join(cwd, '.env'), 'utf8'));
    expect(env).toEqual({
      APP_ID: String(HARNESS_APP_ID),
      WEBHOOK_SECRET,
      PRIVATE_KEY: PEM.replace(/\n$/, '').concat('\n').replace(/\r/g, ''),
      GITHUB_APP_SLUG: 'draftsman',
      WEBHOOK_PROXY_URL: proxy.channel,
    });

    // serve then runs the App it registered, behind the channel it made.
    await p.waitFor(new RegExp(`webhooks to http:\\S+ \\(and through ${proxy.channel.replace(/[.]/g, '\\.')}\\)`));
    const examples = createRequire(import.meta.url)('@octokit/webhooks-examples') as { name: string; examples: Record<string, unknown>[] }[];
    const payload = examples.find((g) => g.name === 'installation')!.examples.find((e) => e.action === 'created')!;
    proxy.send({
      'x-github-event': 'installation',
      'x-github-delivery': 'setup-delivery-1',
      'x-hub-signature-256': await sign(WEBHOOK_SECRET, JSON.stringify(payload)),
      'content-type': 'application/json',
      body: payload,
    });
    await p.waitFor(/"msg":"installation event"/, { stream: 'stdout' });
    expect(p.stdout()).not.toContain('PRIVATE KEY');
    expect(p.stdout()).not.toContain(WEBHOOK_SECRET);
    expect(await p.stop()).toBe(0);
  }, 60_000);

  it('serve with no App and no network says so in one sentence and exits 1', async () => {
    const cwd = tempDir();
    const port = await closedPort();
    const p = serve(['--port', '0'], cwd, { WEBHOOK_PROXY_NEW_URL: `http://127.0.0.1:${port}/new` });
    expect(await p.exit).toBe(1);
    const lines = p.stderr().trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(
        `^draftsman serve: registering a GitHub App needs the network, and no webhook proxy channel could be made at http://127\\.0\\.0\\.1:${port}/new \\(.+\\): connect and retry, or set WEBHOOK_PROXY_URL to a channel you have$`,
      ),
    );
  });
});

describe('draftsman serve logs in one format', () => {
  it("serve logs a failing delivery, Probot included, as the project's JSON lines, bounded and without the payload", async () => {
    const canary = `ISSUE-BODY-CANARY-${'z'.repeat(40_000)}`;
    const standin = await startGitHubStandin(
      harnessStandinOptions({
        privateKeyPem: PEM,
        clock: { now: () => HARNESS_START },
        users: { [MAINTAINER]: 'write' },
        issues: [{ number: 1, title: 'Migrate', body: `${MIGRATION_ISSUE_BODY}\n${canary}`, user: MAINTAINER }],
      }),
    );
    try {
      // An installation GitHub does not know: every attempt of the intake fails at the token.
      const payload = { ...(buildPayloads(standin).labeled(1) as Record<string, unknown>), installation: { id: 999, node_id: 'I_999' } };
      const cwd = tempDir();
      writeFileSync(join(cwd, 'app.pem'), PEM);
      writeFileSync(
        join(cwd, '.env'),
        `APP_ID=${HARNESS_APP_ID}\nWEBHOOK_SECRET=0123456789abcdef\nPRIVATE_KEY_PATH=app.pem\nGITHUB_API_URL=${standin.url}\nLOG_LEVEL=debug\n`,
      );
      const p = serve(['--port', '0'], cwd);
      const [, webhookUrl] = await p.waitFor(/webhooks to (http:\S+)/);
      const body = JSON.stringify(payload);
      const headers = {
        'content-type': 'application/json',
        'x-github-delivery': 'failing-1',
        'x-github-event': 'issues',
        'x-hub-signature-256': await sign('0123456789abcdef', body),
      };
      expect((await fetch(webhookUrl, { method: 'POST', headers, body })).status).toBe(202);
      await p.waitFor(/"msg":"task failed; the queue goes on"/, { stream: 'stdout', timeoutMs: 60_000 });
      expect(await p.stop()).toBe(0);

      const lines = p.stdout().trimEnd().split('\n');
      const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      for (const e of entries) expect(Object.keys(e).slice(0, 3)).toEqual(['level', 'time', 'msg']);
      expect(entries.filter((e) => e.source === 'probot' && e.msg === 'Webhook received').map((e) => e.event)).toEqual([
        { id: 'failing-1', name: 'issues' },
        { id: 'failing-1', name: 'issues' },
        { id: 'failing-1', name: 'issues' },
      ]);
      expect(p.stdout()).not.toContain('ISSUE-BODY-CANARY');
      expect(Math.max(...lines.map((l) => l.length))).toBeLessThan(2 * MAX_LOGGED_STRING);
      expect(lines.length).toBeLessThan(60);
    } finally {
      await standin.stop();
    }
  }, 90_000);
});

describe('draftsman serve --sandbox: the App against a local GitHub stand-in', () => {
  it('outside a checkout with its development dependencies, --sandbox says what it needs in one sentence and exits 2', async () => {
    const p = serve(['--sandbox'], tempDir());
    expect(await p.exit).toBe(2);
    expect(p.stderr()).toBe(
      'draftsman serve: --sandbox runs from a draftsman checkout with its development dependencies installed (npm ci): scripts/serve-sandbox.ts is not in this installation\n',
    );
  });

  it('a labelled issue opened on the sandbox page ends as a draft pull request the page shows, and Ctrl-C stops everything', async () => {
    // The packaged CLI beside this checkout's scripts and development dependencies, as after `npm ci`.
    const repo = join(import.meta.dirname, '..', '..');
    for (const entry of ['scripts', 'node_modules']) symlinkSync(join(repo, entry), join(packageRoot, entry));
    try {
      const dir = tempDir();
      const p = serve(['--sandbox', '--port', '0', '--dir', 'sandbox'], dir);
      const [, page] = await p.waitFor(/open (http:\S+\/) to open and label an issue/, { timeoutMs: 60_000 });
      expect(p.stderr()).toContain('draftsman serve: webhooks to http://127.0.0.1:');
      const opened = await fetch(new URL('/issues', page), {
        method: 'POST',
        body: new URLSearchParams({ title: 'Migrate to Jakarta Persistence', body: MIGRATION_ISSUE_BODY }),
        redirect: 'manual',
      });
      expect(opened.status).toBe(303);
      expect(opened.headers.get('x-issue-number')).toBe('1');
      // The page shows the progress comment; it says PUBLISHED once the draft PR is open.
      let index = '';
      for (let i = 0; i < 240 && !index.includes('PUBLISHED — draft pull request opened'); i++) {
        if (i > 0) await new Promise((r) => setTimeout(r, 250));
        index = await (await fetch(page)).text();
      }
      expect(index).toContain('PUBLISHED — draft pull request opened');
      const pull = /href="(\/pulls\/\d+)"/.exec(index)?.[1];
      expect(pull).toBe('/pulls/2');
      const shown = await (await fetch(new URL(pull!, page))).text();
      expect(shown).toContain('Draft, open: agent/i1/r');
      expect(shown).toContain('3 files changed, 4 insertions(+), 4 deletions(-)');
      expect(shown).toContain('## Migrate to Jakarta Persistence');
      // serve's own files went where --dir said, relative to where the command ran.
      expect(readFileSync(join(dir, 'sandbox', '.env'), 'utf8')).toMatch(/^APP_ID=\d+$/m);
      expect(await p.stop()).toBe(0);
      await expect(fetch(page)).rejects.toThrow();
    } finally {
      for (const entry of ['scripts', 'node_modules']) rmSync(join(packageRoot, entry), { force: true });
    }
  }, 120_000);
});
