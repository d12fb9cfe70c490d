import { appendFile, mkdtemp, rm } from 'node:fs/promises';
import { APP_EVENTS } from '../../../src/app/github/app-grants.js';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { grants, TokenRegistry, type AuthResult, type MintedToken } from './auth.js';
import { GitStore } from './git-store.js';
import { formatIsoDate, parseIsoDate, type Signature, type TreeEntryMode } from './git-objects.js';
import type {
  CheckAnnotationState,
  CheckRunOutputState,
  CheckSuiteState,
  CommitStatusState,
  RepoPermission,
  RepoState,
  ReviewState,
  StandinUser,
} from './repo-state.js';
import { graphqlRoute } from './graphql-routes.js';
import { manifestConversion, type StandinManifestRegistration } from './manifest-routes.js';
import { handleRepoRoute, type RouteContext, type RouteResult } from './repo-routes.js';
import { jobLogSignature, pageOf } from './route-context.js';
import { iso, repoJson, userJson } from './repo-json.js';
import { buildTree, UnprocessableError } from './tree-builder.js';
import type { GitHubRetryPolicy } from '../../../src/app/github/github-api.js';
import { checkExchange, formatViolation, type ContractViolation, type ExchangeCheck } from '../openapi/contract-check.js';
import { githubDescription } from '../openapi/github-description.js';
import { contractFailure, liveStandins, USAGE_DIR_ENV } from '../openapi/live-standins.js';
import { permissionProblems, tokenLabel } from '../openapi/github-permissions.js';

export type SeedFile = string | Uint8Array | { content: string | Uint8Array; mode?: '100644' | '100755' | '120000' };

export interface StandinRepoSeed {
  owner: string;
  name: string;
  id: number;
  private?: boolean;
  /** Default `main`. */
  defaultBranch?: string;
  /** An existing bare repository, used in place (so a `git http-backend` can serve it too). */
  gitdir?: string;
  /** Files of one seed commit on the default branch, when no `gitdir` is given. */
  files?: Record<string, SeedFile>;
  /** Reported `size`; default: what `git count-objects` says. */
  sizeKb?: number;
  /** Default 1. */
  installationId?: number;
  /** What GitHub lists about it: default no topics, no language, not archived, not a fork. */
  topics?: string[];
  language?: string | null;
  archived?: boolean;
  fork?: boolean;
  collaborators?: Record<string, RepoPermission>;
  issues?: { number: number; title: string; body?: string | null; labels?: string[]; user?: string; state?: 'open' | 'closed' }[];
}

export interface StandinInstallation {
  id: number;
  account: string;
  /** What the App was granted on this installation; tokens can ask for a subset. */
  permissions?: Record<string, string>;
  /** When the installation was suspended (ISO date): GitHub then refuses its tokens. */
  suspendedAt?: string;
}

export interface StandinOptions {
  appId: number | string;
  /** PEM of the App's private key; the stand-in keeps only the public half. */
  privateKeyPem: string;
  /** Default `draftsman`. */
  appSlug?: string;
  /** What `GET /app` says the App holds: default DEFAULT_INSTALLATION_PERMISSIONS and app.yml's events. */
  appPermissions?: Record<string, string>;
  appEvents?: string[];
  /** What `GET /app/hook/config` answers as the App's webhook URL (default none). */
  webhookUrl?: string;
  repos: StandinRepoSeed[];
  /** Known users (logins); collaborators and issue authors are added automatically. */
  users?: (string | { login: string; id?: number; type?: 'User' | 'Bot' })[];
  installations?: StandinInstallation[];
  clock?: { now(): number };
  /** Author and committer date of seed commits (default 2024-01-01T00:00:00Z), for stable SHAs. */
  seedDate?: string;
  /**
   * Wait this long before answering each API request (default 0): real GitHub takes 100-300 ms
   * a call, which is what decides whether calls may sit on a latency-bound path.
   */
  latencyMs?: number;
  /** Registrations the manifest flow may convert (`POST /app-manifests/{code}/conversions`). */
  manifestRegistrations?: StandinManifestRegistration[];
}

/** One request the stand-in answered. Holds a token id, never a token or a JWT. */
export interface RecordedCall {
  method: string;
  path: string;
  query: string;
  tokenId: string | null;
  tokenPermissions: Record<string, string> | null;
  status: number;
  /** The parsed JSON request body, as sent (request bodies carry no credentials). */
  body: unknown;
  summary: string;
  /** GitHub's operation id for the request (`git/create-ref`), when the description has one. */
  operationId?: string;
}

/**
 * `502`: a server error. `lost-answer`: the request is carried out (GitHub created the comment,
 * the ref, the pull request), then the answer is a 502, as when a proxy loses GitHub's answer.
 * `secondary-rate-limit`: 403 with `retry-after` (GitHub's secondary
 * limit); `secondary-rate-limit-429` the same as 429. `primary-rate-limit`: 403 with
 * `x-ratelimit-remaining: 0` and `x-ratelimit-reset`, the quota exhausted.
 */
export type FaultKind = '502' | 'lost-answer' | 'secondary-rate-limit' | 'secondary-rate-limit-429' | 'primary-rate-limit';
export interface FaultRule {
  kind: FaultKind;
  /** How many matching requests get the fault. */
  count: number;
  match: (request: { method: string; path: string }) => boolean;
  /** `retry-after` seconds for secondary rate limits; default 1. */
  retryAfter?: number;
  /** `x-ratelimit-reset` (epoch seconds) for a primary rate limit; default an hour after the stand-in's clock. */
  resetAt?: number;
}

/**
 * The App's GitHub client policy for talking to the stand-in: every wait (retry-after, backoff,
 * write spacing) lasts a thousandth of GitHub's, so the same decisions are made without sleeping.
 */
export const STANDIN_GITHUB_POLICY: Partial<GitHubRetryPolicy> = Object.freeze({ msPerSecond: 1 });

export const DEFAULT_INSTALLATION_PERMISSIONS: Record<string, string> = {
  contents: 'write',
  metadata: 'read',
  issues: 'write',
  pull_requests: 'write',
  checks: 'read',
  statuses: 'read',
  actions: 'read',
};

/** One check run of a suite added by a test; `output` and `annotations` are what CI reported. */
export interface StandinCheckRun {
  name: string;
  status?: CheckSuiteState['status'];
  conclusion?: string | null;
  detailsUrl?: string;
  output?: Partial<CheckRunOutputState>;
  annotations?: CheckAnnotationState[];
  /** The job's log (GitHub Actions runs): served by `GET /actions/jobs/{id}/logs` through a redirect. */
  log?: string;
}

export interface GitHubStandin {
  url: string;
  /**
   * Directory holding the repositories the stand-in created, as `<owner>/<name>.git`: a
   * GIT_PROJECT_ROOT for `git http-backend`, so clones use GitHub's `/<owner>/<name>.git` paths.
   * (Repositories seeded with `gitdir` stay where they are.)
   */
  gitRoot: string;
  /** Whether an installation token may fetch (`read`) or push (`write`) this repository over git. */
  authorizeGit(token: string, fullName: string, access: 'read' | 'write'): boolean;
  calls: RecordedCall[];
  state: {
    repos: Map<string, RepoState>;
    tokens(): MintedToken[];
    /** Every token value minted so far, for leak scans. */
    tokenValues(): string[];
    users: Map<string, StandinUser>;
  };
  faults: { inject(rule: FaultRule): void; clear(): void; pending(): number };
  /**
   * Every request and answer is checked against GitHub's OpenAPI description. `violations()`
   * lists all mismatches so far; `take()` returns the ones not yet taken, formatted (the shared
   * test hook fails the test that caused them).
   */
  contract: { violations(): ContractViolation[]; take(): string[] };
  repo(fullName: string): RepoState;
  setPermission(fullName: string, login: string, permission: RepoPermission): void;
  setIssue(
    fullName: string,
    number: number,
    fields: { title?: string; body?: string | null; labels?: string[]; user?: string; state?: 'open' | 'closed' },
  ): void;
  addCheckSuite(
    fullName: string,
    suite: {
      headSha: string;
      headBranch?: string | null;
      status?: CheckSuiteState['status'];
      conclusion?: string | null;
      app?: { id: number; slug: string };
      runs?: StandinCheckRun[];
    },
  ): CheckSuiteState;
  /** A submitted review on a pull request, with inline comments; returns its id (for the webhook payload). */
  addReview(
    fullName: string,
    pull: number,
    review: {
      user: string;
      body: string;
      commitId: string;
      state?: ReviewState['state'];
      comments?: { path: string; line: number; startLine?: number; body: string }[];
    },
  ): ReviewState;
  addStatus(fullName: string, sha: string, status: { context: string; state: CommitStatusState['state']; description?: string; targetUrl?: string }): void;
  /** Resolves a branch/ref/SHA with native git. */
  resolve(fullName: string, ref: string): Promise<string | undefined>;
  /** File content at a ref, or undefined. */
  readFile(fullName: string, ref: string, path: string): Promise<Buffer | undefined>;
  stop(): Promise<void>;
}

/** The contract check, whose own failure becomes a reported mismatch rather than an unanswered request. */
function checkedExchange(x: Parameters<typeof checkExchange>[0]): ExchangeCheck {
  try {
    return checkExchange(x);
  } catch (error) {
    const problem = `the contract check failed: ${error instanceof Error ? error.message : String(error)}`;
    return { violations: [{ operationId: '(check failed)', method: x.method, route: x.pathname, where: 'route', path: '$', problem }] };
  }
}

function userFrom(users: Map<string, StandinUser>, login: string): StandinUser {
  let u = users.get(login.toLowerCase());
  if (!u) {
    u = { login, id: 1000 + users.size, type: login.endsWith('[bot]') ? 'Bot' : 'User' };
    users.set(login.toLowerCase(), u);
  }
  return u;
}

function summarise(body: unknown): string {
  if (body === undefined) return '';
  if (Array.isArray(body)) return `array(${body.length})`;
  if (body && typeof body === 'object') {
    return Object.entries(body as Record<string, unknown>)
      .map(([k, v]) => {
        if (typeof v === 'string') return v.length > 60 ? `${k}=<${v.length} chars>` : `${k}=${JSON.stringify(v)}`;
        if (Array.isArray(v)) return `${k}=[${v.length}]`;
        if (v && typeof v === 'object') return `${k}={${Object.keys(v).join(',')}}`;
        return `${k}=${String(v)}`;
      })
      .join(' ');
  }
  return typeof body;
}

/**
 * Starts a stateful stand-in for the parts of the GitHub REST API the App uses, on 127.0.0.1
 * with a random port. Repositories are bare git repositories read and written with native git,
 * so SHAs are git's and refs created through the API are visible to clones.
 */
export async function startGitHubStandin(options: StandinOptions): Promise<GitHubStandin> {
  const clock = options.clock ?? { now: () => Date.now() };
  const appId = String(options.appId);
  const appSlug = options.appSlug ?? 'draftsman';
  const botUser: StandinUser = { login: `${appSlug}[bot]`, id: 9_000_000 + Number(appId || 0), type: 'Bot' };
  const registry = new TokenRegistry(appId, options.privateKeyPem, () => clock.now());
  const users = seedUsers(options.users ?? [], botUser);

  const installations = new Map<number, StandinInstallation>();
  for (const i of options.installations ?? [{ id: 1, account: options.repos[0]?.owner ?? 'owner' }]) installations.set(i.id, i);

  // Parse GitHub's description now (once per process) rather than inside the first request.
  githubDescription();
  const workdir = await mkdtemp(join(tmpdir(), 'github-standin-'));
  const repos = new Map<string, RepoState>();
  const seedTime = parseIsoDate(options.seedDate ?? '2024-01-01T00:00:00Z');
  for (const seed of options.repos) {
    const repo = await seedRepo(seed, workdir, seedTime, users);
    repos.set(repo.fullName.toLowerCase(), repo);
  }

  const manifestRegistrations = [...(options.manifestRegistrations ?? [])];
  const calls: RecordedCall[] = [];
  const violations: ContractViolation[] = [];
  let reported = 0;
  let faultRules: FaultRule[] = [];
  let ids = 100;
  const nextId = () => ++ids;

  const getRepo = (fullName: string): RepoState => {
    const r = repos.get(fullName.toLowerCase());
    if (!r) throw new Error(`no such repository in the stand-in: ${fullName}`);
    return r;
  };

  const mintRoute = (installationId: number, auth: AuthResult, body: unknown): RouteResult => {
    if (auth.kind !== 'app') {
      return { status: 401, body: { message: auth.kind === 'invalid' ? auth.message : 'A JSON web token could not be decoded' } };
    }
    const installation = installations.get(installationId);
    if (!installation) return { status: 404, body: { message: 'Not Found' } };
    if (installation.suspendedAt) return { status: 403, body: { message: 'This installation has been suspended' } };
    return mintAccessToken(
      registry,
      installation,
      [...repos.values()].filter((r) => r.installationId === installationId),
      body,
    );
  };

  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ message: `stand-in error: ${error instanceof Error ? error.message : String(error)}` }));
      }
    });
  });

  const baseUrl = { value: '' };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (options.latencyMs) await new Promise((resolve) => setTimeout(resolve, options.latencyMs));
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = (req.method ?? 'GET').toUpperCase();
    const body = parseJsonBody(raw);
    const auth = registry.authenticate(req.headers.authorization);
    const record = (status: number, responseBody: unknown, check: ExchangeCheck, tokenMinted?: MintedToken) => {
      violations.push(...check.violations);
      const call: RecordedCall = {
        operationId: check.operation?.operationId,
        method,
        path: url.pathname,
        query: url.search,
        tokenId: auth.kind === 'installation' ? auth.token.id : auth.kind === 'app' ? `app-jwt:${appId}` : null,
        tokenPermissions: auth.kind === 'installation' ? { ...auth.token.permissions } : null,
        status,
        body,
        summary: tokenMinted ? `${summarise(body)} -> ${tokenMinted.id}` : summarise(body),
      };
      calls.push(call);
      for (const problem of permissionProblems(call)) {
        violations.push({
          operationId: call.operationId ?? '',
          method,
          route: check.operation?.template ?? url.pathname,
          where: 'permission',
          path: '$',
          problem,
        });
      }
    };
    const send = (result: RouteResult) => {
      const headers: Record<string, string> = {
        'content-type': 'application/json; charset=utf-8',
        'x-github-api-version-selected': '2022-11-28',
        'x-ratelimit-limit': '5000',
        'x-ratelimit-remaining': '4999',
        'x-ratelimit-resource': 'core',
        'x-github-request-id': `STANDIN:${calls.length + 1}`,
        ...(result.headers ?? {}),
      };
      res.writeHead(result.status, headers);
      const responseBody = result.status === 204 ? undefined : result.body;
      // Checked before answering: the time it takes is the request's, never a kept-alive socket's idle time.
      const check = checkedExchange({ method, pathname: url.pathname, query: url.searchParams, requestBody: body, status: result.status, responseBody });
      res.end(responseBody === undefined ? undefined : JSON.stringify(responseBody));
      record(result.status, responseBody, check, result.tokenMinted);
    };

    // A job log's download URL, where `GET /actions/jobs/{id}/logs` redirects: signed, no token, plain text.
    const download = /^\/_job-logs\/(.+)\/(\d+)$/.exec(url.pathname);
    if (download && method === 'GET') {
      const run = repos
        .get(decodeURIComponent(download[1]).toLowerCase())
        ?.checkSuites.flatMap((cs) => cs.runs)
        .find((r) => r.id === Number(download[2]));
      const ok = run?.log !== undefined && url.searchParams.get('sig') === jobLogSignature(Number(download[2]));
      res.writeHead(ok ? 200 : 404, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(ok ? run.log : 'Not Found');
      return;
    }
    const rule = faultRules.find((r) => r.count > 0 && r.match({ method, path: url.pathname }));
    if (rule) {
      rule.count -= 1;
      if (rule.kind === 'lost-answer') await answer(method, url, body, auth);
      return send(faultAnswer(rule, Math.floor(clock.now() / 1000)));
    }
    return send(await answer(method, url, body, auth));
  }

  function conversionRoute(code: string): RouteResult {
    const registration = manifestRegistrations.find((r) => r.code === code);
    return manifestConversion(code, manifestRegistrations, {
      id: Number(appId),
      slug: appSlug,
      privateKeyPem: options.privateKeyPem,
      owner: userFrom(users, registration?.owner ?? 'owner'),
      baseUrl: baseUrl.value,
      now: clock.now(),
      permissions: DEFAULT_INSTALLATION_PERMISSIONS,
    });
  }

  /** A route outside any repository: a manifest conversion, a token mint, the App itself; undefined for anything else. */
  function appLevelRoute(method: string, url: URL, body: unknown, auth: AuthResult): RouteResult | undefined {
    const conversion = /^\/app-manifests\/([^/]+)\/conversions$/.exec(url.pathname);
    if (conversion && method === 'POST') return conversionRoute(decodeURIComponent(conversion[1]));
    const mint = /^\/app\/installations\/(\d+)\/access_tokens$/.exec(url.pathname);
    if (mint && method === 'POST') return mintRoute(Number(mint[1]), auth, body);
    if ((url.pathname === '/app' || url.pathname === '/app/hook/config') && method === 'GET') return appRoute(url.pathname, auth);
    const installed = /^\/repos\/([^/]+)\/([^/]+)\/installation$/.exec(url.pathname);
    if (installed && method === 'GET') return repositoryInstallation(`${decodeURIComponent(installed[1])}/${decodeURIComponent(installed[2])}`, auth);
    return undefined;
  }

  /**
   * `GET /repos/{owner}/{repo}/installation`, asked with the App's JWT: the App's installation on
   * the repository; 404 when the repository does not exist or the App is not installed on it.
   */
  function repositoryInstallation(fullName: string, auth: AuthResult): RouteResult {
    if (auth.kind !== 'app') return { status: 401, body: { message: 'A JSON web token could not be decoded' } };
    const repo = repos.get(fullName.toLowerCase());
    const installation = repo ? installations.get(repo.installationId) : undefined;
    if (!installation) return { status: 404, body: { message: 'Not Found' } };
    const account = userFrom(users, installation.account);
    const at = iso(clock.now());
    return {
      status: 200,
      body: {
        id: installation.id,
        app_id: Number(appId),
        app_slug: appSlug,
        target_id: account.id,
        target_type: 'Organization',
        account: { login: account.login, id: account.id, type: 'Organization' },
        repository_selection: 'selected',
        access_tokens_url: `${baseUrl.value}/app/installations/${installation.id}/access_tokens`,
        repositories_url: `${baseUrl.value}/installation/repositories`,
        html_url: `${baseUrl.value}/organizations/${installation.account}/settings/installations/${installation.id}`,
        permissions: installation.permissions ?? DEFAULT_INSTALLATION_PERMISSIONS,
        events: options.appEvents ?? [...APP_EVENTS],
        single_file_name: null,
        created_at: at,
        updated_at: at,
        suspended_by: installation.suspendedAt ? userJson(account) : null,
        suspended_at: installation.suspendedAt ?? null,
      },
    };
  }

  /** `GET /installation/repositories`: the repositories an installation token covers, a page at a time (at most 100), by id. */
  async function installationRepositories(auth: AuthResult, query: URLSearchParams): Promise<RouteResult> {
    if (auth.kind !== 'installation') return { status: 401, body: { message: 'This endpoint requires you to be authenticated.' } };
    const { start, perPage } = pageOf(query, 100);
    const covered = [...repos.values()].filter((r) => auth.token.repositoryIds.includes(r.id)).sort((a, b) => a.id - b.id);
    const page = covered.slice(start, start + perPage);
    const repositories = await Promise.all(page.map((repo) => repoJson({ repo, baseUrl: baseUrl.value })));
    return { status: 200, body: { total_count: covered.length, repositories, repository_selection: 'selected' } };
  }

  /** The App itself, asked with its JWT: its permissions and events, or its webhook configuration. */
  function appRoute(path: string, auth: AuthResult): RouteResult {
    if (auth.kind !== 'app') return { status: 401, body: { message: 'A JSON web token could not be decoded' } };
    if (path === '/app/hook/config') return { status: 200, body: { url: options.webhookUrl ?? '', content_type: 'json', insecure_ssl: '0' } };
    return {
      status: 200,
      body: {
        id: Number(appId),
        slug: appSlug,
        name: appSlug,
        permissions: options.appPermissions ?? DEFAULT_INSTALLATION_PERMISSIONS,
        events: options.appEvents ?? [...APP_EVENTS],
      },
    };
  }

  /** What the stand-in answers a request that no fault rule took: a token mint or a repository route. */
  async function answer(method: string, url: URL, body: unknown, auth: AuthResult): Promise<RouteResult> {
    if (auth.kind === 'invalid') return { status: 401, body: { message: auth.message } };

    if (url.pathname === '/graphql' && method === 'POST') return graphqlRoute(body, auth, repos.values(), clock.now());

    const appLevel = appLevelRoute(method, url, body, auth);
    if (appLevel) return appLevel;
    if (url.pathname === '/installation/repositories' && method === 'GET') return installationRepositories(auth, url.searchParams);

    const repoMatch = /^\/repos\/([^/]+)\/([^/]+)(\/.*)?$/.exec(url.pathname);
    if (!repoMatch) return { status: 404, body: { message: 'Not Found' } };
    const repo = repos.get(`${decodeURIComponent(repoMatch[1])}/${decodeURIComponent(repoMatch[2])}`.toLowerCase());
    if (!repo) return { status: 404, body: { message: 'Not Found' } };
    if (auth.kind === 'app') return { status: 403, body: { message: 'Resource not accessible by integration' } };
    if (auth.kind === 'installation' && !auth.token.repositoryIds.includes(repo.id)) {
      return { status: 404, body: { message: 'Not Found' } };
    }
    if (auth.kind === 'none' && repo.private) return { status: 404, body: { message: 'Not Found' } };

    const ctx: RouteContext = {
      method,
      rest: repoMatch[3] ?? '',
      query: url.searchParams,
      body,
      repo,
      baseUrl: baseUrl.value,
      now: () => clock.now(),
      nextId,
      botUser,
      users,
      user: (login: string) => userFrom(users, login),
      permissions: auth.kind === 'installation' ? auth.token.permissions : {},
      tokenId: auth.kind === 'installation' ? auth.token.id : undefined,
      anonymous: auth.kind === 'none',
    };
    try {
      return await handleRepoRoute(ctx);
    } catch (error) {
      if (error instanceof UnprocessableError) return { status: 422, body: { message: error.message } };
      throw error;
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl.value = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const standin: GitHubStandin = {
    url: baseUrl.value,
    gitRoot: workdir,
    authorizeGit(token, fullName, access) {
      const auth = registry.authenticate(`token ${token}`);
      const repo = repos.get(fullName.toLowerCase());
      return auth.kind === 'installation' && !!repo && auth.token.repositoryIds.includes(repo.id) && grants(auth.token.permissions, 'contents', access);
    },
    calls,
    state: { repos, tokens: () => registry.list(), tokenValues: () => registry.values(), users },
    faults: {
      inject: (rule) => {
        faultRules.push({ ...rule });
      },
      clear: () => {
        faultRules = [];
      },
      pending: () => faultRules.reduce((n, r) => n + r.count, 0),
    },
    contract: {
      violations: () => [...violations],
      take() {
        const fresh = violations.slice(reported).map(formatViolation);
        reported = violations.length;
        return fresh;
      },
    },
    repo: getRepo,
    setPermission(fullName, login, permission) {
      userFrom(users, login);
      getRepo(fullName).collaborators.set(login.toLowerCase(), permission);
    },
    setIssue(fullName, number, fields) {
      const repo = getRepo(fullName);
      const now = clock.now();
      const existing = repo.issues.get(number);
      repo.issues.set(number, {
        number,
        title: fields.title ?? existing?.title ?? '',
        body: fields.body !== undefined ? fields.body : (existing?.body ?? null),
        state: fields.state ?? existing?.state ?? 'open',
        user: fields.user ? userFrom(users, fields.user) : (existing?.user ?? userFrom(users, 'octocat')),
        labels: fields.labels ?? existing?.labels ?? [],
        createdAt: existing?.createdAt ?? now,
        updatedAt: now,
      });
      repo.nextNumber = Math.max(repo.nextNumber, number + 1);
    },
    addReview(fullName, number, review) {
      const pull = getRepo(fullName).pulls.get(number);
      if (!pull) throw new Error(`the stand-in has no pull request #${number}`);
      const user = userFrom(users, review.user);
      const created: ReviewState = {
        id: nextId(),
        body: review.body,
        user,
        commitId: review.commitId,
        state: review.state,
        comments: (review.comments ?? []).map((c) => ({ ...c, id: nextId(), user })),
        submittedAt: clock.now(),
      };
      (pull.reviews ??= []).push(created);
      return created;
    },
    addCheckSuite(fullName, suite) {
      const repo = getRepo(fullName);
      const created: CheckSuiteState = {
        id: nextId(),
        headSha: suite.headSha,
        headBranch: suite.headBranch ?? null,
        status: suite.status ?? 'completed',
        conclusion: suite.conclusion === undefined ? ((suite.status ?? 'completed') === 'completed' ? 'success' : null) : suite.conclusion,
        app: suite.app ?? { id: 15368, slug: 'github-actions' },
        runs: (suite.runs ?? []).map((r) => ({
          id: nextId(),
          name: r.name,
          status: r.status ?? 'completed',
          conclusion: r.conclusion === undefined ? ((r.status ?? 'completed') === 'completed' ? 'success' : null) : r.conclusion,
          detailsUrl: r.detailsUrl,
          output: { title: r.output?.title ?? null, summary: r.output?.summary ?? null, text: r.output?.text ?? null },
          annotations: r.annotations ?? [],
          ...(r.log !== undefined ? { log: r.log } : {}),
        })),
        createdAt: clock.now(),
      };
      repo.checkSuites.push(created);
      return created;
    },
    addStatus(fullName, sha, status) {
      getRepo(fullName).statuses.push({
        sha,
        context: status.context,
        state: status.state,
        description: status.description ?? null,
        targetUrl: status.targetUrl ?? null,
        createdAt: clock.now(),
      });
    },
    resolve: (fullName, ref) => getRepo(fullName).git.resolveCommitish(ref),
    async readFile(fullName, ref, path) {
      const git = getRepo(fullName).git;
      const sha = await git.resolveCommitish(ref);
      const entry = sha ? await git.entryAt(sha, path) : undefined;
      return entry && entry.mode !== '40000' && entry.mode !== '160000' ? git.readRaw('blob', entry.sha) : undefined;
    },
    async stop() {
      liveStandins.delete(standin);
      const usageDir = process.env[USAGE_DIR_ENV];
      const usage = calls.filter((c) => c.operationId).map((c) => JSON.stringify({ operationId: c.operationId, token: tokenLabel(c) }));
      if (usageDir && usage.length > 0) await appendFile(join(usageDir, `${process.pid}.jsonl`), `${usage.join('\n')}\n`);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(workdir, { recursive: true, force: true });
      // Requests made after the last test (in afterAll) are not seen by the per-test hook.
      const late = standin.contract.take();
      if (late.length > 0) throw contractFailure(late);
    },
  };
  liveStandins.add(standin);
  return standin;
}

/** The known users by lower-case login: the listed ones (ids from 1000 on) and the App's bot. */
function seedUsers(list: NonNullable<StandinOptions['users']>, botUser: StandinUser): Map<string, StandinUser> {
  const users = new Map<string, StandinUser>();
  for (const u of list) {
    const o = typeof u === 'string' ? { login: u } : u;
    users.set(o.login.toLowerCase(), { login: o.login, id: o.id ?? 1000 + users.size, type: o.type ?? 'User' });
  }
  users.set(botUser.login.toLowerCase(), botUser);
  return users;
}

/** One seed commit on `branch` holding `files`, written straight into the object store. */
async function seedCommit(git: GitStore, branch: string, files: Record<string, SeedFile>, seedTime: { timestamp: number; tz: string }): Promise<void> {
  git.direct = true;
  const entries = [] as { path: string; mode: string; sha: string }[];
  for (const [path, file] of Object.entries(files)) {
    const content = typeof file === 'string' || file instanceof Uint8Array ? file : file.content;
    const mode: TreeEntryMode = typeof file === 'object' && !(file instanceof Uint8Array) ? (file.mode ?? '100644') : '100644';
    entries.push({ path, mode, sha: await git.writeBlob(typeof content === 'string' ? Buffer.from(content) : content) });
  }
  const tree = await buildTree(git, undefined, entries, { trustShas: true });
  const sig: Signature = { name: 'Seed', email: 'seed@example.invalid', ...seedTime };
  const commit = await git.writeCommit({ tree, parents: [], author: sig, committer: sig, message: 'Initial commit\n' });
  git.direct = false;
  await git.updateRef(`refs/heads/${branch}`, commit);
}

/** A repository's state from its seed: its git store (seeded or used in place), collaborators and issues. */
async function seedRepo(
  seed: StandinRepoSeed,
  workdir: string,
  seedTime: { timestamp: number; tz: string },
  users: Map<string, StandinUser>,
): Promise<RepoState> {
  const defaultBranch = seed.defaultBranch ?? 'main';
  const git = seed.gitdir ? new GitStore(seed.gitdir) : await GitStore.init(join(workdir, seed.owner, `${seed.name}.git`), defaultBranch);
  if (!seed.gitdir && seed.files) await seedCommit(git, defaultBranch, seed.files, seedTime);
  const repo: RepoState = {
    id: seed.id,
    owner: seed.owner,
    name: seed.name,
    fullName: `${seed.owner}/${seed.name}`,
    private: seed.private ?? true,
    defaultBranch,
    installationId: seed.installationId ?? 1,
    sizeKb: seed.sizeKb,
    topics: seed.topics ?? [],
    language: seed.language ?? null,
    archived: seed.archived ?? false,
    fork: seed.fork ?? false,
    git,
    collaborators: new Map(Object.entries(seed.collaborators ?? {}).map(([k, v]) => [k.toLowerCase(), v])),
    issues: new Map(),
    comments: new Map(),
    pulls: new Map(),
    checkSuites: [],
    statuses: [],
    createdCommits: [],
    nextNumber: 1,
  };
  for (const login of Object.keys(seed.collaborators ?? {})) userFrom(users, login);
  for (const issue of seed.issues ?? []) {
    repo.issues.set(issue.number, {
      number: issue.number,
      title: issue.title,
      body: issue.body ?? null,
      state: issue.state ?? 'open',
      user: userFrom(users, issue.user ?? 'octocat'),
      labels: issue.labels ?? [],
      createdAt: seedTime.timestamp * 1000,
      updatedAt: seedTime.timestamp * 1000,
    });
    repo.nextNumber = Math.max(repo.nextNumber, issue.number + 1);
  }
  return repo;
}

const NOT_ACCESSIBLE: RouteResult = {
  status: 422,
  body: { message: 'There is at least one repository that does not exist or is not accessible to the parent installation.' },
};

/** The repositories a token request selects (`repository_ids`, `repositories`); all installed ones when it names none. */
function selectRepositories(installed: RepoState[], b: { repository_ids?: unknown; repositories?: unknown }): RepoState[] | RouteResult {
  if (b.repository_ids === undefined && b.repositories === undefined) return installed;
  const byId = Array.isArray(b.repository_ids) ? b.repository_ids : [];
  const byName = Array.isArray(b.repositories) ? b.repositories : [];
  const selected: RepoState[] = [];
  for (const id of byId) {
    const r = installed.find((x) => x.id === id);
    if (!r) return NOT_ACCESSIBLE;
    selected.push(r);
  }
  for (const name of byName) {
    const r = installed.find((x) => x.name.toLowerCase() === String(name).toLowerCase());
    if (!r) return NOT_ACCESSIBLE;
    if (!selected.includes(r)) selected.push(r);
  }
  return selected;
}

/** The permissions a token request asks for, each within what the installation was granted; all of them when it asks for none. */
function requestedPermissions(granted: Record<string, string>, requested: unknown): { permissions: Record<string, string> } | { refused: RouteResult } {
  if (requested === undefined) return { permissions: { ...granted } };
  if (!requested || typeof requested !== 'object') return { refused: { status: 422, body: { message: 'Invalid request.' } } };
  const permissions: Record<string, string> = {};
  for (const [k, v] of Object.entries(requested as Record<string, unknown>)) {
    if (v !== 'read' && v !== 'write') return { refused: { status: 422, body: { message: `Invalid permission level for ${k}` } } };
    if (!grants(granted, k, v)) return { refused: { status: 422, body: { message: 'The permissions requested are not granted to this installation.' } } };
    permissions[k] = v;
  }
  // GitHub grants metadata:read to every installation token.
  permissions.metadata ??= 'read';
  return { permissions };
}

/** `POST /app/installations/{id}/access_tokens` for an authenticated App: mints an installation token. */
function mintAccessToken(registry: TokenRegistry, installation: StandinInstallation, installed: RepoState[], body: unknown): RouteResult {
  const b = (body ?? {}) as { repository_ids?: unknown; repositories?: unknown; permissions?: unknown };
  const selected = selectRepositories(installed, b);
  if (!Array.isArray(selected)) return selected;
  const requested = requestedPermissions(installation.permissions ?? DEFAULT_INSTALLATION_PERMISSIONS, b.permissions);
  if ('refused' in requested) return requested.refused;
  const { permissions } = requested;
  const { value, token } = registry.mint(
    installation.id,
    permissions,
    selected.map((r) => r.id),
  );
  return {
    status: 201,
    tokenMinted: token,
    body: {
      token: value,
      expires_at: formatIsoDate(Math.floor(token.expiresAt / 1000)),
      permissions,
      repository_selection: 'selected',
      repositories: selected.map((r) => ({ id: r.id, name: r.name, full_name: r.fullName, private: r.private, owner: { login: r.owner } })),
    },
  };
}

/** A request's JSON body; undefined when it is empty or not JSON. */
function parseJsonBody(raw: string): unknown {
  if (raw.length === 0) return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

/** The answer GitHub gives for each fault, headers and documented error body included. */
function faultAnswer(rule: FaultRule, nowSeconds: number): RouteResult {
  if (rule.kind === '502' || rule.kind === 'lost-answer') return { status: 502, body: { message: 'Server Error' } };
  if (rule.kind === 'primary-rate-limit') {
    return {
      status: 403,
      headers: {
        'x-ratelimit-limit': '5000',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-used': '5000',
        'x-ratelimit-reset': String(rule.resetAt ?? nowSeconds + 3600),
      },
      body: {
        message: 'API rate limit exceeded for installation ID 1.',
        documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-the-primary-rate-limit',
      },
    };
  }
  return {
    status: rule.kind === 'secondary-rate-limit-429' ? 429 : 403,
    headers: { 'retry-after': String(rule.retryAfter ?? 1), 'x-ratelimit-remaining': '4990' },
    body: {
      message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
      documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits',
    },
  };
}
