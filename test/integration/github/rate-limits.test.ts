import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RequestError } from '@octokit/request-error';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createGitHubApi, DEFAULT_GITHUB_RETRY_POLICY, type GitHubApi } from '../../../src/app/github/github-api.js';
import { GitHubApiError } from '../../../src/app/github/github-api-error.js';
import { InProcessTokenBroker } from '../../../src/app/tokens/in-process-token-broker.js';
import { STANDIN_GITHUB_POLICY, startGitHubStandin, type FaultKind, type GitHubStandin } from '../../helpers/github-standin/index.js';
import { fixedClock, testAppKey } from './standin-fixture.js';

/**
 * The App's one GitHub client against the stand-in's rate limits and outages, answered with the
 * headers and bodies GitHub sends: secondary limits are sat out when short, a long wait or an
 * exhausted quota fails at once with a GitHubApiError that says when to retry, 5xx answers are
 * retried with the retry plugin's policy, and no other 4xx is ever retried.
 */
const APP_ID = 904;
const keys = testAppKey();
const clock = fixedClock();
const REPO_PATH = '/repos/acme/orders';
const ROUTE = 'GET /repos/{owner}/{repo}';

let standin: GitHubStandin;
let token: string;

beforeAll(async () => {
  standin = await startGitHubStandin({
    appId: APP_ID,
    privateKeyPem: keys.privateKeyPem,
    clock,
    repos: [{ owner: 'acme', name: 'orders', id: 411, files: { 'README.md': '# orders\n' } }],
  });
  const broker = new InProcessTokenBroker({
    role: 'read',
    appId: APP_ID,
    apiUrl: standin.url,
    clock,
    loadPrivateKey: async () => keys.privateKeyPem,
    policy: STANDIN_GITHUB_POLICY,
  });
  token = (await broker.token({ installationId: standin.repo('acme/orders').installationId, repositoryId: 411, role: 'read' })).token;
}, 30_000);

afterAll(async () => standin?.stop());
afterEach(() => standin.faults.clear());

interface Client {
  api: GitHubApi;
  warnings: { message: string; meta: Record<string, unknown> }[];
}

function client(): Client {
  const warnings: Client['warnings'] = [];
  const logger = { debug() {}, info() {}, error() {}, warn: (message: string, meta: Record<string, unknown> = {}) => void warnings.push({ message, meta }) };
  return { api: createGitHubApi({ token, baseUrl: standin.url, policy: STANDIN_GITHUB_POLICY, logger, now: clock.now }), warnings };
}

function fault(kind: FaultKind, count: number, extra: { retryAfter?: number; resetAt?: number } = {}): void {
  standin.faults.inject({ kind, count, ...extra, match: (r) => r.method === 'GET' && r.path === REPO_PATH });
}

/** Statuses of the stand-in's answers to `run`'s requests, in order. */
async function statusesOf(run: () => Promise<unknown>): Promise<{ statuses: number[]; outcome: unknown }> {
  const before = standin.calls.length;
  let outcome: unknown;
  try {
    outcome = await run();
  } catch (error) {
    outcome = error;
  }
  return { statuses: standin.calls.slice(before).map((c) => c.status), outcome };
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('secondary rate limits', () => {
  it.each([
    ['403', 'secondary-rate-limit', 403],
    ['429', 'secondary-rate-limit-429', 429],
  ] as const)('a %s with a short retry-after is sat out, then the call succeeds; the event is logged with its route', async (_name, kind, status) => {
    const { api, warnings } = client();
    fault(kind, 1, { retryAfter: 3 });
    const { statuses, outcome } = await statusesOf(() => api.rest.repos.get({ owner: 'acme', repo: 'orders' }));
    expect(statuses).toEqual([status, 200]);
    expect((outcome as { status: number }).status).toBe(200);
    expect(warnings).toEqual([
      { message: 'GitHub rate limit', meta: { limit: 'secondary', route: ROUTE, retryAfterSeconds: 3, retryCount: 0, retrying: true } },
    ]);
  });

  it.each([
    ['403', 'secondary-rate-limit', 403],
    ['429', 'secondary-rate-limit-429', 429],
  ] as const)(
    'a %s whose retry-after is longer than the policy allows fails at once with GITHUB_RATE_LIMITED and when to retry',
    async (_name, kind, status) => {
      const { api, warnings } = client();
      const wait = DEFAULT_GITHUB_RETRY_POLICY.maxRateLimitWaitSeconds + 50;
      fault(kind, 1, { retryAfter: wait });
      const { statuses, outcome } = await statusesOf(() => api.rest.repos.get({ owner: 'acme', repo: 'orders' }));
      expect(statuses).toEqual([status]);
      expect(outcome).toBeInstanceOf(GitHubApiError);
      const error = outcome as GitHubApiError;
      expect(error.reason).toBe('GITHUB_RATE_LIMITED');
      expect(error.status).toBe(status);
      expect(error.data).toEqual({
        status,
        limit: 'secondary',
        route: ROUTE,
        retryAfterSeconds: wait,
        retryAt: new Date(clock.now() + wait * 1000).toISOString(),
      });
      expect(warnings.map((w) => w.meta.retrying)).toEqual([false]);
    },
  );

  it('a limit that keeps coming back is retried a bounded number of times, then fails typed', async () => {
    const { api } = client();
    fault('secondary-rate-limit', 10, { retryAfter: 1 });
    const { statuses, outcome } = await statusesOf(() => api.rest.repos.get({ owner: 'acme', repo: 'orders' }));
    expect(statuses).toEqual(Array(DEFAULT_GITHUB_RETRY_POLICY.rateLimitRetries + 1).fill(403));
    expect((outcome as GitHubApiError).reason).toBe('GITHUB_RATE_LIMITED');
  });
});

describe('primary rate limit', () => {
  it('an exhausted quota that resets beyond the allowed wait fails at once with the reset time', async () => {
    const { api, warnings } = client();
    const resetAt = nowSeconds() + 3600;
    fault('primary-rate-limit', 1, { resetAt });
    const { statuses, outcome } = await statusesOf(() => api.rest.repos.get({ owner: 'acme', repo: 'orders' }));
    expect(statuses).toEqual([403]);
    expect(outcome).toBeInstanceOf(GitHubApiError);
    const error = outcome as GitHubApiError;
    expect(error.reason).toBe('GITHUB_RATE_LIMITED');
    // GitHub's advice: retry after the reset time, so one second past it.
    expect(error.data).toMatchObject({ status: 403, limit: 'primary', route: ROUTE, retryAt: new Date((resetAt + 1) * 1000).toISOString() });
    expect(warnings).toEqual([{ message: 'GitHub rate limit', meta: expect.objectContaining({ limit: 'primary', route: ROUTE, retrying: false }) }]);
  });

  it('a quota that resets within the allowed wait is sat out', async () => {
    const { api } = client();
    fault('primary-rate-limit', 1, { resetAt: nowSeconds() });
    const { statuses } = await statusesOf(() => api.rest.repos.get({ owner: 'acme', repo: 'orders' }));
    expect(statuses).toEqual([403, 200]);
  });
});

describe('server errors and other client errors', () => {
  it('a 502 is retried and the call succeeds', async () => {
    const { api, warnings } = client();
    fault('502', 1);
    const { statuses, outcome } = await statusesOf(() => api.rest.repos.get({ owner: 'acme', repo: 'orders' }));
    expect(statuses).toEqual([502, 200]);
    expect((outcome as { status: number }).status).toBe(200);
    expect(warnings).toEqual([]);
  });

  it('5xx answers are retried as many times as the policy says, then the RequestError is thrown', async () => {
    const { api } = client();
    fault('502', 10);
    const { statuses, outcome } = await statusesOf(() => api.rest.repos.get({ owner: 'acme', repo: 'orders' }));
    expect(statuses).toEqual(Array(DEFAULT_GITHUB_RETRY_POLICY.retries + 1).fill(502));
    expect(outcome).toBeInstanceOf(RequestError);
    expect((outcome as RequestError).status).toBe(502);
  });

  it('a 404 is never retried', async () => {
    const { api } = client();
    const { statuses, outcome } = await statusesOf(() => api.rest.repos.get({ owner: 'acme', repo: 'no-such-repo' }));
    expect(statuses).toEqual([404]);
    expect(outcome).toBeInstanceOf(RequestError);
    expect((outcome as RequestError).status).toBe(404);
  });

  it('a 403 that is not a rate limit is never retried and stays a RequestError', async () => {
    const { api } = client();
    const { statuses, outcome } = await statusesOf(() => api.rest.git.createRef({ owner: 'acme', repo: 'orders', ref: 'refs/heads/x', sha: '0'.repeat(40) }));
    // A read token may not create refs: "Resource not accessible by integration".
    expect(statuses).toEqual([403]);
    expect(outcome).toBeInstanceOf(RequestError);
    expect(outcome).not.toBeInstanceOf(GitHubApiError);
  });
});

describe('network failures and timeouts', () => {
  /** A loopback peer that counts requests and answers each the way `answer` says. */
  async function peer(answer: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; hits: () => number; close: () => Promise<void> }> {
    let hits = 0;
    const server = createServer((req, res) => {
      hits++;
      answer(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      hits: () => hits,
      close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
    };
  }

  it('a dropped connection is retried with the plugin policy, then thrown as a RequestError', async () => {
    const p = await peer((req) => req.socket.destroy());
    try {
      const api = createGitHubApi({ token, baseUrl: p.url, policy: STANDIN_GITHUB_POLICY });
      const error = await api.rest.repos.get({ owner: 'acme', repo: 'orders' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RequestError);
      expect(p.hits()).toBe(DEFAULT_GITHUB_RETRY_POLICY.retries + 1);
    } finally {
      await p.close();
    }
  });

  it('an attempt that outlives the request timeout is abandoned and retried', async () => {
    const p = await peer(() => undefined);
    try {
      const api = createGitHubApi({ token, baseUrl: p.url, policy: { ...STANDIN_GITHUB_POLICY, requestTimeoutMs: 50, retries: 1 } });
      const error = await api.rest.repos.get({ owner: 'acme', repo: 'orders' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RequestError);
      expect(p.hits()).toBe(2);
    } finally {
      await p.close();
    }
  });
});
