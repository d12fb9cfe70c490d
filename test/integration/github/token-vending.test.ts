import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { InProcessTokenBroker } from '../../../src/app/tokens/in-process-token-broker.js';
import { mintInstallationToken, TokenError } from '../../../src/app/tokens/mint-installation-token.js';
import { createTokenHandler } from '../../../src/app/tokens/token-handler.js';
import { scopesFor, TOKEN_SCOPES } from '../../../src/app/tokens/token-scopes.js';
import type { Logger } from '../../../src/core/ports.js';
import { STANDIN_GITHUB_POLICY, startGitHubStandin, type GitHubStandin } from '../../helpers/github-standin/index.js';
import { api, fixedClock, testAppKey } from './standin-fixture.js';

const clock = fixedClock();
const keys = testAppKey();
const APP_ID = 4242;
let standin: GitHubStandin;

function capturingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const log = (level: string) => (message: string, meta?: Record<string, unknown>) => void lines.push(JSON.stringify({ level, message, meta }));
  return { lines, debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}

function mint(role: 'read' | 'write', repositoryId = 11, extra: Partial<Parameters<typeof mintInstallationToken>[0]> = {}) {
  return mintInstallationToken({
    apiUrl: standin.url,
    appId: APP_ID,
    privateKey: keys.privateKeyPem,
    installationId: 1,
    repositoryId,
    permissions: scopesFor(role),
    clock,
    policy: STANDIN_GITHUB_POLICY,
    ...extra,
  });
}

async function caught(p: Promise<unknown>): Promise<TokenError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TokenError);
  return error as TokenError;
}

beforeAll(async () => {
  standin = await startGitHubStandin({
    appId: APP_ID,
    privateKeyPem: keys.privateKeyPem,
    clock,
    repos: [
      { owner: 'acme', name: 'widgets', id: 11, files: { 'README.md': '# w\n' }, issues: [{ number: 1, title: 'Do it', body: 'please' }] },
      { owner: 'acme', name: 'gadgets', id: 22, files: { 'README.md': '# g\n' } },
    ],
  });
  standin.addCheckSuite('acme/widgets', { headSha: (await standin.resolve('acme/widgets', 'main'))!, runs: [{ name: 'ci' }] });
});
afterAll(async () => {
  await standin.stop();
});
afterEach(() => {
  standin.faults.clear();
});

describe('App JWT and installation token minting', () => {
  it('authenticates with an RS256 App JWT timed by the injected clock: iat = now - 30, exp = now + 570, iss = App id', async () => {
    const jwts: string[] = [];
    const spy: typeof fetch = (input, init) => {
      jwts.push(String(new Headers(init?.headers).get('authorization')).replace(/^bearer /i, ''));
      return fetch(input, init);
    };
    await mint('read', 11, { fetch: spy });
    expect(jwts).toHaveLength(1);
    const [header, payload] = jwts[0].split('.');
    const now = clock.now() / 1000;
    expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toEqual({ alg: 'RS256', typ: 'JWT' });
    expect(JSON.parse(Buffer.from(payload, 'base64url').toString())).toEqual({ iat: now - 30, exp: now + 570, iss: APP_ID });
  });

  it('mints a token for exactly one repository with the fixed scopes, and the stand-in remembers that scope', async () => {
    const issued = await mint('write');
    expect(issued.repositoryIds).toEqual([11]);
    expect(issued.permissions).toEqual({ ...TOKEN_SCOPES.write, metadata: 'read' });
    expect(issued.expiresAt).toBe('2025-06-01T13:00:00Z');
    const remembered = standin.state.tokens().at(-1)!;
    expect(remembered).toMatchObject({ repositoryIds: [11], permissions: { contents: 'write', pull_requests: 'write', issues: 'write', metadata: 'read' } });
    const call = standin.calls.at(-1)!;
    expect(call.body).toEqual({ repository_ids: [11], permissions: { contents: 'write', pull_requests: 'write', issues: 'write' } });
    expect(call.tokenId).toBe('app-jwt:4242');
  });

  it('answers 401 to a JWT signed with another key, and to an expired JWT', async () => {
    expect(await caught(mint('read', 11, { privateKey: keys.otherPrivateKeyPem })).then((e) => e.reason)).toBe('APP_AUTH_FAILED');
    const stale = { now: () => clock.now() - 11 * 60_000 };
    const error = await caught(mint('read', 11, { clock: stale }));
    expect(error.reason).toBe('APP_AUTH_FAILED');
    expect(error.data.status).toBe(401);
    expect(standin.calls.at(-1)!.status).toBe(401);
  });

  it('maps an unknown installation to INSTALLATION_NOT_FOUND and a repository outside it to TOKEN_REQUEST_REJECTED', async () => {
    expect((await caught(mint('read', 11, { installationId: 99 }))).reason).toBe('INSTALLATION_NOT_FOUND');
    const rejected = await caught(mint('read', 999));
    expect(rejected.reason).toBe('TOKEN_REQUEST_REJECTED');
    expect(rejected.data.status).toBe(422);
  });
});

describe('what a token may do on the stand-in', () => {
  it('a read token reads and comments but cannot create a blob, a ref or a pull request (403)', async () => {
    const { token } = await mint('read');
    const R = '/repos/acme/widgets';
    expect((await api(standin.url, 'GET', `${R}/contents/README.md`, token)).status).toBe(200);
    expect((await api(standin.url, 'GET', `${R}/commits/main/check-runs`, token)).body!.total_count).toBe(1);
    expect((await api(standin.url, 'POST', `${R}/issues/1/comments`, token, { body: 'working on it' })).status).toBe(201);
    const head = await standin.resolve('acme/widgets', 'main');
    for (const [path, body] of [
      ['/git/blobs', { content: 'x', encoding: 'utf-8' }],
      ['/git/refs', { ref: 'refs/heads/agent/x', sha: head }],
      ['/pulls', { head: 'main', base: 'main', title: 't', draft: true }],
    ] as const) {
      const r = await api(standin.url, 'POST', `${R}${path}`, token, body);
      expect(r, path).toMatchObject({ status: 403, body: { message: 'Resource not accessible by integration' } });
    }
    expect(await standin.resolve('acme/widgets', 'agent/x')).toBeUndefined();
  });

  it('a write token cannot read checks (not in its scope)', async () => {
    const { token } = await mint('write');
    expect((await api(standin.url, 'GET', '/repos/acme/widgets/commits/main/check-suites', token)).status).toBe(403);
    expect((await api(standin.url, 'POST', '/repos/acme/widgets/git/blobs', token, { content: 'ok' })).status).toBe(201);
  });

  it('a token for repository A cannot touch repository B; an unknown token gets 401', async () => {
    const { token } = await mint('write', 11);
    expect((await api(standin.url, 'GET', '/repos/acme/gadgets', token)).status).toBe(404);
    expect((await api(standin.url, 'POST', '/repos/acme/gadgets/git/blobs', token, { content: 'x' })).status).toBe(404);
    expect((await api(standin.url, 'GET', '/repos/acme/widgets', token)).body).toMatchObject({ id: 11, default_branch: 'main', private: true });
    expect((await api(standin.url, 'GET', '/repos/acme/widgets', 'ghs_notatokenwemade')).status).toBe(401);
    expect([standin.authorizeGit(token, 'acme/widgets', 'write'), standin.authorizeGit(token, 'acme/gadgets', 'read')]).toEqual([true, false]);
    const { token: readToken } = await mint('read', 11);
    expect([standin.authorizeGit(readToken, 'acme/widgets', 'read'), standin.authorizeGit(readToken, 'acme/widgets', 'write')]).toEqual([true, false]);
  });

  it('a token stops working when it expires (stand-in clock)', async () => {
    const { token } = await mint('read');
    clock.advance(3600_000);
    try {
      expect((await api(standin.url, 'GET', '/repos/acme/widgets', token)).status).toBe(401);
    } finally {
      clock.advance(-3600_000);
    }
  });
});

describe("retries (the App's GitHub client)", () => {
  it('retries 502 and succeeds', async () => {
    standin.faults.inject({ kind: '502', count: 2, match: (r) => r.path.endsWith('/access_tokens') });
    const issued = await mint('read', 11);
    expect(issued.repositoryIds).toEqual([11]);
    expect(standin.calls.slice(-3).map((c) => c.status)).toEqual([502, 502, 201]);
  });

  it('sits out a short retry-after on a secondary rate limit, and logs it', async () => {
    const logger = capturingLogger();
    standin.faults.inject({ kind: 'secondary-rate-limit', count: 1, retryAfter: 3, match: (r) => r.method === 'POST' });
    await mint('write', 11, { logger });
    expect(standin.calls.slice(-2).map((c) => c.status)).toEqual([403, 201]);
    expect(logger.lines.map((l) => JSON.parse(l) as { meta?: { retryAfterSeconds?: number } }).filter((l) => l.meta?.retryAfterSeconds === 3)).toHaveLength(1);
  });

  it('gives up with a coded error after the last retry, or at once on a long rate limit', async () => {
    standin.faults.inject({ kind: '502', count: 10, match: () => true });
    const before = standin.calls.length;
    const error = await caught(mint('read', 11, { policy: { ...STANDIN_GITHUB_POLICY, retries: 2 } }));
    expect(error.reason).toBe('GITHUB_UNAVAILABLE');
    expect(standin.calls.length - before).toBe(3);
    standin.faults.clear();
    standin.faults.inject({ kind: 'secondary-rate-limit', count: 1, retryAfter: 120, match: () => true });
    const limited = await caught(mint('read'));
    expect(limited.reason).toBe('RATE_LIMITED');
    expect(limited.data).toMatchObject({ retryAfterMs: 120_000, retryAt: new Date(clock.now() + 120_000).toISOString() });
  });
});

describe('token handler factory and brokers', () => {
  it('mints with the role fixed at construction, loads the key once, and rejects any other event shape', async () => {
    let loads = 0;
    const handler = createTokenHandler({
      role: 'read',
      appId: APP_ID,
      apiUrl: standin.url,
      clock,
      loadPrivateKey: async () => {
        loads++;
        return keys.privateKeyPem;
      },
    });
    const a = await handler({ installationId: 1, repositoryId: 11 });
    const b = await handler({ installationId: 1, repositoryId: 22 });
    expect(loads).toBe(1);
    expect([a.repositoryIds, b.repositoryIds]).toEqual([[11], [22]]);
    expect(a.permissions).toEqual({ ...TOKEN_SCOPES.read });
    // A narrower role is minted (run-session asks token-read for the worker's); a wider one never.
    const narrowed = await handler({ installationId: 1, repositoryId: 11, role: 'worker' });
    expect(narrowed.permissions).toEqual({ ...TOKEN_SCOPES.worker });
    expect(narrowed.permissions).not.toHaveProperty('issues');
    expect((await caught(handler({ installationId: 1, repositoryId: 11, role: 'write' }))).reason).toBe('ROLE_NOT_ALLOWED');
    for (const event of [{ installationId: 1, repositoryId: 11, permissions: { contents: 'write' } }, { installationId: 1 }, 'x']) {
      expect((await caught(handler(event))).reason).toBe('INVALID_TOKEN_REQUEST');
    }
  });

  it('reports an unavailable key and retries loading it on the next call', async () => {
    let calls = 0;
    const handler = createTokenHandler({
      role: 'write',
      appId: APP_ID,
      apiUrl: standin.url,
      clock,
      loadPrivateKey: async () => {
        calls++;
        if (calls === 1) throw new Error('ssm throttled');
        return keys.privateKeyPem;
      },
    });
    expect((await caught(handler({ installationId: 1, repositoryId: 11 }))).reason).toBe('PRIVATE_KEY_UNAVAILABLE');
    expect((await handler({ installationId: 1, repositoryId: 11 })).repositoryIds).toEqual([11]);
  });

  it('the in-process broker refuses a role it was not built for, before any request', async () => {
    const broker = new InProcessTokenBroker({ role: 'read', appId: APP_ID, apiUrl: standin.url, clock, loadPrivateKey: async () => keys.privateKeyPem });
    const before = standin.calls.length;
    expect((await caught(broker.token({ installationId: 1, repositoryId: 11, role: 'write' }))).reason).toBe('ROLE_NOT_ALLOWED');
    expect(standin.calls.length).toBe(before);
    expect((await broker.token({ installationId: 1, repositoryId: 11, role: 'read' })).permissions.contents).toBe('read');
  });

  it('never puts the private key or a token in a log line, a recorded call or an error', async () => {
    const logger = capturingLogger();
    standin.faults.inject({ kind: '502', count: 1, match: () => true });
    await mint('write', 11, { logger });
    const failures = [await caught(mint('read', 11, { privateKey: keys.otherPrivateKeyPem, logger })), await caught(mint('read', 999, { logger }))];
    // Any 16-character aligned piece of either key's base64 body counts as a leak.
    const keyPieces = [keys.privateKeyPem, keys.otherPrivateKeyPem].flatMap((pem) =>
      pem
        .split('\n')
        .filter((l) => !l.startsWith('-----'))
        .flatMap((l) => l.match(/.{16}/g) ?? []),
    );
    const secrets = [...keyPieces, ...standin.state.tokenValues()];
    const haystack = [JSON.stringify(standin.calls), ...logger.lines, ...failures.map((e) => JSON.stringify(e.toJSON()) + String(e.message))].join('\n');
    expect(logger.lines.length).toBeGreaterThan(1);
    expect(standin.state.tokenValues().length).toBeGreaterThan(3);
    expect(secrets.filter((s) => haystack.includes(s))).toEqual([]);
    expect(haystack).not.toMatch(/ghs_[A-Za-z0-9]{20}/);
    expect(haystack).not.toMatch(/Bearer ey/);
  });
});
