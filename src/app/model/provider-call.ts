import { redactSecrets } from '../../core/secrets/secret-scan.js';
import { ModelProviderError, type ModelProviderReason } from './model-provider-error.js';

/**
 * What every provider shares, whatever its wire protocol: bounded retries with exponential
 * backoff (a Retry-After hint wins when longer), one classification of what is worth retrying,
 * one scrubber that keeps keys out of errors, and one HTTP attempt with a per-attempt timeout.
 */

/** Options every provider accepts, on top of its own. */
export interface ProviderCallOptions {
  /** Per attempt. Default 120 s. */
  timeoutMs?: number;
  /** Retries after the first attempt on rate limits, server errors, timeouts and network errors. Default 3. */
  maxRetries?: number;
  /** First backoff delay; doubled per retry, capped at 30 s; a Retry-After hint wins when longer. Default 1 s. */
  backoffMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

export interface RetryPolicy {
  timeoutMs: number;
  maxRetries: number;
  backoffMs: number;
  sleep: (ms: number) => Promise<void>;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function retryPolicyOf(options: ProviderCallOptions): RetryPolicy {
  return {
    timeoutMs: options.timeoutMs ?? 120_000,
    maxRetries: options.maxRetries ?? 3,
    backoffMs: options.backoffMs ?? 1_000,
    sleep: options.sleep ?? defaultSleep,
  };
}

/** One failed attempt, classified. */
export interface AttemptFailure {
  reason: ModelProviderReason;
  message: string;
  status?: number;
  retryAfterMs?: number;
}

export type AttemptResult<T> = { ok: true; value: T } | { ok: false; failure: AttemptFailure };

/** Worth another attempt: the same request may succeed later. A context overflow or a rejected request never will. */
const RETRYABLE: ReadonlySet<ModelProviderReason> = new Set(['MODEL_RATE_LIMITED', 'MODEL_SERVER_ERROR', 'MODEL_TIMEOUT', 'MODEL_NETWORK_ERROR']);

/**
 * Runs `attempt` until it succeeds, fails with a reason that is not retryable, or the retries
 * are used up; then throws a `ModelProviderError` with status, attempt count and model.
 * A `ModelProviderError` thrown by `attempt` (an invalid response) ends the loop at once.
 */
export async function withRetries<T>(policy: RetryPolicy, call: { provider: string; model: string }, attempt: () => Promise<AttemptResult<T>>): Promise<T> {
  for (let n = 1; ; n += 1) {
    const result = await attempt();
    if (result.ok) return result.value;
    const { failure } = result;
    if (!RETRYABLE.has(failure.reason) || n > policy.maxRetries) {
      const retryAfterS = failure.retryAfterMs === undefined ? undefined : Math.ceil(failure.retryAfterMs / 1000);
      throw new ModelProviderError(failure.reason, `${failure.message} (${failureFacts(call, n, retryAfterS)})`, {
        status: failure.status,
        attempts: n,
        model: call.model,
        provider: call.provider,
        ...(retryAfterS !== undefined ? { retryAfterS } : {}),
      });
    }
    const backoff = Math.min(30_000, policy.backoffMs * 2 ** (n - 1));
    await policy.sleep(Math.max(backoff, Math.min(failure.retryAfterMs ?? 0, 60_000)));
  }
}

/** Who failed and how often, for the error's message: the provider, the model, the attempts, the wait the provider asked for. */
function failureFacts(call: { provider: string; model: string }, attempts: number, retryAfterS: number | undefined): string {
  const facts = [`provider ${call.provider}`, `model ${call.model}`, `${attempts} attempt${attempts === 1 ? '' : 's'}`];
  if (retryAfterS !== undefined) facts.push(`Retry-After ${retryAfterS} s`);
  return facts.join(', ');
}

/**
 * Keeps secrets out of error text. Some endpoints echo the key or the whole request headers;
 * redact by value (the given secrets, and anything shaped like a credential) over the whole
 * text before it is cut, so a key that straddles the cut cannot survive as a prefix.
 */
export class SecretScrubber {
  readonly #secrets: string[];

  constructor(secrets: (string | undefined)[]) {
    this.#secrets = secrets.filter((s): s is string => typeof s === 'string' && s.length >= 4);
  }

  scrub(text: string): string {
    let out = text;
    for (const secret of this.#secrets) out = out.split(secret).join('[REDACTED]');
    out = out.replace(
      /\b(authorization|proxy-authorization|x-api-key|api-key|x-amz-security-token)(["']?\s*[:=]\s*["']?)(?:bearer\s+|basic\s+)?[^\s"',;]+/gi,
      '$1$2[REDACTED]',
    );
    return redactSecrets(out).text;
  }

  /** A bounded, redacted, single-line excerpt of a response body or error message. */
  excerpt(text: string): string {
    const flat = this.scrub(text.slice(0, 64 * 1024))
      .replace(/\s+/g, ' ')
      .trim();
    return flat.length > 300 ? `${flat.slice(0, 300)}...` : flat;
  }
}

/**
 * Every error leaves a provider through here: a coded error with a scrubbed message and no
 * cause (a cause such as a JSON SyntaxError or an SDK exception quotes what it choked on).
 */
export async function guardModelCall<T>(model: string, scrubber: SecretScrubber, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ModelProviderError) throw new ModelProviderError(error.reason, scrubber.scrub(error.message), error.data);
    throw new ModelProviderError('MODEL_NETWORK_ERROR', `model call failed: ${scrubber.excerpt(error instanceof Error ? error.message : String(error))}`, {
      model,
    });
  }
}

/** The reason an HTTP status stands for when the body says nothing more specific. */
export function reasonForStatus(status: number): ModelProviderReason {
  if (status === 401 || status === 403) return 'MODEL_AUTH_FAILED';
  if (status === 404) return 'MODEL_NOT_FOUND';
  if (status === 408) return 'MODEL_TIMEOUT';
  if (status === 429) return 'MODEL_RATE_LIMITED';
  if (status >= 500) return 'MODEL_SERVER_ERROR';
  return 'MODEL_REQUEST_REJECTED';
}

/** Retry-After in seconds or as an HTTP date; only the seconds form is honoured (no clock here). */
export function retryAfterMs(header: string | null | undefined): number | undefined {
  if (!header || !/^\d+(\.\d+)?$/.test(header.trim())) return undefined;
  return Math.round(Number(header.trim()) * 1000);
}

export interface HttpAttempt {
  fetch: typeof fetch;
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  scrubber: SecretScrubber;
  /** Classifies a non-2xx answer; the default is by status alone. */
  classify?: (status: number, text: string, headers: Headers) => ModelProviderReason;
}

/** The endpoint as an error may name it: no user name, password, query or fragment. */
export function endpointForErrors(url: string): string {
  try {
    const shown = new URL(url);
    shown.username = '';
    shown.password = '';
    shown.search = '';
    shown.hash = '';
    return shown.href;
  } catch {
    return '(invalid URL)';
  }
}

/** What to check when an endpoint answers 404: the two mistakes that produce it. */
const NOT_FOUND_HINT = 'check the base URL (an OpenAI-compatible server is usually served under /v1) and the model name';

/** One POST: the body text on 2xx, else a classified failure (timeouts and network errors included). */
export async function postOnce(request: HttpAttempt): Promise<AttemptResult<string>> {
  const endpoint = endpointForErrors(request.url);
  try {
    const response = await request.fetch(request.url, {
      method: 'POST',
      headers: request.headers,
      body: request.body,
      signal: AbortSignal.timeout(request.timeoutMs),
    });
    const text = await response.text();
    if (response.ok) return { ok: true, value: text };
    const reason = request.classify ? request.classify(response.status, text, response.headers) : reasonForStatus(response.status);
    const hint = reason === 'MODEL_NOT_FOUND' ? ` (${NOT_FOUND_HINT})` : '';
    return {
      ok: false,
      failure: {
        reason,
        message: `model endpoint ${endpoint} answered HTTP ${response.status}${hint}: ${request.scrubber.excerpt(text)}`,
        status: response.status,
        retryAfterMs: retryAfterMs(response.headers.get('retry-after')),
      },
    };
  } catch (error) {
    return { ok: false, failure: transportFailure(error, request.timeoutMs, request.scrubber, endpoint) };
  }
}

/**
 * A thrown timeout or connection error, classified. fetch says only "fetch failed"; what
 * happened (ECONNREFUSED, ENOTFOUND, a certificate) is in its `cause`, and for a name with
 * several addresses in the cause's `errors`.
 */
export function transportFailure(error: unknown, timeoutMs: number, scrubber: SecretScrubber, endpoint?: string): AttemptFailure {
  const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
  const where = endpoint ? ` ${endpoint}` : '';
  return timedOut
    ? { reason: 'MODEL_TIMEOUT', message: `model call${where ? ` to${where}` : ''} timed out after ${timeoutMs} ms` }
    : { reason: 'MODEL_NETWORK_ERROR', message: `model endpoint${where} unreachable: ${scrubber.excerpt(describeTransportError(error))}` };
}

function describeTransportError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as (Error & { code?: string; errors?: unknown[] }) | undefined;
  if (!(cause instanceof Error)) return error.message;
  const inner = (cause.errors ?? []).map((e) => (e instanceof Error ? e.message : String(e))).filter((m) => m.length > 0);
  const detail = cause.message || inner.join('; ') || cause.code || cause.name;
  return `${error.message} (${detail})`;
}

/** Parses a 2xx body as JSON, or fails as MODEL_RESPONSE_INVALID with a redacted excerpt. */
export function parseJsonBody(text: string, scrubber: SecretScrubber): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ModelProviderError('MODEL_RESPONSE_INVALID', `model endpoint returned non-JSON: ${scrubber.excerpt(text)}`);
  }
}
