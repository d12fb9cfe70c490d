import { z } from 'zod';
import type { ChatMessage, ModelProvider, ModelResponse, ToolSpec } from '../../core/ports.js';
import { redactSecrets } from '../../core/git/secret-scan.js';
import { ModelProviderError, type ModelProviderReason } from './model-provider-error.js';

export interface OpenAiChatProviderOptions {
  /** e.g. `https://api.openai.com/v1` or a local server; `/chat/completions` is appended. */
  baseUrl: string;
  model: string;
  /** Sent only as `Authorization: Bearer <key>`; optional for local servers. */
  apiKey?: string;
  /** Per attempt. Default 120 s. */
  timeoutMs?: number;
  /** Retries after the first attempt on 429, 5xx, timeouts and network errors. Default 3. */
  maxRetries?: number;
  /** First backoff delay; doubled per retry, capped at 30 s; a Retry-After header wins when longer. Default 1 s. */
  backoffMs?: number;
  sleep?: (ms: number) => Promise<void>;
  fetch?: typeof fetch;
}

const ToolCall = z.object({
  id: z.string(),
  type: z.literal('function').default('function'),
  function: z.object({ name: z.string(), arguments: z.string().default('') }),
});

const ChatCompletion = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({
          role: z.literal('assistant').default('assistant'),
          content: z.string().nullable().optional(),
          tool_calls: z.array(ToolCall).nullable().optional(),
        }),
        finish_reason: z.string().nullable().optional(),
      }),
    )
    .min(1),
  usage: z
    .object({ prompt_tokens: z.number().int().nonnegative(), completion_tokens: z.number().int().nonnegative() })
    .nullable()
    .optional(),
});

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * `ModelProvider` over an OpenAI-compatible `POST {baseUrl}/chat/completions` with function
 * calling. Retries rate limits and server errors with exponential backoff; everything else fails
 * at once with a coded error. The API key travels only in the Authorization header and never
 * appears in an error.
 */
export class OpenAiChatProvider implements ModelProvider {
  readonly model: string;
  readonly #url: string;
  readonly #apiKey: string | undefined;
  readonly #timeoutMs: number;
  readonly #maxRetries: number;
  readonly #backoffMs: number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #fetch: typeof fetch;

  constructor(options: OpenAiChatProviderOptions) {
    this.model = options.model;
    this.#url = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
    this.#apiKey = options.apiKey;
    this.#timeoutMs = options.timeoutMs ?? 120_000;
    this.#maxRetries = options.maxRetries ?? 3;
    this.#backoffMs = options.backoffMs ?? 1_000;
    this.#sleep = options.sleep ?? defaultSleep;
    this.#fetch = options.fetch ?? globalThis.fetch;
  }

  async complete(request: { messages: ChatMessage[]; tools: ToolSpec[]; maxTokens?: number }): Promise<ModelResponse> {
    try {
      return await this.#complete(request);
    } catch (error) {
      // Every error leaves through here: a coded error with a scrubbed message and no cause
      // (a cause such as a JSON SyntaxError quotes the body it choked on).
      if (error instanceof ModelProviderError) throw new ModelProviderError(error.reason, this.#scrub(error.message), error.data);
      throw new ModelProviderError('MODEL_NETWORK_ERROR', `model call failed: ${this.#excerpt(error instanceof Error ? error.message : String(error))}`, { model: this.model });
    }
  }

  async #complete(request: { messages: ChatMessage[]; tools: ToolSpec[]; maxTokens?: number }): Promise<ModelResponse> {
    const body = JSON.stringify(this.#body(request));
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.#apiKey) headers.authorization = `Bearer ${this.#apiKey}`;

    for (let attempt = 1; ; attempt += 1) {
      let failure: { reason: ModelProviderReason; message: string; status?: number; retryAfterMs?: number };
      try {
        const response = await this.#fetch(this.#url, { method: 'POST', headers, body, signal: AbortSignal.timeout(this.#timeoutMs) });
        const text = await response.text();
        if (response.ok) return parseCompletion(text, (raw) => this.#excerpt(raw));
        failure = {
          reason: reasonForStatus(response.status),
          message: `model endpoint answered HTTP ${response.status}: ${this.#excerpt(text)}`,
          status: response.status,
          retryAfterMs: retryAfterMs(response.headers.get('retry-after')),
        };
      } catch (error) {
        if (error instanceof ModelProviderError) throw error;
        const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
        failure = timedOut
          ? { reason: 'MODEL_TIMEOUT', message: `model call timed out after ${this.#timeoutMs} ms` }
          : { reason: 'MODEL_NETWORK_ERROR', message: `model endpoint unreachable: ${this.#excerpt(error instanceof Error ? error.message : String(error))}` };
      }
      const retryable = failure.reason === 'MODEL_RATE_LIMITED' || failure.reason === 'MODEL_SERVER_ERROR' || failure.reason === 'MODEL_TIMEOUT' || failure.reason === 'MODEL_NETWORK_ERROR';
      if (!retryable || attempt > this.#maxRetries) {
        throw new ModelProviderError(failure.reason, failure.message, { status: failure.status, attempts: attempt, model: this.model });
      }
      const backoff = Math.min(30_000, this.#backoffMs * 2 ** (attempt - 1));
      await this.#sleep(Math.max(backoff, Math.min(failure.retryAfterMs ?? 0, 60_000)));
    }
  }

  /**
   * Some endpoints echo the key or the whole request headers; redact by value (the key, and
   * anything shaped like a credential) over the whole text before it is cut, so a key that
   * straddles the cut cannot survive as a prefix.
   */
  #scrub(text: string): string {
    const byValue = this.#apiKey ? text.split(this.#apiKey).join('[REDACTED]') : text;
    return redactSecrets(byValue.replace(/\b(authorization|proxy-authorization|x-api-key|api-key)(["']?\s*[:=]\s*["']?)(?:bearer\s+|basic\s+)?[^\s"',;]+/gi, '$1$2[REDACTED]')).text;
  }

  /** A bounded, redacted excerpt of a response body or error message. */
  #excerpt(text: string): string {
    return excerpt(this.#scrub(text.slice(0, 64 * 1024)));
  }

  #body(request: { messages: ChatMessage[]; tools: ToolSpec[]; maxTokens?: number }): Record<string, unknown> {
    const body: Record<string, unknown> = { model: this.model, messages: request.messages };
    if (request.tools.length > 0) {
      body.tools = request.tools.map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } }));
      body.tool_choice = 'auto';
    }
    if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens;
    return body;
  }
}

function parseCompletion(text: string, redactedExcerpt: (text: string) => string): ModelResponse {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ModelProviderError('MODEL_RESPONSE_INVALID', `model endpoint returned non-JSON: ${redactedExcerpt(text)}`);
  }
  const parsed = ChatCompletion.safeParse(json);
  if (!parsed.success) throw new ModelProviderError('MODEL_RESPONSE_INVALID', `model endpoint returned an unexpected shape: ${redactedExcerpt(z.prettifyError(parsed.error))}`);
  const choice = parsed.data.choices[0];
  const toolCalls = choice.message.tool_calls ?? [];
  const message: ChatMessage = { role: 'assistant', content: choice.message.content ?? null };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  const result: ModelResponse = { message };
  if (parsed.data.usage) result.usage = { promptTokens: parsed.data.usage.prompt_tokens, completionTokens: parsed.data.usage.completion_tokens };
  if (choice.finish_reason) result.finishReason = choice.finish_reason;
  return result;
}

function reasonForStatus(status: number): ModelProviderReason {
  if (status === 401 || status === 403) return 'MODEL_AUTH_FAILED';
  if (status === 429) return 'MODEL_RATE_LIMITED';
  if (status >= 500) return 'MODEL_SERVER_ERROR';
  return 'MODEL_REQUEST_REJECTED';
}

/** Retry-After in seconds or as an HTTP date; only the seconds form is honoured (no clock here). */
function retryAfterMs(header: string | null): number | undefined {
  if (!header || !/^\d+(\.\d+)?$/.test(header.trim())) return undefined;
  return Math.round(Number(header.trim()) * 1000);
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 300)}...` : flat;
}
