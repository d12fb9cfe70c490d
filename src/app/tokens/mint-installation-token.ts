import { createAppAuth } from '@octokit/auth-app';
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { z } from 'zod';
import type { Clock, IssuedToken, Logger } from '../../core/ports.js';
import { createGitHubApi, type GitHubRetryPolicy } from '../github/github-api.js';
import { GitHubApiError } from '../github/github-api-error.js';
import { TokenError } from './token-error.js';

export { TOKEN_REASONS, TokenError, type TokenReason } from './token-error.js';

export interface MintInstallationTokenOptions {
  /** e.g. https://api.github.com (no trailing slash needed). */
  apiUrl: string;
  appId: string | number;
  /** PEM (PKCS#1 as GitHub issues it, or PKCS#8) or a KeyObject. */
  privateKey: string | KeyObject;
  installationId: number;
  repositoryId: number;
  permissions: Record<string, 'read' | 'write'>;
  clock: Clock;
  fetch?: typeof globalThis.fetch;
  /** Retries and waits of the GitHub client (5xx, network failures, rate limits). */
  policy?: Partial<GitHubRetryPolicy>;
  logger?: Logger;
}

/** What auth-app hands back, checked: GitHub's answer passes through it unvalidated. */
const InstallationAuthentication = z.object({
  token: z.string().min(1),
  expiresAt: z.string(),
  permissions: z.record(z.string(), z.string()),
  repositoryIds: z.array(z.number()).optional(),
});

const LEVEL: Record<string, number> = { read: 1, write: 2, admin: 3 };

/** Keeps no token: every call mints a fresh one with a full lifetime, and no copy stays in memory. */
const NO_CACHE = { get: (): string => '', set: (): void => undefined };

/** The parts of an @octokit/request error we branch on. A connection failure has no response. */
interface HttpFailure {
  status: number;
  response?: { headers: Record<string, string | number | undefined>; data: unknown };
}

function isHttpFailure(error: unknown): error is HttpFailure {
  return typeof error === 'object' && error !== null && typeof (error as { status?: unknown }).status === 'number';
}

function githubMessage(data: unknown): string {
  const message = (data as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' ? message.slice(0, 300) : '';
}

/** auth-app signs the JWT with WebCrypto, which takes PKCS#8 only; GitHub issues PKCS#1. */
export function pkcs8Pem(privateKey: string | KeyObject): string {
  try {
    const key = typeof privateKey === 'string' ? createPrivateKey(privateKey) : privateKey;
    if (key.type !== 'private' || key.asymmetricKeyType !== 'rsa') throw new Error(`not an RSA private key (${key.type} ${key.asymmetricKeyType ?? ''})`);
    return key.export({ type: 'pkcs8', format: 'pem' }).toString();
  } catch (error) {
    throw new TokenError('PRIVATE_KEY_UNAVAILABLE', 'The App private key is not a valid RSA private key', {}, { cause: error });
  }
}

/**
 * Mints an installation access token for exactly one repository with exactly `permissions`,
 * through @octokit/auth-app (App JWT and `POST /app/installations/{id}/access_tokens`). This
 * wrapper adds what auth-app leaves to its caller: the JWT follows the injected clock, the
 * request goes through the App's GitHub client (its retries and rate-limit policy), every failure is a
 * coded TokenError, and the answer is checked: a token for other repositories or wider
 * permissions is refused. Neither the key nor the token is ever logged or put in an error.
 */
export async function mintInstallationToken(options: MintInstallationTokenOptions): Promise<IssuedToken> {
  const { installationId, repositoryId, permissions, clock, logger } = options;
  const meta = { installationId, repositoryId };
  const github = createGitHubApi({
    baseUrl: options.apiUrl,
    userAgent: 'draftsman-token-vending',
    fetch: options.fetch,
    policy: options.policy,
    logger,
    now: clock.now,
  });
  const request = github.request.defaults({ headers: { 'x-github-api-version': '2022-11-28' } });
  const privateKey = pkcs8Pem(options.privateKey);
  // auth-app reads the system clock; the offset makes the JWT's iat/exp follow ours.
  const timeDifference = Math.floor(clock.now() / 1000) - Math.floor(Date.now() / 1000);
  const auth = createAppAuth({
    appId: options.appId,
    privateKey,
    request,
    cache: NO_CACHE,
    timeDifference,
    log: { warn: (message: string) => logger?.warn(message) },
  });
  let issued: z.infer<typeof InstallationAuthentication>;
  try {
    const parsed = InstallationAuthentication.safeParse(await auth({ type: 'installation', installationId, repositoryIds: [repositoryId], permissions }));
    if (!parsed.success) throw new TokenError('TOKEN_REQUEST_REJECTED', 'GitHub answered the token request with an unexpected body', meta);
    issued = parsed.data;
  } catch (error) {
    throw tokenErrorOf(error, meta);
  }

  const repositoryIds = issued.repositoryIds ?? [];
  // GitHub adds metadata:read to every installation token; anything else must have been asked for.
  const wider = Object.entries(issued.permissions).filter(([k, v]) => !(k === 'metadata' && v === 'read') && (LEVEL[v] ?? 3) > (LEVEL[permissions[k]] ?? 0));
  if (repositoryIds.length !== 1 || repositoryIds[0] !== repositoryId || wider.length > 0) {
    throw new TokenError('TOKEN_SCOPE_MISMATCH', 'The minted token is wider than requested', {
      ...meta,
      repositoryIds,
      widerPermissions: wider.map(([k]) => k),
    });
  }
  logger?.info('installation token minted', { ...meta, expiresAt: issued.expiresAt, permissions: issued.permissions });
  return { token: issued.token, expiresAt: issued.expiresAt, permissions: issued.permissions, repositoryIds };
}

/**
 * The coded TokenError for a failed mint. The client has already retried 5xx answers,
 * connection failures and short rate limits, so what arrives here is final.
 */
export function tokenErrorOf(error: unknown, meta: { installationId: number; repositoryId?: number; repository?: string }): TokenError {
  if (error instanceof TokenError) return error;
  if (error instanceof GitHubApiError) {
    const { status, retryAfterSeconds, retryAt } = error.data as { status: number; retryAfterSeconds: number; retryAt: string };
    return new TokenError('RATE_LIMITED', 'GitHub rate-limited the token request', { ...meta, status, retryAfterMs: retryAfterSeconds * 1000, retryAt });
  }
  if (!isHttpFailure(error)) return new TokenError('TOKEN_FUNCTION_FAILED', 'Minting the installation token failed', meta, { cause: error });
  if (!error.response) return new TokenError('GITHUB_UNAVAILABLE', 'GitHub could not be reached to mint a token', meta, { cause: error });
  const { status } = error;
  const data = { ...meta, status, githubMessage: githubMessage(error.response.data) };
  if (status >= 500) return new TokenError('GITHUB_UNAVAILABLE', 'GitHub failed to mint a token', data);
  if (status === 401) return new TokenError('APP_AUTH_FAILED', 'GitHub refused the App JWT', data);
  if (status === 404) return new TokenError('INSTALLATION_NOT_FOUND', 'The installation does not exist or the App cannot see it', data);
  return new TokenError('TOKEN_REQUEST_REJECTED', 'GitHub refused the token request', data);
}

/**
 * The App's own JWT (the App, not an installation), on the injected clock: for the few calls
 * made as the App itself (`draftsman doctor` reads the App's permissions and webhook). Never logged.
 */
export async function appJwt(options: { appId: string | number; privateKey: string | KeyObject; clock: Clock }): Promise<string> {
  const timeDifference = Math.floor(options.clock.now() / 1000) - Math.floor(Date.now() / 1000);
  const auth = createAppAuth({ appId: options.appId, privateKey: pkcs8Pem(options.privateKey), cache: NO_CACHE, timeDifference });
  return (await auth({ type: 'app' })).token;
}
