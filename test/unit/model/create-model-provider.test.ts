import { describe, expect, it } from 'vitest';
import { AnthropicMessagesProvider } from '../../../src/app/model/anthropic-messages-provider.js';
import { BedrockConverseProvider } from '../../../src/app/model/bedrock-converse-provider.js';
import { createModelProvider } from '../../../src/app/model/create-model-provider.js';
import { ModelConfigError, type ModelSettings } from '../../../src/app/model/model-settings.js';
import { OpenAiChatProvider } from '../../../src/app/model/openai-chat-provider.js';

function configError(settings: ModelSettings): ModelConfigError {
  let caught: unknown;
  try {
    createModelProvider(settings);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(ModelConfigError);
  return caught as ModelConfigError;
}

describe('createModelProvider', () => {
  it.each([
    ['openai', { provider: 'openai', model: 'gpt-x', baseUrl: 'http://127.0.0.1:9/v1' }, OpenAiChatProvider],
    ['openai by default when only a base URL is set', { model: 'gpt-x', baseUrl: 'http://127.0.0.1:9/v1' }, OpenAiChatProvider],
    ['bedrock, no key and no base URL needed', { provider: 'bedrock', model: 'anthropic.claude-test-v1:0', region: 'eu-west-1' }, BedrockConverseProvider],
    ['anthropic, default API root', { provider: 'anthropic', model: 'claude-test', apiKey: 'k-123456' }, AnthropicMessagesProvider],
  ] as const)('builds %s', (_, settings, type) => {
    const provider = createModelProvider(settings);

    expect(provider).toBeInstanceOf(type);
    expect(provider?.model).toBe(settings.model);
  });

  it.each([
    ['OpenAI itself (reasoning tokens count against the cap)', { provider: 'openai', model: 'o4-mini', baseUrl: 'https://api.openai.com/v1' }, 16_384],
    ['an OpenAI-compatible local server (small context windows)', { model: 'qwen3', baseUrl: 'http://127.0.0.1:11434/v1' }, 4_096],
    ['Anthropic', { provider: 'anthropic', model: 'claude-test', apiKey: 'k-123456' }, 16_384],
    ['Bedrock (not every model it hosts writes more)', { provider: 'bedrock', model: 'anthropic.claude-test-v1:0', region: 'eu-west-1' }, 8_192],
  ] as const)('asks for a default number of output tokens per call on %s', (_, settings, tokens) => {
    expect(createModelProvider(settings)?.maxOutputTokens).toBe(tokens);
  });

  it.each([
    { provider: 'openai', model: 'qwen3', baseUrl: 'http://127.0.0.1:11434/v1', maxOutputTokens: '12000' },
    { provider: 'anthropic', model: 'claude-test', apiKey: 'k-123456', maxOutputTokens: '12000' },
    { provider: 'bedrock', model: 'anthropic.claude-test-v1:0', region: 'eu-west-1', maxOutputTokens: '12000' },
  ])('takes the configured output tokens per call for $provider', (settings) => {
    expect(createModelProvider(settings)?.maxOutputTokens).toBe(12_000);
  });

  it('builds nothing when no model is configured (blank values count as unset)', () => {
    expect(createModelProvider({})).toBeUndefined();
    expect(createModelProvider({ provider: '', baseUrl: ' ', model: '' })).toBeUndefined();
  });

  it.each([
    ['bedrock without a model id', { provider: 'bedrock', region: 'eu-west-1' }, ['model']],
    ['anthropic without a key', { provider: 'anthropic', model: 'claude-test' }, ['apiKey']],
    ['openai without a base URL', { provider: 'openai', model: 'gpt-x' }, ['baseUrl']],
    ['a model name and nothing to say where it runs', { model: 'gpt-x' }, ['provider']],
    ['an unknown provider', { provider: 'vertex', model: 'm' }, ['provider']],
    ['a malformed region', { provider: 'bedrock', model: 'm', region: 'Europe' }, ['region']],
    ['output tokens that are not a positive whole number', { provider: 'bedrock', model: 'm', maxOutputTokens: 'lots' }, ['maxOutputTokens']],
    ['zero output tokens', { provider: 'bedrock', model: 'm', maxOutputTokens: '0' }, ['maxOutputTokens']],
  ] as const)('rejects %s with MODEL_CONFIG_INVALID naming the setting', (_, settings, variables) => {
    const error = configError(settings);

    expect(error.reason).toBe('MODEL_CONFIG_INVALID');
    expect(error.data.variables).toEqual(variables);
  });

  it('never puts the key into a configuration error', () => {
    const error = configError({ provider: 'anthropic', apiKey: 'sk-ant-secret-value-123', baseUrl: 'not a url' });

    expect(JSON.stringify(error.toJSON())).not.toContain('sk-ant-secret-value-123');
  });
});
