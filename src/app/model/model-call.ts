import { z } from 'zod';
import type { ChatMessage, ModelProvider, ModelResponse, ToolSpec } from '../../core/ports.js';
import { invokeJson, type LambdaLike } from '../aws/invoke-json.js';
import { MODEL_PROVIDER_REASONS, ModelProviderError } from './model-provider-error.js';

/*
 * The model behind a function of its own (docs/trust-chain.md, "The model key"): model-call
 * holds the provider's key (or, with Bedrock, the grant on the one model) and calls the
 * provider; the worker, which runs on repository content and model output, invokes it and never
 * holds the key. The provider and its URL are model-call's configuration, never the caller's.
 */

/** Bounds on one request (Lambda caps a synchronous payload at 6 MB before this is reached). */
const MAX_MESSAGES = 4000;
const MAX_TOOLS = 200;
const MAX_TOKENS = 1_000_000;

const ToolCall = z.object({ id: z.string(), type: z.literal('function'), function: z.object({ name: z.string(), arguments: z.string() }) });

const Message = z.object({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.string().nullable(),
  tool_calls: z.array(ToolCall).max(MAX_TOOLS).optional(),
  tool_call_id: z.string().optional(),
  name: z.string().optional(),
});

/** What model-call accepts: one chat request, nothing that chooses a provider, a URL or a key. */
export const ModelCallEvent = z
  .object({
    messages: z.array(Message).min(1).max(MAX_MESSAGES),
    tools: z.array(z.object({ name: z.string(), description: z.string(), parameters: z.record(z.string(), z.unknown()) })).max(MAX_TOOLS),
    maxTokens: z.number().int().positive().max(MAX_TOKENS).optional(),
  })
  .strict();

/** model-call's answer: the response, or the provider's coded failure (so the worker can tell a rate limit from a refusal). */
export const ModelCallResult = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), response: z.unknown() }),
  z.object({ ok: z.literal(false), reason: z.enum(MODEL_PROVIDER_REASONS), message: z.string(), data: z.record(z.string(), z.unknown()).optional() }),
]);
export type ModelCallResult = z.infer<typeof ModelCallResult>;

/** model-call's body: validate the request, call the configured provider, answer with the response or the coded failure. */
export function createModelCallHandler(provider: ModelProvider | undefined): (event: unknown) => Promise<ModelCallResult> {
  return async (event) => {
    if (!provider) return { ok: false, reason: 'MODEL_REQUEST_REJECTED', message: 'no model is configured for this deployment' };
    const parsed = ModelCallEvent.safeParse(event);
    if (!parsed.success) {
      return { ok: false, reason: 'MODEL_REQUEST_REJECTED', message: 'not a model request', data: { issues: parsed.error.issues.length } };
    }
    try {
      const response = await provider.complete(parsed.data as { messages: ChatMessage[]; tools: ToolSpec[]; maxTokens?: number });
      return { ok: true, response };
    } catch (error) {
      if (error instanceof ModelProviderError) return { ok: false, reason: error.reason, message: error.message, data: error.data };
      throw error;
    }
  };
}

/** The worker's ModelProvider: every call is a synchronous invocation of model-call. */
export class LambdaModelProvider implements ModelProvider {
  constructor(
    private readonly options: {
      client: LambdaLike;
      functionName: string;
      /** The configured model's id (reports and prices); model-call decides which model answers. */
      model: string;
    },
  ) {}

  get model(): string {
    return this.options.model;
  }

  async complete(request: { messages: ChatMessage[]; tools: ToolSpec[]; maxTokens?: number }): Promise<ModelResponse> {
    const { client, functionName } = this.options;
    const answer = await invokeJson(client, functionName, request, (failure) =>
      failure.kind === 'function-error'
        ? new ModelProviderError('MODEL_SERVER_ERROR', 'the model function failed', { functionName, errorType: failure.errorType })
        : new ModelProviderError('MODEL_NETWORK_ERROR', 'the model function could not be invoked', { functionName, failure: failure.kind }),
    );
    const result = ModelCallResult.safeParse(answer);
    if (!result.success) throw new ModelProviderError('MODEL_RESPONSE_INVALID', 'the model function answered something else', { functionName });
    if (!result.data.ok) throw new ModelProviderError(result.data.reason, result.data.message, result.data.data ?? {});
    return result.data.response as ModelResponse;
  }
}
