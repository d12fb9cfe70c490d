import type { ModelProvider } from '../../core/ports.js';
import { AnthropicMessagesProvider } from './anthropic-messages-provider.js';
import { BedrockConverseProvider, type BedrockConverseProviderOptions } from './bedrock-converse-provider.js';
import { OpenAiChatProvider } from './openai-chat-provider.js';
import type { ProviderCallOptions } from './provider-call.js';
import { ModelConfigError, ModelSettingsSchema, modelSettingVariable, type ModelSettings } from './model-settings.js';

/** What the composition root may inject: retry pacing, fetch, fixed AWS credentials. */
export interface ModelProviderDeps extends ProviderCallOptions {
  fetch?: typeof fetch;
  awsCredentials?: BedrockConverseProviderOptions['credentials'];
}

/**
 * Builds the configured provider, or returns undefined when no model is configured (no
 * provider and no base URL: recipe-only deployments). Incomplete settings throw
 * MODEL_CONFIG_INVALID naming what is missing.
 */
export function createModelProvider(settings: ModelSettings, deps: ModelProviderDeps = {}): ModelProvider | undefined {
  const cleaned = Object.fromEntries(Object.entries(settings).map(([k, v]) => [k, blankToUndefined(v)]));
  const parsed = ModelSettingsSchema.safeParse(cleaned);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${modelSettingVariable(i.path.join('.'))}: ${i.message}`);
    throw new ModelConfigError('MODEL_CONFIG_INVALID', `invalid model settings: ${problems.join('; ')}`, {
      variables: parsed.error.issues.map((i) => i.path.join('.')),
    });
  }
  const s = parsed.data;
  const provider = s.provider ?? (s.baseUrl ? 'openai' : undefined);
  if (!provider) {
    if (s.model) throw missing('provider', 'a model name is set but neither a provider nor a base URL');
    return undefined;
  }
  if (!s.model) throw missing('model', `provider ${provider} needs a model id`);
  const call: ProviderCallOptions & { maxOutputTokens?: number } = {
    timeoutMs: deps.timeoutMs,
    maxRetries: deps.maxRetries,
    backoffMs: deps.backoffMs,
    sleep: deps.sleep,
    maxOutputTokens: s.maxOutputTokens,
  };
  switch (provider) {
    case 'openai':
      if (!s.baseUrl) throw missing('baseUrl', 'provider openai needs a base URL');
      return new OpenAiChatProvider({ ...call, baseUrl: s.baseUrl, model: s.model, apiKey: s.apiKey, fetch: deps.fetch });
    case 'anthropic':
      if (!s.apiKey) throw missing('apiKey', 'provider anthropic needs an API key');
      return new AnthropicMessagesProvider({ ...call, baseUrl: s.baseUrl, model: s.model, apiKey: s.apiKey, fetch: deps.fetch });
    case 'bedrock':
      return new BedrockConverseProvider({ ...call, model: s.model, region: s.region, endpoint: s.baseUrl, credentials: deps.awsCredentials });
  }
}

function missing(variable: string, message: string): ModelConfigError {
  return new ModelConfigError('MODEL_CONFIG_INVALID', `invalid model settings: ${modelSettingVariable(variable)} is missing (${message})`, {
    variables: [variable],
  });
}

function blankToUndefined(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}
