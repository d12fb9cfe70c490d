import { z } from 'zod';
import { runKeys } from '../../core/artifacts/keys.js';
import { SPEND_REASONS, SpendError } from '../../core/budget/spend.js';
import { accountSpend, type SpendAccountingDeps } from '../../core/engines/llm/spend-accounting.js';
import type { ChatMessage, ModelProvider, ModelResponse, SpendScope, ToolSpec } from '../../core/ports.js';
import { RunRequest } from '../../core/runs/run-request.js';
import { invokeJson, type LambdaLike } from '../aws/invoke-json.js';
import type { CheckableModel } from './model-check.js';
import { MODEL_PROVIDER_REASONS, ModelProviderError } from './model-provider-error.js';
import { MODEL_CONFIG_REASONS, ModelConfigError } from './model-settings.js';

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
    /** The run the call is charged to and the policy's caps; the installation comes from the run's trusted request.json. */
    spend: z
      .object({
        owner: z.string().min(1).max(100),
        repo: z.string().min(1).max(100),
        runId: z.string().min(1).max(64),
        attempt: z.number().int().positive(),
        caps: z
          .object({ taskMicroUsd: z.number().int().nonnegative().optional(), repositoryMonthlyMicroUsd: z.number().int().nonnegative().optional() })
          .strict(),
      })
      .strict()
      .optional(),
  })
  .strict();
export type ModelCallEvent = z.infer<typeof ModelCallEvent>;

/** The worker asks, before its first phase, whether model-call has a model it can call: no provider call is made. */
export const ModelCheckEvent = z.object({ check: z.literal(true) }).strict();

/** model-call's answer: the response, or the provider's coded failure (so the worker can tell a rate limit from a refusal). */
export const ModelCallResult = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), response: z.unknown() }),
  z.object({
    ok: z.literal(false),
    reason: z.enum([...MODEL_PROVIDER_REASONS, ...MODEL_CONFIG_REASONS, ...SPEND_REASONS]),
    message: z.string(),
    data: z.record(z.string(), z.unknown()).optional(),
  }),
]);
export type ModelCallResult = z.infer<typeof ModelCallResult>;

/**
 * model-call's provider, built at cold start: a configuration that cannot be built is kept as
 * its error (every answer then names the setting) rather than failing the function's start,
 * which the worker could only report as "the model function failed".
 */
export function modelCallProvider(build: () => ModelProvider | undefined): ModelProvider | ModelConfigError | undefined {
  try {
    return build();
  } catch (error) {
    if (error instanceof ModelConfigError) return error;
    throw error;
  }
}

const NOT_CONFIGURED = new ModelConfigError(
  'MODEL_CONFIG_INVALID',
  'invalid model settings: MODEL_PROVIDER is missing (model-call has neither a provider nor a base URL)',
  { variables: ['provider'] },
);

/**
 * model-call's body: validate the request, call the configured provider, answer with the
 * response or the coded failure. With `spend` (the deployment's bucket), every call must name
 * its run and is charged to its spend records (docs/architecture.md, "Spend"), which only this
 * function writes: the worker's word decides whom it charges, never what was spent.
 */
export function createModelCallHandler(
  configured: ModelProvider | ModelConfigError | undefined,
  spend?: SpendAccountingDeps,
): (event: unknown) => Promise<ModelCallResult> {
  const provider = configured ?? NOT_CONFIGURED;
  return async (event) => {
    if (provider instanceof ModelConfigError) return { ok: false, reason: provider.reason, message: provider.message, data: provider.data };
    if (ModelCheckEvent.safeParse(event).success) return { ok: true, response: { model: provider.model } };
    const parsed = ModelCallEvent.safeParse(event);
    if (!parsed.success) {
      return { ok: false, reason: 'MODEL_REQUEST_REJECTED', message: 'not a model request', data: { issues: parsed.error.issues.length } };
    }
    const charged = spend ? await chargedProvider(provider, parsed.data, spend) : provider;
    if ('ok' in charged) return charged;
    const { spend: _scope, ...request } = parsed.data;
    try {
      const response = await charged.complete(request as { messages: ChatMessage[]; tools: ToolSpec[]; maxTokens?: number });
      return { ok: true, response };
    } catch (error) {
      if (error instanceof ModelProviderError || error instanceof SpendError)
        return { ok: false, reason: error.reason, message: error.message, data: error.data };
      throw error;
    }
  };
}

/** The provider charging the event's run, its installation read from the run's request.json (written by the intake). */
async function chargedProvider(provider: ModelProvider, event: ModelCallEvent, deps: SpendAccountingDeps): Promise<ModelProvider | ModelCallResult> {
  const refuse = (message: string): ModelCallResult => ({ ok: false, reason: 'MODEL_REQUEST_REJECTED', message });
  if (!event.spend) return refuse('a model request must name the run it is charged to');
  const { owner, repo, runId, attempt, caps } = event.spend;
  let keys;
  try {
    keys = runKeys(owner, repo, runId);
  } catch {
    return refuse('the run a model request names is not a valid run key');
  }
  const object = await deps.store.get(keys.request);
  const request = object ? RunRequest.safeParse(JSON.parse(new TextDecoder().decode(object.body))) : undefined;
  if (!request?.success) return refuse('the run a model request names has no request');
  const source = request.data.source;
  // The intake wrote the trusted policy's caps into request.json; the caps the worker states only count for a request without them.
  const trusted = request.data.spendCaps ?? caps;
  const scope: SpendScope = { owner, repo, runId, attempt, installation: source.kind === 'github' ? String(source.installationId) : 'local', caps: trusted };
  return accountSpend(provider, scope, deps);
}

/** The worker's ModelProvider: every call is a synchronous invocation of model-call. */
export class LambdaModelProvider implements ModelProvider, CheckableModel {
  constructor(
    private readonly options: {
      client: LambdaLike;
      functionName: string;
      /** The configured model's id (reports and prices); model-call decides which model answers. */
      model: string;
      /** The run calls are charged to (set by `forSpend`). */
      spend?: SpendScope;
      /** Completion tokens asked for per call (the deployment's MODEL_MAX_OUTPUT_TOKENS); unset, the engine's default. */
      maxOutputTokens?: number;
    },
  ) {}

  get model(): string {
    return this.options.model;
  }

  get maxOutputTokens(): number | undefined {
    return this.options.maxOutputTokens;
  }

  /** Whether model-call has a model (no provider call): throws the ModelConfigError naming the setting when not. */
  async check(): Promise<void> {
    await this.#invoke({ check: true });
  }

  /** This provider with every call naming `scope`'s run and caps, for model-call to charge. */
  forSpend(scope: SpendScope): ModelProvider {
    return new LambdaModelProvider({ ...this.options, spend: scope });
  }

  async complete(request: { messages: ChatMessage[]; tools: ToolSpec[]; maxTokens?: number }): Promise<ModelResponse> {
    const { spend } = this.options;
    const charge = spend ? { spend: { owner: spend.owner, repo: spend.repo, runId: spend.runId, attempt: spend.attempt, caps: spend.caps } } : {};
    return (await this.#invoke({ ...request, ...charge })) as ModelResponse;
  }

  async #invoke(payload: unknown): Promise<unknown> {
    const { client, functionName } = this.options;
    const answer = await invokeJson(client, functionName, payload, (failure) =>
      failure.kind === 'function-error'
        ? new ModelProviderError('MODEL_SERVER_ERROR', 'the model function failed', { functionName, errorType: failure.errorType })
        : new ModelProviderError('MODEL_NETWORK_ERROR', 'the model function could not be invoked', { functionName, failure: failure.kind }),
    );
    const result = ModelCallResult.safeParse(answer);
    if (!result.success) throw new ModelProviderError('MODEL_RESPONSE_INVALID', 'the model function answered something else', { functionName });
    if (result.data.ok) return result.data.response;
    const { reason, message, data = {} } = result.data;
    if (reason === 'MODEL_CONFIG_INVALID') throw new ModelConfigError(reason, message, data);
    if (isSpendReason(reason)) throw new SpendError(reason, message, data);
    throw new ModelProviderError(reason, message, data);
  }
}

function isSpendReason(reason: string): reason is (typeof SPEND_REASONS)[number] {
  return (SPEND_REASONS as readonly string[]).includes(reason);
}
