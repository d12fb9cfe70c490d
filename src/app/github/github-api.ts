import { Octokit } from '@octokit/rest';

export interface GitHubApiOptions {
  token: string;
  baseUrl: string;
  /** Waits between retries; injectable so tests do not sleep. */
  sleep?: (ms: number) => Promise<void>;
  maxRetries?: number;
  userAgent?: string;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * An Octokit for one installation token, with retries on 5xx and on rate limits (honouring
 * `retry-after`). Request errors from Octokit already redact the `authorization` header.
 */
export function createGitHubApi(options: GitHubApiOptions): Octokit {
  const octokit = new Octokit({
    auth: options.token,
    baseUrl: options.baseUrl,
    userAgent: options.userAgent ?? 'draftsman',
    request: { retries: 0 },
  });
  const sleep = options.sleep ?? defaultSleep;
  const maxRetries = options.maxRetries ?? 4;
  octokit.hook.wrap('request', async (request, endpoint) => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await request(endpoint);
      } catch (error) {
        const wait = retryDelay(error, attempt);
        if (wait === undefined || attempt >= maxRetries) throw error;
        await sleep(wait);
      }
    }
  });
  return octokit;
}

/** How long to wait before retrying, or undefined when the error is not worth a retry. */
export function retryDelay(error: unknown, attempt: number): number | undefined {
  const status = (error as { status?: number }).status;
  const headers = ((error as { response?: { headers?: Record<string, string | undefined> } }).response?.headers ?? {}) as Record<string, string | undefined>;
  const retryAfter = Number(headers['retry-after']);
  const backoff = Math.min(30_000, 500 * 2 ** attempt);
  if (status === 403 || status === 429) {
    // Secondary rate limits carry retry-after; primary ones exhaust x-ratelimit-remaining.
    if (Number.isFinite(retryAfter) && retryAfter >= 0) return retryAfter * 1000;
    if (headers['x-ratelimit-remaining'] === '0') {
      const reset = Number(headers['x-ratelimit-reset']);
      return Number.isFinite(reset) ? Math.min(60_000, Math.max(1000, reset * 1000 - Date.now())) : backoff;
    }
    return undefined;
  }
  if (status !== undefined && status >= 500 && status <= 599) {
    return Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter * 1000 : backoff;
  }
  return undefined;
}

export type GitHubApi = Octokit;
