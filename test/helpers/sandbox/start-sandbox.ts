import { sign } from '@octokit/webhooks-methods';
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { CliIo } from '../../../src/app/cli/cli-io.js';
import { serveCommand } from '../../../src/app/serve/serve-command.js';
import { escapeHtml, page } from '../../../src/app/serve/setup/setup-server.js';
import type { ServeHandle } from '../../../src/app/serve/start-serve.js';
import { buildPayloads, harnessStandinOptions, HARNESS_APP_ID, HARNESS_FULL_NAME, MAINTAINER, MIGRATION_ISSUE_BODY, READER } from '../app-harness.js';
import { startGitHttpServer, type GitHttpServer } from '../git-http-server.js';
import { startGitHubStandin, type GitHubStandin } from '../github-standin/index.js';
import { startGitAuthProxy } from './git-auth-proxy.js';

/**
 * `draftsman serve --sandbox`: the App as `serve` runs it, against the GitHub stand-in the tests
 * use instead of GitHub, with one sandbox repository (`acme/orders`, a Maven service with a
 * policy) cloned over a real `git http-backend`. A local page (or `curl`) opens and labels an
 * issue, comments on it, and shows the issues, the progress comments and the draft PRs.
 */

export const SANDBOX_SECRET = 'sandbox-webhook-secret-0123456789';

export interface SandboxOptions {
  /** Where `.env`, the App key and the artifact store go. */
  dir: string;
  /** The page's host and port (default 127.0.0.1, a free port). */
  host?: string;
  port?: number;
  /** What serve prints (its start notice, its log lines). */
  io: Pick<CliIo, 'stdout' | 'stderr'>;
}

export interface Sandbox {
  /** The sandbox page: issues, comments, draft pull requests, and the forms that start runs. */
  pageUrl: string;
  serve: ServeHandle;
  standin: GitHubStandin;
  /** Opens an issue as the maintainer, labels it `agent:run` and delivers the signed webhook; the issue's number. */
  openIssue(title: string, body: string): Promise<number>;
  /** Comments on an issue or pull request as the maintainer (`/agent …` commands) and delivers the webhook. */
  comment(issue: number, body: string): Promise<void>;
  stop(): Promise<void>;
}

export async function postDelivery(
  url: string,
  event: string,
  payload: unknown,
  options: { id: string; secret: string },
): Promise<{ status: number; body: string }> {
  const body = JSON.stringify(payload);
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'user-agent': 'GitHub-Hookshot/sandbox',
      'x-github-delivery': options.id,
      'x-github-event': event,
      'x-github-hook-installation-target-id': String(HARNESS_APP_ID),
      'x-github-hook-installation-target-type': 'integration',
      'x-hub-signature-256': await sign(options.secret, body),
    },
    body,
  });
  return { status: res.status, body: await res.text() };
}

export async function startSandbox(options: SandboxOptions): Promise<Sandbox> {
  const privateKey = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  }).privateKey;
  const standin = await startGitHubStandin(
    harnessStandinOptions({ privateKeyPem: privateKey, users: { [MAINTAINER]: 'write', [READER]: 'read' }, issues: [] }),
  );
  let backend: GitHttpServer | undefined;
  let proxy: Awaited<ReturnType<typeof startGitAuthProxy>> | undefined;
  try {
    backend = await startGitHttpServer({ root: standin.gitRoot });
    proxy = await startGitAuthProxy(standin, backend.url);
  } catch (error) {
    await backend?.stop();
    await standin.stop();
    throw error;
  }
  mkdirSync(options.dir, { recursive: true });
  writeFileSync(join(options.dir, 'app.pem'), privateKey, { mode: 0o600 });
  const env = [
    `APP_ID=${HARNESS_APP_ID}`,
    `WEBHOOK_SECRET=${SANDBOX_SECRET}`,
    'PRIVATE_KEY_PATH=app.pem',
    `GITHUB_API_URL=${standin.url}`,
    'HOST=127.0.0.1',
    '',
  ];
  writeFileSync(join(options.dir, '.env'), env.join('\n'));

  const io: CliIo = { stdout: options.io.stdout, stderr: options.io.stderr, env: {}, cwd: options.dir, clock: { now: () => Date.now() }, isTty: false };
  let release!: () => void;
  const held = new Promise<void>((done) => (release = done));
  let exited: Promise<number> | undefined;
  const serve = await new Promise<ServeHandle>((ready, fail) => {
    exited = serveCommand(['--port', '0', '--dir', 'store'], io, (handle) => (ready(handle), held));
    exited.then((code) => fail(new Error(`serve ended with exit code ${code} before it listened`)), fail);
  });

  const payloads = buildPayloads(standin);
  let deliveries = 0;
  const deliver = async (event: string, payload: Record<string, unknown>) => {
    // The worker clones what the delivery's repository names: the stand-in's git, behind its token check.
    (payload.repository as Record<string, unknown>).clone_url = `${proxy!.url}/${HARNESS_FULL_NAME}.git`;
    deliveries += 1;
    const id = `00000000-0000-4000-8000-${String(deliveries).padStart(12, '0')}`;
    const res = await postDelivery(serve.webhookUrl, event, payload, { id, secret: SANDBOX_SECRET });
    if (res.status >= 300) throw new Error(`serve answered the ${event} delivery with ${res.status}: ${res.body}`);
  };
  const repo = () => standin.repo(HARNESS_FULL_NAME);
  const sandbox: Omit<Sandbox, 'pageUrl'> = {
    serve,
    standin,
    async openIssue(title, body) {
      const number = Math.max(0, ...repo().issues.keys(), ...repo().pulls.keys()) + 1;
      standin.setIssue(HARNESS_FULL_NAME, number, { title, body, user: MAINTAINER, labels: ['agent:run'], state: 'open' });
      await deliver('issues', payloads.labeled(number));
      return number;
    },
    async comment(issue, body) {
      await deliver('issue_comment', repo().pulls.has(issue) ? payloads.prComment(issue, body) : payloads.comment(issue, body));
    },
    async stop() {
      await new Promise<void>((done) => server.close(() => done()));
      release();
      await exited;
      await new Promise<void>((done) => proxy!.server.close(() => done()));
      await backend!.stop();
      await standin.stop();
    },
  };
  const server = createServer(
    (req, res) => void route(sandbox, req, res).catch((error) => page(res, 500, 'The sandbox failed', `<pre>${escapeHtml(String(error))}</pre>`)),
  );
  await new Promise<void>((ready) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', ready));
  const { port } = server.address() as AddressInfo;
  return { ...sandbox, pageUrl: `http://${options.host ?? '127.0.0.1'}:${port}/` };
}

async function formFields(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > 256 * 1024) throw new Error('the form is larger than 256 KiB');
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

async function route(sandbox: Omit<Sandbox, 'pageUrl'>, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://sandbox');
  const commentOn = /^\/issues\/(\d+)\/comments$/.exec(url.pathname);
  const pull = /^\/pulls\/(\d+)$/.exec(url.pathname);
  if (req.method === 'POST' && url.pathname === '/issues') {
    const form = await formFields(req);
    const number = await sandbox.openIssue(form.get('title') || 'A sandbox task', form.get('body') ?? '');
    return void res.writeHead(303, { location: `/#issue-${number}`, 'x-issue-number': String(number) }).end();
  }
  if (req.method === 'POST' && commentOn) {
    await sandbox.comment(Number(commentOn[1]), (await formFields(req)).get('body') ?? '');
    return void res.writeHead(303, { location: `/#issue-${commentOn[1]}` }).end();
  }
  if (req.method === 'GET' && pull) return pullPage(sandbox, Number(pull[1]), res);
  if (req.method === 'GET' && url.pathname === '/') return indexPage(sandbox, res);
  page(res, 404, 'Not found', '<p><a href="/">The sandbox</a></p>');
}

function indexPage(sandbox: Omit<Sandbox, 'pageUrl'>, res: ServerResponse): void {
  const repo = sandbox.standin.repo(HARNESS_FULL_NAME);
  const issues = [...repo.issues.values()].reverse().map((issue) => {
    const comments = [...repo.comments.values()]
      .filter((c) => c.issueNumber === issue.number)
      .map((c) => `<li><b>${escapeHtml(c.user.login)}</b><pre>${escapeHtml(c.body)}</pre></li>`)
      .join('');
    return (
      `<section id="issue-${issue.number}"><h3>#${issue.number} ${escapeHtml(issue.title)} (${issue.state}; ${escapeHtml(issue.labels.join(', '))})</h3>` +
      `<ul>${comments}</ul><form method="post" action="/issues/${issue.number}/comments"><input name="body" size="60" placeholder="/agent status">` +
      `<button>Comment as ${MAINTAINER}</button></form></section>`
    );
  });
  const pulls = [...repo.pulls.values()].map(
    (p) =>
      `<li><a href="/pulls/${p.number}">#${p.number} ${escapeHtml(p.title)}</a> (${p.draft ? 'draft, ' : ''}${p.state}, ${escapeHtml(p.head)} → ${escapeHtml(p.base)})</li>`,
  );
  page(
    res,
    200,
    `draftsman sandbox: ${HARNESS_FULL_NAME}`,
    `<p>A GitHub stand-in with one repository; <code>draftsman serve</code> is its App. Open an issue: it is labelled <code>agent:run</code> by ${MAINTAINER} (write permission), ` +
      'and the draft pull request appears below when the run ends. Reload to follow the progress comment.</p>' +
      `<form method="post" action="/issues"><p><input name="title" size="60" value="Migrate to Jakarta Persistence"></p>` +
      `<p><textarea name="body" rows="14" cols="90">${escapeHtml(MIGRATION_ISSUE_BODY)}</textarea></p><button>Open and label the issue</button></form>` +
      `<h2>Draft pull requests</h2><ul>${pulls.join('') || '<li>none yet</li>'}</ul><h2>Issues</h2>${issues.join('') || '<p>none yet</p>'}`,
  );
}

function pullPage(sandbox: Omit<Sandbox, 'pageUrl'>, number: number, res: ServerResponse): void {
  const pull = sandbox.standin.repo(HARNESS_FULL_NAME).pulls.get(number);
  if (!pull) return page(res, 404, `No pull request #${number}`, '<p><a href="/">The sandbox</a></p>');
  const gitDir = join(sandbox.standin.gitRoot, `${HARNESS_FULL_NAME}.git`);
  let stat: string;
  try {
    stat = execFileSync('git', ['--git-dir', gitDir, 'diff', '--stat', `refs/heads/${pull.base}...refs/heads/${pull.head}`], { encoding: 'utf8' });
  } catch (error) {
    stat = `the diff could not be read: ${error instanceof Error ? error.message : String(error)}`;
  }
  page(
    res,
    200,
    `#${number} ${pull.title}`,
    `<p>${pull.draft ? 'Draft, ' : ''}${pull.state}: ${escapeHtml(pull.head)} → ${escapeHtml(pull.base)}. <a href="/">Back</a></p><pre>${escapeHtml(stat)}</pre>` +
      `<h2>Body</h2><pre>${escapeHtml(pull.body ?? '')}</pre>`,
  );
}
