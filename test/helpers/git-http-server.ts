import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the server remembers about one request. Never the credential itself. */
export interface GitHttpRequestRecord {
  method: string;
  /** Path part of the URL, e.g. `/repo.git/info/refs`. */
  path: string;
  query: string;
  /** `git-upload-pack`, `git-receive-pack`, or undefined for other paths. */
  service?: string;
  authPresent: boolean;
  authorized: boolean;
  /** HTTP status sent back (set once the response head is written). */
  status?: number;
}

/** A hook run after auth and before git-http-backend answers; may delay, move refs, or answer itself. */
export type GitHttpHook = (request: GitHttpRequestRecord, res: ServerResponse) => void | boolean | Promise<void | boolean>;

export interface GitHttpServer {
  url: string;
  port: number;
  requests: GitHttpRequestRecord[];
  /** Set at any time; returning `true` means the hook answered the request itself. */
  onRequest?: GitHttpHook;
  stop(): Promise<void>;
}

export interface GitHttpServerOptions {
  /** Directory holding the repositories (GIT_PROJECT_ROOT). */
  root: string;
  /** Valid passwords for the user `x-access-token`. Without tokens every request is anonymous. */
  tokens?: string[];
  /** Tokens that authenticate but are refused with 403. */
  deniedTokens?: string[];
  /** With tokens set, still serve requests that carry no credentials. */
  anonymous?: boolean;
  onRequest?: GitHttpHook;
  /** Extra git config for the backend, e.g. `uploadpack.allowFilter` for partial clones. */
  config?: Record<string, string>;
}

const BACKEND = '/usr/lib/git-core/git-http-backend';

/**
 * A loopback smart-HTTP git server: `git http-backend` spawned per request as a CGI, with basic
 * auth as `x-access-token:<token>` and receive-pack enabled. Records every request (without the
 * credential) so tests can assert on what the client did.
 */
export async function startGitHttpServer(options: GitHttpServerOptions): Promise<GitHttpServer> {
  const tokens = new Set(options.tokens ?? []);
  const denied = new Set(options.deniedTokens ?? []);
  const requireAuth = tokens.size + denied.size > 0 && !options.anonymous;
  const requests: GitHttpRequestRecord[] = [];
  const extraConfig = Object.entries(options.config ?? {});
  const sockets = new Set<import('node:net').Socket>();

  /** The credential's user (none when anonymous is allowed); `answered` when a 401 or 403 was sent instead. */
  const authenticate = (header: string | undefined, record: GitHttpRequestRecord, res: ServerResponse): { user?: string } | 'answered' => {
    if (header === undefined) {
      if (!requireAuth) return {};
      res.writeHead(401, { 'www-authenticate': 'Basic realm="git"', 'content-type': 'text/plain' }).end('authentication required\n');
      return 'answered';
    }
    const credential = parseBasic(header);
    if (credential && credential.user === 'x-access-token' && denied.has(credential.password)) {
      res.writeHead(403, { 'content-type': 'text/plain' }).end('forbidden\n');
      return 'answered';
    }
    if (!credential || credential.user !== 'x-access-token' || !tokens.has(credential.password)) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="git"', 'content-type': 'text/plain' }).end('bad credentials\n');
      return 'answered';
    }
    record.authorized = true;
    return { user: credential.user };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const parsed = new URL(req.url ?? '/', 'http://127.0.0.1');
    const header = req.headers.authorization;
    const record: GitHttpRequestRecord = {
      method: req.method ?? 'GET',
      path: parsed.pathname,
      query: parsed.search.replace(/^\?/, ''),
      service: parsed.searchParams.get('service') ?? /(git-upload-pack|git-receive-pack)$/.exec(parsed.pathname)?.[1] ?? undefined,
      authPresent: header !== undefined,
      authorized: false,
    };
    requests.push(record);
    res.on('finish', () => {
      record.status = res.statusCode;
    });

    const access = authenticate(header, record, res);
    if (access === 'answered') return;
    const user = access.user;

    const hook = server.onRequest;
    if (hook && (await hook(record, res)) === true) return;

    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: options.root,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_CONFIG_COUNT: String(1 + extraConfig.length),
      GIT_CONFIG_KEY_0: 'http.receivepack',
      GIT_CONFIG_VALUE_0: 'true',
      ...Object.fromEntries(
        extraConfig.flatMap(([key, value], i) => [
          [`GIT_CONFIG_KEY_${i + 1}`, key],
          [`GIT_CONFIG_VALUE_${i + 1}`, value],
        ]),
      ),
      GIT_PROJECT_ROOT: options.root,
      GIT_HTTP_EXPORT_ALL: '1',
      REQUEST_METHOD: record.method,
      PATH_INFO: decodeURIComponent(parsed.pathname),
      QUERY_STRING: record.query,
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      CONTENT_LENGTH: req.headers['content-length'] ?? '',
      REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
      ...(user ? { REMOTE_USER: user } : {}),
      ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: String(req.headers['content-encoding']) } : {}),
      ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
    };
    const child = spawn(BACKEND, [], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    req.pipe(child.stdin);
    child.stdin.on('error', () => undefined);
    child.stderr.resume();

    let head = Buffer.alloc(0);
    let headDone = false;
    child.stdout.on('data', (chunk: Buffer) => {
      if (headDone) {
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const crlf = head.indexOf('\r\n\r\n');
      const lf = head.indexOf('\n\n');
      const end = crlf >= 0 && (lf < 0 || crlf < lf) ? crlf + 4 : lf >= 0 ? lf + 2 : -1;
      if (end < 0) return;
      headDone = true;
      let status = 200;
      const headers: Record<string, string> = {};
      for (const line of head.subarray(0, end).toString('latin1').split(/\r?\n/)) {
        const colon = line.indexOf(':');
        if (colon <= 0) continue;
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
        else headers[name] = value;
      }
      res.writeHead(status, headers);
      res.write(head.subarray(end));
    });
    child.on('close', (code) => {
      if (!headDone) {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`git-http-backend exited with ${code}\n`);
        return;
      }
      res.end();
    });
  };

  const server: GitHttpServer & { onRequest?: GitHttpHook } = {
    url: '',
    port: 0,
    requests,
    onRequest: options.onRequest,
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`server error: ${error instanceof Error ? error.message : String(error)}\n`);
    });
  });
  http.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', () => resolve()));
  const { port } = http.address() as AddressInfo;
  server.port = port;
  server.url = `http://127.0.0.1:${port}`;
  return server;
}

function parseBasic(header: string): { user: string; password: string } | undefined {
  const match = /^Basic\s+(.+)$/i.exec(header.trim());
  if (!match) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
