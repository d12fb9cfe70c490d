import { AgentError } from '../../core/errors.js';

export const GITHUB_API_REASONS = ['GITHUB_RATE_LIMITED'] as const;
export type GitHubApiReason = (typeof GITHUB_API_REASONS)[number];

/**
 * A GitHub call the App gave up on. `data` holds the HTTP status, the route template, which
 * limit (`primary` or `secondary`), `retryAfterSeconds` and `retryAt` (ISO time): when the
 * same call may succeed. `status` is kept on the error as well, so callers that branch on an
 * Octokit error's status see the same number.
 */
export class GitHubApiError extends AgentError<GitHubApiReason> {
  get status(): number | undefined {
    return typeof this.data.status === 'number' ? this.data.status : undefined;
  }
}

export interface RateLimit {
  status: number;
  limit: 'primary' | 'secondary';
  retryAfterSeconds: number;
  retryAt: string;
}

/** What the throttling plugin falls back to when a secondary limit names no wait. */
const SECONDARY_FALLBACK_SECONDS = 60;

/**
 * The rate limit an Octokit error reports, read the way @octokit/plugin-throttling reads it:
 * a secondary limit says so in its message (wait `retry-after`), a primary one has
 * `x-ratelimit-remaining: 0` (wait until `x-ratelimit-reset`, plus a second).
 */
export function rateLimitOf(error: unknown, nowMs: number): RateLimit | undefined {
  const e = error as { status?: unknown; message?: unknown; response?: { headers?: Record<string, unknown> } };
  const status = e.status;
  if (status !== 403 && status !== 429) return undefined;
  const headers = e.response?.headers ?? {};
  if (typeof e.message === 'string' && /\bsecondary rate\b/i.test(e.message)) {
    const retryAfterSeconds = Number(headers['retry-after']) || SECONDARY_FALLBACK_SECONDS;
    return { status, limit: 'secondary', retryAfterSeconds, retryAt: new Date(nowMs + retryAfterSeconds * 1000).toISOString() };
  }
  if (headers['x-ratelimit-remaining'] === '0') {
    const resetSeconds = Number(headers['x-ratelimit-reset']);
    if (!Number.isFinite(resetSeconds)) return undefined;
    const retryAtMs = (resetSeconds + 1) * 1000;
    return { status, limit: 'primary', retryAfterSeconds: Math.max(0, Math.ceil((retryAtMs - nowMs) / 1000)), retryAt: new Date(retryAtMs).toISOString() };
  }
  return undefined;
}
