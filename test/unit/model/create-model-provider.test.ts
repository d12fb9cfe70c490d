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
