import {
  BedrockRuntimeClient,
  ConverseCommand,
  type BedrockRuntimeClientConfig,
  type ContentBlock,
  type ConverseCommandInput,
  type Message,
} from '@aws-sdk/client-bedrock-runtime';
import { z } from 'zod';
import type { ChatMessage, ModelProvider, ModelResponse, ToolSpec } from '../../core/ports.js';
import { blockStopReason, toBlockConversation, type TurnBlock } from './content-block-turns.js';
import { ModelProviderError, type ModelProviderReason } from './model-provider-error.js';
import {
  guardModelCall,
  reasonForStatus,
  retryPolicyOf,
  SecretScrubber,
  transportFailure,
  withRetries,
  type AttemptResult,
  type ProviderCallOptions,
  type RetryPolicy,
} from './provider-call.js';

export interface BedrockConverseProviderOptions extends ProviderCallOptions {
  /** A model id or inference profile id, e.g. `anthropic.claude-sonnet-4-20250514-v1:0`. */
  model: string;
  /** Default: the SDK's region chain (AWS_REGION on Lambda). */
  region?: string;
  /** Endpoint override (a VPC endpoint, or a loopback server in tests). */
  endpoint?: string;
  /** Default: the SDK's default chain (on Lambda, the function's role). Never an API key. */
  credentials?: BedrockRuntimeClientConfig['credentials'];
  /** Completion tokens per call (`ModelProvider.maxOutputTokens`). Default 8,192: not every model Bedrock hosts writes more. */
  maxOutputTokens?: number;
}

const ResponseBlock = z.looseObject({
  text: z.string().optional(),
  toolUse: z.object({ toolUseId: z.string().min(1), name: z.string().min(1), input: z.unknown() }).optional(),
});

const ConverseOutput = z.object({
  output: z.object({ message: z.object({ role: z.literal('assistant'), content: z.array(ResponseBlock) }) }),
  stopReason: z.string(),
  usage: z
    .object({
      /** Without what was read from or written to the cache, which Converse counts apart. */
      inputTokens: z.number().int().nonnegative(),
      outputTokens: z.number().int().nonnegative(),
      cacheReadInputTokens: z.number().int().nonnegative().optional(),
      cacheWriteInputTokens: z.number().int().nonnegative().optional(),
    })
    .optional(),
});

/**
 * Models that take Converse cache points (Anthropic's Claude, by model id or inference profile).
 * Others may refuse the block, so they get none.
 */
const CACHING_MODELS = /anthropic\.claude/;

/** The end of a cacheable prefix. */
const CACHE_POINT = { cachePoint: { type: 'default' } } as const;

/**
 * `ModelProvider` over Amazon Bedrock's Converse API (`ConverseCommand`). Credentials come from
 * the default chain, so on Lambda the worker's role signs the call and no key exists. The SDK
 * does not retry on its own: the shared loop retries throttling and server faults, so every
 * provider backs off the same way.
 */
export class BedrockConverseProvider implements ModelProvider {
  readonly model: string;
  readonly maxOutputTokens: number;
  readonly #client: BedrockRuntimeClient;
  readonly #policy: RetryPolicy;
  readonly #scrubber: SecretScrubber;

  constructor(options: BedrockConverseProviderOptions) {
    this.model = options.model;
    this.maxOutputTokens = options.maxOutputTokens ?? 8_192;
    this.#client = new BedrockRuntimeClient({ region: options.region, endpoint: options.endpoint, credentials: options.credentials, maxAttempts: 1 });
    this.#policy = retryPolicyOf(options);
    const fixed =
      options.credentials && typeof options.credentials === 'object' ? (options.credentials as { secretAccessKey?: string; sessionToken?: string }) : undefined;
    this.#scrubber = new SecretScrubber([fixed?.secretAccessKey, fixed?.sessionToken]);
  }

  complete(request: { messages: ChatMessage[]; tools: ToolSpec[]; maxTokens?: number }): Promise<ModelResponse> {
    const input = this.#input(request);
    return guardModelCall(this.model, this.#scrubber, () => withRetries(this.#policy, { provider: 'bedrock', model: this.model }, () => this.#attempt(input)));
  }

  async #attempt(input: ConverseCommandInput): Promise<AttemptResult<ModelResponse>> {
    let output: unknown;
    try {
      output = await this.#client.send(new ConverseCommand(input), { abortSignal: AbortSignal.timeout(this.#policy.timeoutMs) });
    } catch (error) {
      return { ok: false, failure: this.#failure(error) };
    }
    return { ok: true, value: this.#response(output) };
  }

  #input(request: { messages: ChatMessage[]; tools: ToolSpec[]; maxTokens?: number }): ConverseCommandInput {
    const { system, turns } = toBlockConversation(request.messages);
    // Cache points close the stable prefix: the tool definitions, the system prompt and the first
    // user turn (the task context), the same on every call of a phase.
    const cache = CACHING_MODELS.test(this.model);
    const messages = turns.map((turn): Message => ({ role: turn.role, content: turn.blocks.map(toBedrockBlock) }));
    if (cache && messages[0]?.role === 'user') messages[0].content = [...(messages[0].content ?? []), CACHE_POINT];
    const input: ConverseCommandInput = { modelId: this.model, messages };
    if (system.length > 0) input.system = [...system.map((text) => ({ text })), ...(cache ? [CACHE_POINT] : [])];
    if (request.maxTokens !== undefined) input.inferenceConfig = { maxTokens: request.maxTokens };
    if (request.tools.length > 0) {
      input.toolConfig = {
        tools: [
          ...request.tools.map((tool) => ({ toolSpec: { name: tool.name, description: tool.description, inputSchema: { json: tool.parameters as never } } })),
          ...(cache ? [CACHE_POINT] : []),
        ],
        toolChoice: { auto: {} },
      };
    }
    return input;
  }

  #response(output: unknown): ModelResponse {
    const parsed = ConverseOutput.safeParse(output);
    if (!parsed.success)
      throw new ModelProviderError('MODEL_RESPONSE_INVALID', `Bedrock returned an unexpected shape: ${this.#scrubber.excerpt(z.prettifyError(parsed.error))}`);
    const { content } = parsed.data.output.message;
    const text = content.flatMap((b) => (b.text === undefined ? [] : [b.text])).join('');
    const toolCalls = content.flatMap((b) =>
      b.toolUse
        ? [{ id: b.toolUse.toolUseId, type: 'function' as const, function: { name: b.toolUse.name, arguments: JSON.stringify(b.toolUse.input ?? {}) } }]
        : [],
    );
    const message: ChatMessage = { role: 'assistant', content: text.length > 0 ? text : null };
    if (toolCalls.length > 0) message.tool_calls = toolCalls;
    const response: ModelResponse = { message, finishReason: parsed.data.stopReason, stopReason: bedrockStopReason(parsed.data.stopReason) };
    const usage = parsed.data.usage;
    if (usage) {
      const read = usage.cacheReadInputTokens ?? 0;
      response.usage = { promptTokens: usage.inputTokens + read + (usage.cacheWriteInputTokens ?? 0), completionTokens: usage.outputTokens };
      if (usage.cacheReadInputTokens !== undefined) response.usage.cachedInputTokens = read;
    }
    return response;
  }

  #failure(error: unknown) {
    const name = error instanceof Error ? error.name : '';
    const status = (error as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
    if (name === 'TimeoutError' || name === 'AbortError' || (status === undefined && !(name in BEDROCK_ERRORS)))
      return transportFailure(error, this.#policy.timeoutMs, this.#scrubber);
    const message = error instanceof Error ? error.message : String(error);
    return {
      reason: bedrockReason(name, message, status),
      message: `Bedrock answered ${name}${status ? ` (HTTP ${status})` : ''}: ${this.#scrubber.excerpt(message)}`,
      status,
    };
  }
}

/** Bedrock's exceptions by name, as the SDK raises them. */
const BEDROCK_ERRORS: Record<string, ModelProviderReason> = {
  ThrottlingException: 'MODEL_RATE_LIMITED',
  ServiceQuotaExceededException: 'MODEL_RATE_LIMITED',
  ModelNotReadyException: 'MODEL_RATE_LIMITED',
  AccessDeniedException: 'MODEL_AUTH_FAILED',
  UnrecognizedClientException: 'MODEL_AUTH_FAILED',
  InvalidSignatureException: 'MODEL_AUTH_FAILED',
  ExpiredTokenException: 'MODEL_AUTH_FAILED',
  ModelTimeoutException: 'MODEL_TIMEOUT',
  InternalServerException: 'MODEL_SERVER_ERROR',
  ServiceUnavailableException: 'MODEL_SERVER_ERROR',
  ModelErrorException: 'MODEL_SERVER_ERROR',
  ValidationException: 'MODEL_REQUEST_REJECTED',
  ResourceNotFoundException: 'MODEL_NOT_FOUND',
};

/** Bedrock reports an over-long prompt as a ValidationException; only its message tells. */
const CONTEXT_OVERFLOW = /input is too long|too many (input )?tokens|context (length|window)|prompt is too long|maximum context/i;

export function bedrockReason(name: string, message: string, status: number | undefined): ModelProviderReason {
  if (name === 'ValidationException' && CONTEXT_OVERFLOW.test(message)) return 'MODEL_CONTEXT_OVERFLOW';
  const known = BEDROCK_ERRORS[name];
  if (known) return known;
  // A 2xx the SDK could not deserialize.
  if (status !== undefined && status >= 200 && status < 300) return 'MODEL_RESPONSE_INVALID';
  return status === undefined ? 'MODEL_REQUEST_REJECTED' : reasonForStatus(status);
}

/** Bedrock Converse `stopReason` in the internal vocabulary. */
export const bedrockStopReason = blockStopReason;

function toBedrockBlock(block: TurnBlock): ContentBlock {
  switch (block.type) {
    case 'text':
      return { text: block.text };
    case 'tool_use':
      return { toolUse: { toolUseId: block.id, name: block.name, input: block.input as never } };
    case 'tool_result':
      // No `status`: only some model families accept it, and a tool's error is already in its text.
      return { toolResult: { toolUseId: block.id, content: [{ text: block.text }] } };
  }
}
