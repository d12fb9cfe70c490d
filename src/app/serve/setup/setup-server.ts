import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGitHubApi } from '../../github/github-api.js';
import type { JsonLogger } from '../../logger.js';
import { createProxyChannel, describeProxyError } from '../webhook-proxy.js';
import { buildManifest, newAppUrl } from './app-manifest.js';
import { updateEnvFile } from './env-file.js';

export interface SetupOptions {
  host: string;
  port: number;
  /** `app.yml`, the manifest registered. */
  appYml: string;
  /** The env file the App's id, key and secret go to (absolute), and its name as the person gave it. */
  envFile: string;
  envFileName: string;
  /** GitHub's web root (the manifest form) and API root (the code conversion). */
  githubUrl: string;
  apiUrl: string;
  /** A proxy channel already configured; else one is created from `proxyNewUrl`. */
  proxyUrl?: string;
  proxyNewUrl?: string;
  logger: JsonLogger;
}

/** What the manifest conversion gave and the env file now holds. */
export interface SetupResult {
  appId: number;
  slug: string;
  htmlUrl: string;
  proxyUrl: string;
}

export interface SetupServer {
  /** The setup page. */
  url: string;
  /** Resolves once the App is registered and its settings are in the env file. */
  done: Promise<SetupResult>;
  stop(): Promise<void>;
}

/** The setup cannot start: `sentence` says why in one sentence. */
export class SetupUnavailable extends Error {}

export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A small HTML page: the title as heading, `body` as given (already escaped). */
export function page(res: ServerResponse, status: number, title: string, body: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(
    `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`,
  );
}

/**
 * The page `draftsman serve` shows when no App is configured, Probot's manifest flow: a form
 * that posts `app.yml` (webhook pointed at a new proxy channel, redirect back here) to GitHub's
 * "new GitHub App" page; GitHub redirects back with a code, which is exchanged
 * (`POST /app-manifests/{code}/conversions`) for the App's id, key and webhook secret, written
 * to the env file with the proxy channel.
 */
export async function startSetupServer(options: SetupOptions): Promise<SetupServer> {
  let proxyUrl = options.proxyUrl;
  if (!proxyUrl) {
    try {
      proxyUrl = await createProxyChannel(options.proxyNewUrl);
    } catch (error) {
      throw new SetupUnavailable(
        `registering a GitHub App needs the network, and no webhook proxy channel could be made at ${options.proxyNewUrl ?? 'https://smee.io/new'} (${describeProxyError(error)}): connect and retry, or set WEBHOOK_PROXY_URL to a channel you have`,
        { cause: error },
      );
    }
  }
  const channel = proxyUrl;
  const state = randomUUID();
  let settle: { resolve: (r: SetupResult) => void } | undefined;
  const done = new Promise<SetupResult>((resolve) => (settle = { resolve }));
  let finished: SetupResult | undefined;

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      options.logger.error('setup failed', { error: describeProxyError(error) });
      if (!res.headersSent)
        page(res, 502, 'The App could not be registered', `<p>${escapeHtml(describeProxyError(error))}</p><p><a href="/">Start again</a></p>`);
    });
  });
  let base = '';
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method === 'GET' && url.pathname === '/') return form(res);
    if (req.method === 'GET' && url.pathname === '/setup/done') return convert(url, res);
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  }
  function form(res: ServerResponse): void {
    if (finished) return registered(res, finished);
    const manifest = buildManifest(options.appYml, { webhookUrl: channel, redirectUrl: `${base}/setup/done` });
    const action = `${newAppUrl(options.githubUrl)}?state=${state}`;
    page(
      res,
      200,
      'Register the draftsman GitHub App',
      `<p>This registers a GitHub App from <code>${escapeHtml(options.appYml)}</code> on your account, with its webhook at the proxy channel <code>${escapeHtml(channel)}</code>. ` +
        `GitHub then sends you back here, and the App's id, private key and webhook secret are written to <code>${escapeHtml(options.envFileName)}</code>.</p>` +
        `<form action="${escapeHtml(action)}" method="post"><input type="hidden" name="manifest" value="${escapeHtml(JSON.stringify(manifest))}">` +
        `<button type="submit">Register the GitHub App</button></form>`,
    );
  }
  async function convert(url: URL, res: ServerResponse): Promise<void> {
    const code = url.searchParams.get('code');
    if (!code || url.searchParams.get('state') !== state)
      return page(res, 400, 'Not from this setup', '<p>This link did not come from this setup page. <a href="/">Start again</a>.</p>');
    const { data } = await createGitHubApi({ baseUrl: options.apiUrl }).rest.apps.createFromManifest({ code });
    options.logger.redact(data.pem);
    options.logger.redact(data.webhook_secret ?? '');
    options.logger.redact(data.client_secret);
    updateEnvFile(options.envFile, {
      APP_ID: String(data.id),
      WEBHOOK_SECRET: data.webhook_secret ?? '',
      PRIVATE_KEY: data.pem,
      GITHUB_APP_SLUG: data.slug ?? '',
      WEBHOOK_PROXY_URL: channel,
    });
    finished = { appId: data.id, slug: data.slug ?? '', htmlUrl: data.html_url, proxyUrl: channel };
    options.logger.info('GitHub App registered', { appId: data.id, slug: data.slug, envFile: options.envFileName });
    const result = finished;
    // Resolved once the page is sent: serve then closes this server and listens on the port itself.
    res.once('finish', () => settle?.resolve(result));
    registered(res, result);
  }
  function registered(res: ServerResponse, result: SetupResult): void {
    page(
      res,
      200,
      `${result.slug} is registered`,
      `<p>Its id, key and webhook secret are in <code>${escapeHtml(options.envFileName)}</code>, and draftsman serve now takes its deliveries.</p>` +
        `<p>Next: <a href="${escapeHtml(result.htmlUrl)}/installations/new">install the App</a> on a test repository, add <code>.agent-policy.yaml</code> and label an issue <code>agent:run</code>.</p>`,
    );
  }

  await new Promise<void>((ready, fail) => {
    server.once('error', fail);
    server.listen(options.port, options.host, () => ready());
  });
  const address = server.address() as AddressInfo;
  base = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
  return {
    url: `${base}/`,
    done,
    stop: () =>
      new Promise<void>((closed) => {
        server.close(() => closed());
        server.closeAllConnections();
      }),
  };
}
