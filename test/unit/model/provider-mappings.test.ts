import { describe, expect, it } from 'vitest';
import { anthropicReason, anthropicStopReason } from '../../../src/app/model/anthropic-messages-provider.js';
import { bedrockReason, bedrockStopReason } from '../../../src/app/model/bedrock-converse-provider.js';
import { completionCapField, openAiReason, openAiStopReason } from '../../../src/app/model/openai-chat-provider.js';

/** Each protocol's words for why the model stopped and why a call failed, in the one internal vocabulary. */
describe('stop reasons', () => {
  it.each([
    ['end_turn', 'end_turn'],
    ['stop_sequence', 'end_turn'],
    ['tool_use', 'tool_use'],
    ['max_tokens', 'max_tokens'],
    ['model_context_window_exceeded', 'max_tokens'],
    ['guardrail_intervened', 'refusal'],
    ['content_filtered', 'refusal'],
    ['malformed_tool_use', 'other'],
  ] as const)('Bedrock %s -> %s', (wire, internal) => expect(bedrockStopReason(wire)).toBe(internal));

  it.each([
    ['end_turn', 'end_turn'],
    ['stop_sequence', 'end_turn'],
    ['tool_use', 'tool_use'],
    ['max_tokens', 'max_tokens'],
    ['refusal', 'refusal'],
    ['pause_turn', 'other'],
  ] as const)('Anthropic %s -> %s', (wire, internal) => expect(anthropicStopReason(wire)).toBe(internal));

  it.each([
    ['stop', false, 'end_turn'],
    ['tool_calls', true, 'tool_use'],
    ['length', false, 'max_tokens'],
    ['content_filter', false, 'refusal'],
    [undefined, true, 'tool_use'],
    [undefined, false, undefined],
  ] as const)('OpenAI %s (tool calls: %s) -> %s', (wire, hasCalls, internal) => expect(openAiStopReason(wire, hasCalls)).toBe(internal));
});

describe('errors', () => {
  it.each([
    ['ThrottlingException', 'Too many requests', 429, 'MODEL_RATE_LIMITED'],
    ['ServiceQuotaExceededException', 'quota', 400, 'MODEL_RATE_LIMITED'],
    ['ValidationException', 'Input is too long for requested model.', 400, 'MODEL_CONTEXT_OVERFLOW'],
    ['ValidationException', 'The model returned the following errors: prompt is too long: 210000 tokens > 200000 maximum', 400, 'MODEL_CONTEXT_OVERFLOW'],
    ['ValidationException', 'messages: roles must alternate', 400, 'MODEL_REQUEST_REJECTED'],
    ['AccessDeniedException', 'not authorized to perform: bedrock:InvokeModel', 403, 'MODEL_AUTH_FAILED'],
    ['ModelTimeoutException', 'Model has timed out', 408, 'MODEL_TIMEOUT'],
    ['InternalServerException', 'boom', 500, 'MODEL_SERVER_ERROR'],
    ['SomethingNew', 'x', 503, 'MODEL_SERVER_ERROR'],
    ['ResourceNotFoundException', 'Model not found.', 404, 'MODEL_NOT_FOUND'],
    ['SyntaxError', 'Unexpected token < in JSON', 200, 'MODEL_RESPONSE_INVALID'],
  ] as const)('Bedrock %s (%s) -> %s', (name, message, status, reason) => expect(bedrockReason(name, message, status)).toBe(reason));

  const anthropicBody = (type: string, message: string) => JSON.stringify({ type: 'error', error: { type, message } });
  it.each([
    [400, anthropicBody('invalid_request_error', 'prompt is too long: 208477 tokens > 200000 maximum'), 'MODEL_CONTEXT_OVERFLOW'],
    [400, anthropicBody('invalid_request_error', 'messages.1: tool_use ids must be unique'), 'MODEL_REQUEST_REJECTED'],
    [413, anthropicBody('request_too_large', 'Request exceeds the maximum size'), 'MODEL_CONTEXT_OVERFLOW'],
    [401, anthropicBody('authentication_error', 'invalid x-api-key'), 'MODEL_AUTH_FAILED'],
    [429, anthropicBody('rate_limit_error', 'slow down'), 'MODEL_RATE_LIMITED'],
    [529, anthropicBody('overloaded_error', 'Overloaded'), 'MODEL_SERVER_ERROR'],
    [529, '<html>bad gateway</html>', 'MODEL_SERVER_ERROR'],
    [502, '<html>bad gateway</html>', 'MODEL_SERVER_ERROR'],
    [404, anthropicBody('not_found_error', 'model: claude-nonexistent'), 'MODEL_NOT_FOUND'],
  ] as const)('Anthropic HTTP %s %s -> %s', (status, body, reason) => expect(anthropicReason(status, body)).toBe(reason));

  it.each([
    [
      400,
      JSON.stringify({ error: { code: 'context_length_exceeded', message: "This model's maximum context length is 8192 tokens" } }),
      'MODEL_CONTEXT_OVERFLOW',
    ],
    [400, JSON.stringify({ error: { message: 'Invalid value for tool_choice' } }), 'MODEL_REQUEST_REJECTED'],
    [429, '{}', 'MODEL_RATE_LIMITED'],
    [401, '{}', 'MODEL_AUTH_FAILED'],
    [404, JSON.stringify({ error: { code: 'model_not_found', message: 'The model `gpt-nonexistent` does not exist' } }), 'MODEL_NOT_FOUND'],
    [404, JSON.stringify({ error: 'model "qwen3" not found, try pulling it first' }), 'MODEL_NOT_FOUND'],
  ] as const)('OpenAI HTTP %s %s -> %s', (status, body, reason) => expect(openAiReason(status, body)).toBe(reason));
});

describe('the OpenAI completion cap field', () => {
  it.each([
    ['https://api.openai.com/v1', 'max_completion_tokens'],
    ['https://API.OpenAI.com/v1/', 'max_completion_tokens'],
    ['https://acme.openai.azure.com/openai/v1', 'max_completion_tokens'],
    ['http://localhost:11434/v1', 'max_tokens'],
    ['http://127.0.0.1:8080/v1', 'max_tokens'],
    ['https://api.openai.com.example.net/v1', 'max_tokens'],
    ['https://openrouter.ai/api/v1', 'max_tokens'],
  ] as const)('%s -> %s', (baseUrl, field) => expect(completionCapField(baseUrl)).toBe(field));
});
