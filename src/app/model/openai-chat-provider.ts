import { z } from 'zod';
import type { ChatMessage, ModelProvider, ModelResponse, ModelStopReason, ToolSpec } from '../../core/ports.js';
import { ModelProviderError, type ModelProviderReason } from './model-provider-error.js';
import {
  guardModelCall,
  parseJsonBody,
  postOnce,
  reasonForStatus,
  retryPolicyOf,
  SecretScrubber,
  withRetries,
  type ProviderCallOptions,
  type RetryPolicy,
} from './provider-call.js';

export interface OpenAiChatProviderOptions extends ProviderCallOptions {
  /** e.g. `https://api.openai.com/v1` or a local server; `/chat/completions` is appended. */
  baseUrl: string;
  model: string;
  /** Sent only as `Authorization: Bearer <key>`; optional for local servers. */
  apiKey?: string;
  /**
   * Completion tokens per call (`ModelProvider.maxOutputTokens`). Default 16,384 on OpenAI's own
   * API, where reasoning tokens count against it too; 4,096 elsewhere, as local servers' context
   * windows are small and some refuse a prompt plus cap longer than the window.
   */
  maxOutputTokens?: number;
  /** The request field that caps the completion. Default: by endpoint (`completionCapField`). */
  completionCapField?: CompletionCapField;
  fetch?: typeof fetch;
}

/**
 * `max_completion_tokens` is OpenAI's field (it counts reasoning tokens too, and its reasoning
 * models refuse `max_tokens`); OpenAI-compatible servers (Ollama, llama.cpp, vLLM) know
 * `max_tokens`, and some ignore the newer field, leaving the completion uncapped.
 */
export type CompletionCapField = 'max_tokens' | 'max_completion_tokens';

/** OpenAI's own API (api.openai.com, and Azure OpenAI's hosts) takes `max_completion_tokens`; any other endpoint `max_tokens`. */
export function completionCapField(baseUrl: string): CompletionCapField {
  let host = '';
  try {
    host = new URL(baseUrl).hostname.toLowerCase();
  } catch {
    // an invalid URL fails on the first call, with its own error
  }
  return host === 'api.openai.com' || host.endsWith('.openai.azure.com') ? 'max_completion_tokens' : 'max_tokens';
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
          /** Set instead of content when the model declines (structured-output refusals). */
          refusal: z.string().nullable().optional(),
        }),
        finish_reason: z.string().nullable().optional(),
      }),
    )
    .min(1),
  usage: z
    .object({
      prompt_tokens: z.number().int().nonnegative(),
      completion_tokens: z.number().int().nonnegative(),
      /** Automatic prefix caching: how many of prompt_tokens came from the cache. */
      prompt_tokens_details: z.looseObject({ cached_tokens: z.number().int().nonnegative().optional() }).nullable().optional(),
    })
    .nullable()
    .optional(),
});

/**
 * `ModelProvider` over an OpenAI-compatible `POST {baseUrl}/chat/completions` with function
 * calling. Retries rate limits and server errors with exponential backoff; everything else fails
 * at once with a coded error. The API key travels only in the Authorization header and never
 * appears in an error.
 */
export class OpenAiChatProvider implements ModelProvider {
  readonly model: string;
  readonly maxOutputTokens: number;
  readonly #url: string;
  readonly #apiKey: string | undefined;
  readonly #capField: CompletionCapField;
  readonly #policy: RetryPolicy;
  readonly #scrubber: SecretScrubber;
  readonly #fetch: typeof fetch;

  constructor(options: OpenAiChatProviderOptions) {
    this.model = options.model;
    this.#url = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
    this.#apiKey = options.apiKey;
    this.#capField = options.completionCapField ?? completionCapField(options.baseUrl);
    this.maxOutputTokens = options.maxOutputTokens ?? (completionCapField(options.baseUrl) === 'max_completion_tokens' ? 16_384 : 4_096);
    this.#policy = retryPolicyOf(options);
    this.#scrubber = new SecretScrubber([options.apiKey]);
    this.#fetch = options.fetch ?? globalThis.fetch;
  }

  complete(request: { messages: ChatMessage[]; tools: ToolSpec[]; maxTokens?: number }): Promise<ModelResponse> {
    return guardModelCall(this.model, this.#scrubber, async () => {
      const body = JSON.stringify(this.#body(request));
      const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
      if (this.#apiKey) headers.authorization = `Bearer ${this.#apiKey}`;
      const text = await withRetries(this.#policy, { provider: 'openai', model: this.model }, () =>
        postOnce({ fetch: this.#fetch, url: this.#url, headers, body, timeoutMs: this.#policy.timeoutMs, scrubber: this.#scrubber, classify: openAiReason }),
      );
      return parseCompletion(parseJsonBody(text, this.#scrubber), this.#scrubber);
    });
  }

  #body(request: { messages: ChatMessage[]; tools: ToolSpec[]; maxTokens?: number }): Record<string, unknown> {
    const body: Record<string, unknown> = { model: this.model, messages: request.messages };
    if (request.tools.length > 0) {
      body.tools = request.tools.map((tool) => ({
        type: 'function',
        function: { name: tool.name, description: tool.description, parameters: tool.parameters },
      }));
      body.tool_choice = 'auto';
    }
    if (request.maxTokens !== undefined) body[this.#capField] = request.maxTokens;
    return body;
  }
}

function parseCompletion(json: unknown, scrubber: SecretScrubber): ModelResponse {
  const parsed = ChatCompletion.safeParse(json);
  if (!parsed.success)
    throw new ModelProviderError('MODEL_RESPONSE_INVALID', `model endpoint returned an unexpected shape: ${scrubber.excerpt(z.prettifyError(parsed.error))}`);
  const choice = parsed.data.choices[0];
  const toolCalls = choice.message.tool_calls ?? [];
  const refusal = choice.message.refusal ?? undefined;
  const message: ChatMessage = { role: 'assistant', content: choice.message.content ?? refusal ?? null };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  const result: ModelResponse = { message };
  const usage = parsed.data.usage;
  if (usage) {
    result.usage = { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens };
    const cached = usage.prompt_tokens_details?.cached_tokens;
    if (cached !== undefined) result.usage.cachedInputTokens = cached;
  }
  if (choice.finish_reason) result.finishReason = choice.finish_reason;
  const stopReason = refusal ? 'refusal' : openAiStopReason(choice.finish_reason ?? undefined, toolCalls.length > 0);
  if (stopReason) result.stopReason = stopReason;
  return result;
}

export function openAiStopReason(finishReason: string | undefined, hasToolCalls: boolean): ModelStopReason | undefined {
  switch (finishReason) {
    case 'stop':
      return 'end_turn';
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case 'length':
      return 'max_tokens';
    case 'content_filter':
      return 'refusal';
    case undefined:
      // Some compatible servers omit it; tool calls say enough.
      return hasToolCalls ? 'tool_use' : undefined;
    default:
      return 'other';
  }
}

/** `context_length_exceeded` is OpenAI's code for a prompt over the window; compatible servers often only say so in the message. */
export function openAiReason(status: number, text: string): ModelProviderReason {
  if (status === 400 || status === 413) {
    if (/context_length_exceeded|maximum context length|context window|prompt is too long/i.test(text)) return 'MODEL_CONTEXT_OVERFLOW';
  }
  return reasonForStatus(status);
}
