import { z } from 'zod';
import type { ChatMessage, ModelProvider, ModelResponse, ToolSpec } from '../../core/ports.js';
import { blockStopReason, toBlockConversation, type TurnBlock } from './content-block-turns.js';
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

export const ANTHROPIC_VERSION = '2023-06-01';

export interface AnthropicMessagesProviderOptions extends ProviderCallOptions {
  /** Default `https://api.anthropic.com`; `/v1/messages` is appended. */
  baseUrl?: string;
  model: string;
  /** Sent only as `x-api-key`. */
  apiKey: string;
  /** Completion tokens per call (`ModelProvider.maxOutputTokens`), also sent when a request sets none (the API requires `max_tokens`). Default 16,384. */
  maxOutputTokens?: number;
  fetch?: typeof fetch;
}

const TextBlock = z.object({ type: z.literal('text'), text: z.string() });
const ToolUseBlock = z.object({ type: z.literal('tool_use'), id: z.string().min(1), name: z.string().min(1), input: z.unknown() });
const ResponseBlock = z.union([
  TextBlock,
  ToolUseBlock,
  // thinking, redacted_thinking, server tool blocks ...: not ours to interpret.
  z.looseObject({ type: z.string().refine((t) => t !== 'text' && t !== 'tool_use') }),
]);

const MessagesResponse = z.object({
  type: z.literal('message'),
  role: z.literal('assistant'),
  content: z.array(ResponseBlock),
  stop_reason: z.string().nullable(),
  usage: z
    .object({
      /** Only the tokens after the last cache breakpoint; reads and writes of the cache are counted apart. */
      input_tokens: z.number().int().nonnegative(),
      output_tokens: z.number().int().nonnegative(),
      cache_creation_input_tokens: z.number().int().nonnegative().nullable().optional(),
      cache_read_input_tokens: z.number().int().nonnegative().nullable().optional(),
    })
    .optional(),
});

/** Marks the end of a cacheable prefix (the default five-minute cache). */
const CACHE_CONTROL = { type: 'ephemeral' } as const;

const ErrorBody = z.object({ error: z.object({ type: z.string(), message: z.string().default('') }) });

/**
 * `ModelProvider` over the Anthropic Messages API (`POST {baseUrl}/v1/messages`). Rate limits
 * (429) and overload (529) are retried by the shared loop; a prompt longer than the context
 * window is MODEL_CONTEXT_OVERFLOW and is not. The key travels only in `x-api-key`.
 */
export class AnthropicMessagesProvider implements ModelProvider {
  readonly model: string;
  readonly maxOutputTokens: number;
  readonly #url: string;
  readonly #apiKey: string;
  readonly #policy: RetryPolicy;
  readonly #scrubber: SecretScrubber;
  readonly #fetch: typeof fetch;

  constructor(options: AnthropicMessagesProviderOptions) {
    this.model = options.model;
    this.#url = `${(options.baseUrl ?? 'https://api.anthropic.com').replace(/\/+$/, '')}/v1/messages`;
    this.#apiKey = options.apiKey;
    this.maxOutputTokens = options.maxOutputTokens ?? 16_384;
    this.#policy = retryPolicyOf(options);
    this.#scrubber = new SecretScrubber([options.apiKey]);
    this.#fetch = options.fetch ?? globalThis.fetch;
  }

  complete(request: { messages: ChatMessage[]; tools: ToolSpec[]; maxTokens?: number }): Promise<ModelResponse> {
    return guardModelCall(this.model, this.#scrubber, async () => {
      const body = JSON.stringify(this.#body(request));
      const headers = { 'content-type': 'application/json', accept: 'application/json', 'x-api-key': this.#apiKey, 'anthropic-version': ANTHROPIC_VERSION };
      const text = await withRetries(this.#policy, { provider: 'anthropic', model: this.model }, () =>
        postOnce({ fetch: this.#fetch, url: this.#url, headers, body, timeoutMs: this.#policy.timeoutMs, scrubber: this.#scrubber, classify: anthropicReason }),
      );
      return this.#response(parseJsonBody(text, this.#scrubber));
    });
  }

  #body(request: { messages: ChatMessage[]; tools: ToolSpec[]; maxTokens?: number }): Record<string, unknown> {
    const { system, turns } = toBlockConversation(request.messages);
    // The prompt cache covers tools, then system, then messages: a breakpoint after each part of
    // the stable prefix (the tool definitions, the system prompt, the first user turn, which holds
    // the task context) lets every later call of the phase read it back from the cache.
    const messages = turns.map((turn) => ({ role: turn.role, content: turn.blocks.map(toAnthropicBlock) }));
    if (messages[0]?.role === 'user') markLast(messages[0].content);
    const body: Record<string, unknown> = { model: this.model, max_tokens: request.maxTokens ?? this.maxOutputTokens, messages };
    if (system.length > 0) body.system = [{ type: 'text', text: system.join('\n\n'), cache_control: CACHE_CONTROL }];
    if (request.tools.length > 0) {
      const tools: Record<string, unknown>[] = request.tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.parameters }));
      markLast(tools);
      body.tools = tools;
      body.tool_choice = { type: 'auto' };
    }
    return body;
  }

  #response(json: unknown): ModelResponse {
    const parsed = MessagesResponse.safeParse(json);
    if (!parsed.success)
      throw new ModelProviderError(
        'MODEL_RESPONSE_INVALID',
        `model endpoint returned an unexpected shape: ${this.#scrubber.excerpt(z.prettifyError(parsed.error))}`,
      );
    const text: string[] = [];
    const toolCalls: NonNullable<ChatMessage['tool_calls']> = [];
    for (const block of parsed.data.content) {
      const asText = TextBlock.safeParse(block);
      if (asText.success) text.push(asText.data.text);
      const asTool = ToolUseBlock.safeParse(block);
      if (asTool.success)
        toolCalls.push({ id: asTool.data.id, type: 'function', function: { name: asTool.data.name, arguments: JSON.stringify(asTool.data.input ?? {}) } });
    }
    const joined = text.join('');
    const message: ChatMessage = { role: 'assistant', content: joined.length > 0 ? joined : null };
    if (toolCalls.length > 0) message.tool_calls = toolCalls;
    const response: ModelResponse = { message };
    if (parsed.data.stop_reason) {
      response.finishReason = parsed.data.stop_reason;
      response.stopReason = anthropicStopReason(parsed.data.stop_reason);
    }
    const usage = parsed.data.usage;
    if (usage) {
      const read = usage.cache_read_input_tokens ?? 0;
      response.usage = {
        promptTokens: usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + read,
        completionTokens: usage.output_tokens,
      };
      if (usage.cache_read_input_tokens != null) response.usage.cachedInputTokens = read;
    }
    return response;
  }
}

/** By `error.type` first (the documented contract), by status when the body is not the API's. */
export function anthropicReason(status: number, text: string): ModelProviderReason {
  let type: string | undefined;
  let message = '';
  try {
    const parsed = ErrorBody.safeParse(JSON.parse(text));
    if (parsed.success) ({ type, message } = parsed.data.error);
  } catch {
    // not JSON: a proxy's page
  }
  if (type === 'invalid_request_error' && /prompt is too long|context window|too many tokens/i.test(message)) return 'MODEL_CONTEXT_OVERFLOW';
  switch (type) {
    case 'authentication_error':
    case 'permission_error':
      return 'MODEL_AUTH_FAILED';
    case 'rate_limit_error':
      return 'MODEL_RATE_LIMITED';
    case 'overloaded_error':
    case 'api_error':
      return 'MODEL_SERVER_ERROR';
    case 'request_too_large':
      return 'MODEL_CONTEXT_OVERFLOW';
    case 'timeout_error':
      return 'MODEL_TIMEOUT';
    case 'not_found_error':
      return 'MODEL_NOT_FOUND';
    default:
      return status === 529 ? 'MODEL_SERVER_ERROR' : reasonForStatus(status);
  }
}

/** Anthropic Messages `stop_reason` in the internal vocabulary. */
export const anthropicStopReason = blockStopReason;

function markLast(blocks: Record<string, unknown>[]): void {
  const last = blocks.at(-1);
  if (last) last.cache_control = CACHE_CONTROL;
}

function toAnthropicBlock(block: TurnBlock): Record<string, unknown> {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'tool_use':
      return { type: 'tool_use', id: block.id, name: block.name, input: block.input };
    case 'tool_result':
      return { type: 'tool_result', tool_use_id: block.id, content: block.text };
  }
}
