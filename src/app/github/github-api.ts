import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { Octokit } from '@octokit/rest';
import Bottleneck from 'bottleneck/light.js';
import type { Logger } from '../../core/ports.js';
import { GitHubApiError, rateLimitOf } from './github-api-error.js';

/** How the App waits on GitHub. Small defaults: a Lambda must not spend its time waiting. */
export interface GitHubRetryPolicy {
  /** Retries of a 5xx answer or a network failure (the retry plugin waits 1, 4, 9 … units). */
  retries: number;
  /** Retries of one request after a rate limit, primary or secondary. */
  rateLimitRetries: number;
  /** The longest rate-limit wait worth sitting out, in seconds; a longer one fails at once. */
  maxRateLimitWaitSeconds: number;
  /** Per attempt; an attempt that runs out counts as a network failure. */
  requestTimeoutMs: number;
  /**
   * How long one second of a wait lasts, in milliseconds. 1000 except in tests, which shrink
   * every wait (retry-after, backoff, write spacing) without changing what is decided.
   */
  msPerSecond: number;
}

export const DEFAULT_GITHUB_RETRY_POLICY: Readonly<GitHubRetryPolicy> = Object.freeze({
  retries: 3,
  rateLimitRetries: 2,
  maxRateLimitWaitSeconds: 10,
  requestTimeoutMs: 10_000,
  msPerSecond: 1000,
});

export interface GitHubApiOptions {
  /** The installation token; without one the client is unauthenticated (auth-app signs its own requests with it). */
  token?: string;
  baseUrl: string;
  userAgent?: string;
  /** Each throttling event is logged with its route (the template, never an identifier or token). */
  logger?: Logger;
  policy?: Partial<GitHubRetryPolicy>;
  /** Clock for the `retryAt` of a rate-limit error after a `retry-after`. */
  now?: () => number;
  fetch?: typeof globalThis.fetch;
}

const DraftsmanOctokit = Octokit.plugin(retry, throttling);
export type GitHubApi = InstanceType<typeof DraftsmanOctokit>;

const POLICIES = new WeakMap<object, Readonly<GitHubRetryPolicy>>();

/** The policy a client was built with (the default for a client built elsewhere, such as a test's stub). */
export function retryPolicyOf(api: object): Readonly<GitHubRetryPolicy> {
  return POLICIES.get(api) ?? DEFAULT_GITHUB_RETRY_POLICY;
}

/** Every 4xx: only rate limits are worth waiting for, and the throttling plugin owns those. */
const NEVER_RETRIED = Array.from({ length: 100 }, (_, i) => 400 + i);

/** GitHub asks integrators to space writes by at least a second to avoid secondary rate limits. */
const WRITE_SPACING_SECONDS = 1;
const NOTIFYING_WRITE_SPACING_SECONDS = 3;

/**
 * The one place an Octokit for the App is built: one installation token, a user agent, a
 * timeout per attempt, @octokit/plugin-retry for 5xx and network failures and
 * @octokit/plugin-throttling for primary and secondary rate limits. A rate limit whose wait is
 * longer than the policy allows (or that comes back after the allowed retries) fails with a
 * GitHubApiError `GITHUB_RATE_LIMITED` that says when to try again. Request errors from Octokit
 * already redact the `authorization` header.
 */
export function createGitHubApi(options: GitHubApiOptions): GitHubApi {
  const policy: GitHubRetryPolicy = { ...DEFAULT_GITHUB_RETRY_POLICY, ...options.policy };
  const now = options.now ?? Date.now;
  const onLimit =
    (limit: 'primary' | 'secondary') =>
    (retryAfter: number, request: { method: string; url: string }, _octokit: unknown, retryCount: number): boolean => {
      const retrying = retryCount < policy.rateLimitRetries && retryAfter <= policy.maxRateLimitWaitSeconds;
      options.logger?.warn('GitHub rate limit', { limit, route: `${request.method} ${request.url}`, retryAfterSeconds: retryAfter, retryCount, retrying });
      return retrying;
    };
  const quiet = () => undefined;
  const toDebug = (detail: string) => options.logger?.debug('GitHub request detail', { detail });
  const spacing = (seconds: number) => new Bottleneck.Group({ maxConcurrent: 1, minTime: seconds * policy.msPerSecond });
  const octokit = new DraftsmanOctokit({
    ...(options.token === undefined ? {} : { auth: options.token }),
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    userAgent: options.userAgent ?? 'draftsman',
    request: { fetch: fetchWithTimeout(options.fetch ?? globalThis.fetch, policy.requestTimeoutMs) },
    // Octokit logs every failed attempt; those lines are detail (the caller logs what is thrown).
    log: { debug: quiet, info: quiet, warn: toDebug, error: toDebug },
    retry: { retries: policy.retries, doNotRetry: NEVER_RETRIED, retryAfterBaseValue: policy.msPerSecond },
    throttle: {
      onRateLimit: onLimit('primary'),
      onSecondaryRateLimit: onLimit('secondary'),
      retryAfterBaseValue: policy.msPerSecond,
      // Per client, so the spacing follows msPerSecond; the plugin's shared defaults would not.
      write: spacing(WRITE_SPACING_SECONDS),
      notifications: spacing(NOTIFYING_WRITE_SPACING_SECONDS),
    },
  });
  // Registered last, so it sees what is left once both plugins have given up.
  octokit.hook.wrap('request', async (request, endpoint) => {
    try {
      return await request(endpoint);
    } catch (error) {
      const limit = rateLimitOf(error, now());
      if (!limit) throw error;
      const route = `${endpoint.method} ${(endpoint as { url: string }).url}`;
      throw new GitHubApiError('GITHUB_RATE_LIMITED', `GitHub rate-limited ${route}; retry after ${limit.retryAt}`, { ...limit, route }, { cause: error });
    }
  });
  POLICIES.set(octokit, Object.freeze(policy));
  return octokit;
}

/** A fresh deadline per attempt, so a retry gets its own time. */
function fetchWithTimeout(fetch: typeof globalThis.fetch, timeoutMs: number): typeof globalThis.fetch {
  return (input, init) => {
    const deadline = AbortSignal.timeout(timeoutMs);
    return fetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline });
  };
}
