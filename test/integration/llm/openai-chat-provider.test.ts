import { afterEach, describe, expect, it } from 'vitest';
import { ModelProviderError } from '../../../src/app/model/model-provider-error.js';
import { OpenAiChatProvider } from '../../../src/app/model/openai-chat-provider.js';
import type { ChatMessage, ToolSpec } from '../../../src/core/ports.js';
import { answer, callTools, startScriptedModelServer, type ScriptedModelServer, type ScriptedModelServerOptions } from '../../helpers/scripted-model-server.js';

const KEY = ['sk', 'test', 'Q9x8w7v6u5t4'].join('-');
const MESSAGES: ChatMessage[] = [
  { role: 'system', content: 'be brief' },
  { role: 'user', content: 'hello' },
];
const TOOLS: ToolSpec[] = [
  { name: 'file_read', description: 'Read a file.', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
];

const servers: ScriptedModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function provider(options: ScriptedModelServerOptions, extra: { maxRetries?: number; timeoutMs?: number } = {}) {
  const s = await startScriptedModelServer({ apiKey: KEY, ...options });
  servers.push(s);
  const sleeps: number[] = [];
  const p = new OpenAiChatProvider({
    baseUrl: `${s.baseUrl}/`,
    model: 'scripted-1',
    apiKey: KEY,
    backoffMs: 100,
    sleep: async (ms) => void sleeps.push(ms),
    ...extra,
  });
  return { server: s, provider: p, sleeps };
}

async function failure(promise: Promise<unknown>): Promise<ModelProviderError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ModelProviderError);
  return error as ModelProviderError;
}

describe('OpenAiChatProvider', () => {
  it('sends a well-formed function-calling request and parses tool calls and usage', async () => {
    const { server, provider: p } = await provider({
      script: [{ ...callTools({ id: 'a1', name: 'file_read', arguments: { path: 'x' } }), usage: { promptTokens: 11, completionTokens: 7 } }],
    });

    const response = await p.complete({ messages: MESSAGES, tools: TOOLS, maxTokens: 256 });

    expect(response).toEqual({
      message: { role: 'assistant', content: null, tool_calls: [{ id: 'a1', type: 'function', function: { name: 'file_read', arguments: '{"path":"x"}' } }] },
      usage: { promptTokens: 11, completionTokens: 7 },
      finishReason: 'tool_calls',
      stopReason: 'tool_use',
    });
    expect(server.problems()).toEqual([]);
    const [request] = server.requests;
    expect(request.body).toEqual({
      model: 'scripted-1',
      messages: MESSAGES,
      tools: [{ type: 'function', function: TOOLS[0] }],
      tool_choice: 'auto',
      max_tokens: 256,
    });
    // The key travels only in the Authorization header.
    expect(request.authorization).toBe(`Bearer ${KEY}`);
    expect(request.raw).not.toContain(KEY);
  });

  it('omits tools and tool_choice when there are no tools', async () => {
    const { server, provider: p } = await provider({ script: [answer('hi')] });

    const response = await p.complete({ messages: MESSAGES, tools: [] });

    expect(response.message).toEqual({ role: 'assistant', content: 'hi' });
    expect(server.requests[0].body).not.toHaveProperty('tools');
    expect(server.requests[0].body).not.toHaveProperty('tool_choice');
    expect(server.problems()).toEqual([]);
  });

  it('retries 429 and 5xx with exponential backoff, honouring Retry-After', async () => {
    const script = [{ status: 429, headers: { 'retry-after': '2' } }, { status: 503 }, { status: 500 }, answer('finally')];
    const { server, provider: p, sleeps } = await provider({ script }, { maxRetries: 3 });

    const response = await p.complete({ messages: MESSAGES, tools: TOOLS });

    expect(response.message.content).toBe('finally');
    expect(server.requests).toHaveLength(4);
    expect(sleeps).toEqual([2_000, 200, 400]);
  });

  it('gives up after the retries with a coded error', async () => {
    const { server, provider: p } = await provider({ script: () => ({ status: 502 }) }, { maxRetries: 2 });

    const error = await failure(p.complete({ messages: MESSAGES, tools: TOOLS }));

    expect(error.reason).toBe('MODEL_SERVER_ERROR');
    expect(error.data).toMatchObject({ status: 502, attempts: 3 });
    expect(server.requests).toHaveLength(3);
  });

  it('does not retry an authentication failure, and the error never carries the key', async () => {
    const s = await startScriptedModelServer({ apiKey: 'another-key', script: [answer('unreachable')] });
    servers.push(s);
    const sleeps: number[] = [];
    const p = new OpenAiChatProvider({ baseUrl: s.baseUrl, model: 'm', apiKey: KEY, sleep: async (ms) => void sleeps.push(ms) });

    const error = await failure(p.complete({ messages: MESSAGES, tools: [] }));

    expect(error.reason).toBe('MODEL_AUTH_FAILED');
    expect(s.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
    expect(JSON.stringify({ ...error.toJSON(), stack: error.stack })).not.toContain(KEY);
  });

  it('scrubs the key when an endpoint echoes it in an error body', async () => {
    const { provider: p } = await provider({ script: [{ status: 400, body: JSON.stringify({ error: { message: `bad request for key ${KEY}` } }) }] });

    const error = await failure(p.complete({ messages: MESSAGES, tools: [] }));

    expect(error.reason).toBe('MODEL_REQUEST_REJECTED');
    expect(error.message).toContain('[REDACTED]');
    expect(error.message).not.toContain(KEY);
  });

  it('times out a slow answer and reports MODEL_TIMEOUT', async () => {
    const { provider: p } = await provider({ script: [{ ...answer('late'), delayMs: 1_000 }] }, { timeoutMs: 100, maxRetries: 0 });

    const error = await failure(p.complete({ messages: MESSAGES, tools: [] }));

    expect(error.reason).toBe('MODEL_TIMEOUT');
  });

  it('reports message.refusal as a refusal stop with the refusal as content', async () => {
    const body = { choices: [{ message: { role: 'assistant', content: null, refusal: 'I cannot help with that.' }, finish_reason: 'stop' }] };
    const { provider: p } = await provider({ script: [{ status: 200, body: JSON.stringify(body) }] });

    const response = await p.complete({ messages: MESSAGES, tools: [] });

    expect(response.stopReason).toBe('refusal');
    expect(response.message.content).toBe('I cannot help with that.');
  });

  it('reports context_length_exceeded as MODEL_CONTEXT_OVERFLOW without retrying', async () => {
    const body = { error: { message: "This model's maximum context length is 8192 tokens.", type: 'invalid_request_error', code: 'context_length_exceeded' } };
    const { server, provider: p, sleeps } = await provider({ script: [{ status: 400, body: JSON.stringify(body) }, answer('unreachable')] });

    const error = await failure(p.complete({ messages: MESSAGES, tools: [] }));

    expect(error.reason).toBe('MODEL_CONTEXT_OVERFLOW');
    expect(server.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('rejects a response without choices as MODEL_RESPONSE_INVALID', async () => {
    const { provider: p } = await provider({ script: [{ status: 200, body: JSON.stringify({ choices: [] }) }] });

    const error = await failure(p.complete({ messages: MESSAGES, tools: [] }));

    expect(error.reason).toBe('MODEL_RESPONSE_INVALID');
  });

  it('caps the completion with max_completion_tokens on api.openai.com, which refuses max_tokens for its reasoning models', async () => {
    const s = await startScriptedModelServer({ apiKey: KEY, refuseMaxTokens: true, script: [answer('ok')] });
    servers.push(s);
    // api.openai.com, answered on loopback: the URL the provider builds is kept, only the host is swapped.
    const toLoopback: typeof fetch = (url, init) => fetch(String(url).replace('https://api.openai.com/v1', s.baseUrl), init);
    const p = new OpenAiChatProvider({ baseUrl: 'https://api.openai.com/v1', model: 'o4-mini', apiKey: KEY, maxRetries: 0, fetch: toLoopback });

    const response = await p.complete({ messages: MESSAGES, tools: [], maxTokens: 900 });

    expect(response.message.content).toBe('ok');
    expect(s.problems()).toEqual([]);
    expect(s.requests[0].body).toMatchObject({ max_completion_tokens: 900 });
    expect(s.requests[0].body).not.toHaveProperty('max_tokens');
  });

  it('keeps max_tokens for other OpenAI-compatible servers (Ollama, llama.cpp, vLLM know only it)', async () => {
    const { server, provider: p } = await provider({ script: [answer('ok')] });

    await p.complete({ messages: MESSAGES, tools: [], maxTokens: 900 });

    expect(server.requests[0].body).toMatchObject({ max_tokens: 900 });
    expect(server.requests[0].body).not.toHaveProperty('max_completion_tokens');
  });

  it('reports an unreachable endpoint as MODEL_NETWORK_ERROR after retrying', async () => {
    const s = await startScriptedModelServer({ script: [] });
    const baseUrl = s.baseUrl;
    await s.close();
    const sleeps: number[] = [];
    const p = new OpenAiChatProvider({ baseUrl, model: 'm', maxRetries: 1, backoffMs: 5, sleep: async (ms) => void sleeps.push(ms) });

    const error = await failure(p.complete({ messages: MESSAGES, tools: [] }));

    expect(error.reason).toBe('MODEL_NETWORK_ERROR');
    expect(sleeps).toEqual([5]);
  });

  it('names the endpoint and the cause when nothing listens there (connection refused), not a bare "fetch failed"', async () => {
    const s = await startScriptedModelServer({ script: [] });
    const baseUrl = s.baseUrl;
    await s.close();
    const p = new OpenAiChatProvider({ baseUrl, model: 'm', maxRetries: 0 });

    const error = await failure(p.complete({ messages: MESSAGES, tools: [] }));

    expect(error.reason).toBe('MODEL_NETWORK_ERROR');
    expect(error.message).toContain(`${baseUrl}/chat/completions`);
    expect(error.message).toMatch(/ECONNREFUSED/);
  });

  it('reports a 404 (a base URL without /v1, or a model the server does not have) as MODEL_NOT_FOUND naming the URL, without retrying', async () => {
    const s = await startScriptedModelServer({ script: [answer('unreachable')] });
    servers.push(s);
    const sleeps: number[] = [];
    const withoutV1 = s.baseUrl.replace(/\/v1$/, '');
    const p = new OpenAiChatProvider({ baseUrl: withoutV1, model: 'm', sleep: async (ms) => void sleeps.push(ms) });

    const error = await failure(p.complete({ messages: MESSAGES, tools: [] }));

    expect(error.reason).toBe('MODEL_NOT_FOUND');
    expect(error.message).toContain(`${withoutV1}/chat/completions answered HTTP 404`);
    expect(s.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('never shows credentials written into the base URL in an error', async () => {
    const s = await startScriptedModelServer({ script: [{ status: 404 }] });
    servers.push(s);
    const url = new URL(s.baseUrl);
    url.username = 'user';
    url.password = 'pw-Secret123';
    const p = new OpenAiChatProvider({ baseUrl: url.href, model: 'm', maxRetries: 0 });

    const error = await failure(p.complete({ messages: MESSAGES, tools: [] }));

    expect(error.message).toContain(`${s.baseUrl}/chat/completions`);
    expect(error.message).not.toContain('pw-Secret123');
  });
});
