import type { KeyObject } from 'node:crypto';
import { z } from 'zod';
import { AgentError } from '../../core/errors.js';
import type { Clock, IssuedToken, Logger } from '../../core/ports.js';
import { createAppJwt } from './app-jwt.js';

export const TOKEN_REASONS = [
  'INVALID_TOKEN_REQUEST',
  'ROLE_NOT_ALLOWED',
  'PRIVATE_KEY_UNAVAILABLE',
  'APP_AUTH_FAILED',
  'INSTALLATION_NOT_FOUND',
  'TOKEN_REQUEST_REJECTED',
  'TOKEN_SCOPE_MISMATCH',
  'RATE_LIMITED',
  'GITHUB_UNAVAILABLE',
  'TOKEN_FUNCTION_FAILED',
] as const;
export type TokenReason = (typeof TOKEN_REASONS)[number];

/** Token vending failed. `data` holds statuses and GitHub's message, never a key or a token. */
export class TokenError extends AgentError<TokenReason> {}

export interface MintInstallationTokenOptions {
  /** e.g. https://api.github.com (no trailing slash needed). */
  apiUrl: string;
  appId: string | number;
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

const AccessTokenResponse = z.object({
  token: z.string().min(1),
  expires_at: z.string(),
  permissions: z.record(z.string(), z.string()),
  repository_selection: z.string().optional(),
  repositories: z.array(z.object({ id: z.number() })).optional(),
});

const LEVEL: Record<string, number> = { read: 1, write: 2, admin: 3 };

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function isSecondaryRateLimit(status: number, headers: Headers, message: string): boolean {
  if (status !== 403 && status !== 429) return false;
  return headers.has('retry-after') || /secondary rate limit/i.test(message);
}

async function githubMessage(response: Response): Promise<string> {
  try {
    const body = (await response.json()) as { message?: unknown };
    return typeof body.message === 'string' ? body.message.slice(0, 300) : '';
  } catch {
    return '';
  }
}

/**
 * Mints an installation access token for exactly one repository with exactly `permissions`.
 * A fresh App JWT is signed for every attempt. 5xx answers and secondary rate limits are
 * retried, honouring `retry-after`; anything else fails at once with a coded TokenError.
 * The answer is checked: a token for other repositories or wider permissions is refused.
 * Neither the key nor the token is ever logged or put in an error.
 */
export async function mintInstallationToken(options: MintInstallationTokenOptions): Promise<IssuedToken> {
  const { apiUrl, installationId, repositoryId, permissions, clock, logger } = options;
  const doFetch = options.fetch ?? globalThis.fetch;
  const sleep = options.sleep ?? defaultSleep;
  const maxAttempts = options.maxAttempts ?? 4;
  const maxWaitMs = options.maxWaitMs ?? 60_000;
  const url = `${apiUrl.replace(/\/+$/, '')}/app/installations/${installationId}/access_tokens`;
  const meta = { installationId, repositoryId };

  for (let attempt = 1; ; attempt++) {
    const jwt = createAppJwt({ appId: options.appId, privateKey: options.privateKey, clock });
    let response: Response;
    try {
      response = await doFetch(url, {
        method: 'POST',
        headers: {
          accept: 'application/vnd.github+json',
          authorization: `Bearer ${jwt}`,
          'content-type': 'application/json',
          'user-agent': 'draftsman-token-vending',
          'x-github-api-version': '2022-11-28',
        },
        body: JSON.stringify({ repository_ids: [repositoryId], permissions }),
      });
    } catch (error) {
      if (attempt >= maxAttempts) {
        throw new TokenError('GITHUB_UNAVAILABLE', 'GitHub could not be reached to mint a token', { ...meta, attempts: attempt }, { cause: error });
      }
      const waitMs = 1000 * 2 ** (attempt - 1);
      logger?.warn('token request failed to connect; retrying', { ...meta, attempt, waitMs });
      await sleep(waitMs);
      continue;
    }

    if (response.status === 201 || response.status === 200) {
      const parsed = AccessTokenResponse.safeParse(await response.json());
      if (!parsed.success) throw new TokenError('TOKEN_REQUEST_REJECTED', 'GitHub answered the token request with an unexpected body', { ...meta, status: response.status });
      const body = parsed.data;
      const repositoryIds = (body.repositories ?? []).map((r) => r.id);
      // GitHub adds metadata:read to every installation token; anything else must have been asked for.
      const wider = Object.entries(body.permissions).filter(
        ([k, v]) => !(k === 'metadata' && v === 'read') && (LEVEL[v] ?? 3) > (LEVEL[permissions[k]] ?? 0),
      );
      if (repositoryIds.length !== 1 || repositoryIds[0] !== repositoryId || wider.length > 0) {
        throw new TokenError('TOKEN_SCOPE_MISMATCH', 'The minted token is wider than requested', {
          ...meta,
          repositoryIds,
          widerPermissions: wider.map(([k]) => k),
        });
      }
      logger?.info('installation token minted', { ...meta, attempt, expiresAt: body.expires_at, permissions: body.permissions });
      return { token: body.token, expiresAt: body.expires_at, permissions: body.permissions, repositoryIds };
    }

    const message = await githubMessage(response);
    const data = { ...meta, status: response.status, githubMessage: message, attempts: attempt };
    const retryAfter = Number(response.headers.get('retry-after'));
    if (isSecondaryRateLimit(response.status, response.headers, message)) {
      const waitMs = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : 60_000;
      if (attempt >= maxAttempts || waitMs > maxWaitMs) throw new TokenError('RATE_LIMITED', 'GitHub rate-limited the token request', { ...data, retryAfterMs: waitMs });
      logger?.warn('token request rate-limited; retrying', { ...meta, attempt, waitMs });
      await sleep(waitMs);
      continue;
    }
    if (response.status >= 500) {
      const waitMs = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : 1000 * 2 ** (attempt - 1);
      if (attempt >= maxAttempts || waitMs > maxWaitMs) throw new TokenError('GITHUB_UNAVAILABLE', 'GitHub failed to mint a token', data);
      logger?.warn('token request failed on the server; retrying', { ...meta, attempt, status: response.status, waitMs });
      await sleep(waitMs);
      continue;
    }
    if (response.status === 401) throw new TokenError('APP_AUTH_FAILED', 'GitHub refused the App JWT', data);
    if (response.status === 404) throw new TokenError('INSTALLATION_NOT_FOUND', 'The installation does not exist or the App cannot see it', data);
    throw new TokenError('TOKEN_REQUEST_REJECTED', 'GitHub refused the token request', data);
  }
}
