import { createAppAuth } from '@octokit/auth-app';
import { request as octokitRequest } from '@octokit/request';
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { z } from 'zod';
import type { Clock, IssuedToken, Logger } from '../../core/ports.js';
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
  /** Waits between retries; injected so tests record the waits instead of sleeping. */
  sleep?: (ms: number) => Promise<void>;
  /** Attempts in total, including the first; default 4. */
  maxAttempts?: number;
  /** A wait longer than this (ms) is not slept: the call fails with RATE_LIMITED. Default 60 s. */
  maxWaitMs?: number;
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

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

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
function pkcs8Pem(privateKey: string | KeyObject): string {
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
 * wrapper adds what auth-app leaves to its caller: the JWT follows the injected clock, 5xx
 * answers and secondary rate limits are retried honouring `retry-after`, every failure is a
 * coded TokenError, and the answer is checked: a token for other repositories or wider
 * permissions is refused. Neither the key nor the token is ever logged or put in an error.
 */
export async function mintInstallationToken(options: MintInstallationTokenOptions): Promise<IssuedToken> {
  const { installationId, repositoryId, permissions, clock, logger } = options;
  const sleep = options.sleep ?? defaultSleep;
  const maxAttempts = options.maxAttempts ?? 4;
  const maxWaitMs = options.maxWaitMs ?? 60_000;
  const meta = { installationId, repositoryId };
  const request = octokitRequest.defaults({
    baseUrl: options.apiUrl.replace(/\/+$/, ''),
    headers: { 'user-agent': 'draftsman-token-vending', 'x-github-api-version': '2022-11-28' },
    ...(options.fetch ? { request: { fetch: options.fetch } } : {}),
  });
  const privateKey = pkcs8Pem(options.privateKey);

  for (let attempt = 1; ; attempt++) {
    // auth-app reads the system clock; the offset makes each JWT's iat/exp follow ours.
    const timeDifference = Math.floor(clock.now() / 1000) - Math.floor(Date.now() / 1000);
    const auth = createAppAuth({ appId: options.appId, privateKey, request, cache: NO_CACHE, timeDifference, log: { warn: (message: string) => logger?.warn(message) } });
    let issued: z.infer<typeof InstallationAuthentication>;
    try {
      const parsed = InstallationAuthentication.safeParse(await auth({ type: 'installation', installationId, repositoryIds: [repositoryId], permissions }));
      if (!parsed.success) throw new TokenError('TOKEN_REQUEST_REJECTED', 'GitHub answered the token request with an unexpected body', meta);
      issued = parsed.data;
    } catch (error) {
      if (error instanceof TokenError) throw error;
      if (!isHttpFailure(error)) throw new TokenError('TOKEN_FUNCTION_FAILED', 'Minting the installation token failed', meta, { cause: error });
      if (!error.response) {
        if (attempt >= maxAttempts) {
          throw new TokenError('GITHUB_UNAVAILABLE', 'GitHub could not be reached to mint a token', { ...meta, attempts: attempt }, { cause: error });
        }
        const waitMs = 1000 * 2 ** (attempt - 1);
        logger?.warn('token request failed to connect; retrying', { ...meta, attempt, waitMs });
        await sleep(waitMs);
        continue;
      }
      const { status } = error;
      const message = githubMessage(error.response.data);
      const data = { ...meta, status, githubMessage: message, attempts: attempt };
      const retryAfterHeader = error.response.headers['retry-after'];
      const retryAfter = Number(retryAfterHeader);
      if ((status === 403 || status === 429) && (retryAfterHeader !== undefined || /secondary rate limit/i.test(message))) {
        const waitMs = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : 60_000;
        if (attempt >= maxAttempts || waitMs > maxWaitMs) throw new TokenError('RATE_LIMITED', 'GitHub rate-limited the token request', { ...data, retryAfterMs: waitMs });
        logger?.warn('token request rate-limited; retrying', { ...meta, attempt, waitMs });
        await sleep(waitMs);
        continue;
      }
      if (status >= 500) {
        const waitMs = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : 1000 * 2 ** (attempt - 1);
        if (attempt >= maxAttempts || waitMs > maxWaitMs) throw new TokenError('GITHUB_UNAVAILABLE', 'GitHub failed to mint a token', data);
        logger?.warn('token request failed on the server; retrying', { ...meta, attempt, status, waitMs });
        await sleep(waitMs);
        continue;
      }
      if (status === 401) throw new TokenError('APP_AUTH_FAILED', 'GitHub refused the App JWT', data);
      if (status === 404) throw new TokenError('INSTALLATION_NOT_FOUND', 'The installation does not exist or the App cannot see it', data);
      throw new TokenError('TOKEN_REQUEST_REJECTED', 'GitHub refused the token request', data);
    }

    const repositoryIds = issued.repositoryIds ?? [];
    // GitHub adds metadata:read to every installation token; anything else must have been asked for.
    const wider = Object.entries(issued.permissions).filter(([k, v]) => !(k === 'metadata' && v === 'read') && (LEVEL[v] ?? 3) > (LEVEL[permissions[k]] ?? 0));
    if (repositoryIds.length !== 1 || repositoryIds[0] !== repositoryId || wider.length > 0) {
      throw new TokenError('TOKEN_SCOPE_MISMATCH', 'The minted token is wider than requested', { ...meta, repositoryIds, widerPermissions: wider.map(([k]) => k) });
    }
    logger?.info('installation token minted', { ...meta, attempt, expiresAt: issued.expiresAt, permissions: issued.permissions });
    return { token: issued.token, expiresAt: issued.expiresAt, permissions: issued.permissions, repositoryIds };
  }
}
