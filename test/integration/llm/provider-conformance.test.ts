import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { AnthropicMessagesProvider } from '../../../src/app/model/anthropic-messages-provider.js';
import { BedrockConverseProvider } from '../../../src/app/model/bedrock-converse-provider.js';
import { ModelProviderError } from '../../../src/app/model/model-provider-error.js';
import { OpenAiChatProvider } from '../../../src/app/model/openai-chat-provider.js';
import type { ChatMessage, ModelProvider, ToolSpec } from '../../../src/core/ports.js';
import { startAnthropicServer } from '../../helpers/anthropic-server.js';
import { BEDROCK_TEST_CREDENTIALS, startBedrockServer } from '../../helpers/bedrock-server.js';
import { answer, callTools, startScriptedModelServer, type ScriptedFailure, type ScriptedReply } from '../../helpers/scripted-model-server.js';

/**
 * One suite, three wire protocols: each provider against a loopback server that speaks its
 * protocol as documented and rejects malformed requests. Error bodies and one success body per
 * protocol are recorded-shape fixtures written from the providers' documentation.
 */
const fixture = (name: string): any => JSON.parse(readFileSync(new URL(`../../fixtures/model-wire/${name}.json`, import.meta.url), 'utf8'));
const failureFixture = (name: string): ScriptedFailure => {
  const f = fixture(name);
  return { status: f.status, headers: f.headers, body: JSON.stringify(f.body) };
};

const API_KEY = ['sk', 'conformance', 'Z1y2x3w4v5u6t7'].join('-');
const MESSAGES: ChatMessage[] = [
  { role: 'system', content: 'You change code.' },
  { role: 'user', content: 'Fix the total function in invoice.py' },
];
const TOOLS: ToolSpec[] = [
  {
    name: 'file_read',
    description: 'Read a file.',
    parameters: { type: 'object', properties: { path: { type: 'string' }, startLine: { type: 'integer' } }, required: ['path'], additionalProperties: false },
  },
  { name: 'git_diff', description: 'Show the diff.', parameters: { type: 'object', properties: {} } },
];

interface Started {
  provider: ModelProvider;
  /** Wire bodies as received, the chat-completions view of each, raw text, problems. */
  requests: { raw: string; body: any; chat?: any }[];
  problems(): string[];
  close(): Promise<void>;
}

interface Protocol {
  name: string;
  /** The secret the provider holds (API key, or the AWS secret access key). */
  secret: string;
  start(script: ScriptedReply[], options: { wrongSecret?: boolean; sleeps: number[] }): Promise<Started>;
  /** The first request of the suite's scenario, as the wire should carry it (tool schemas included). */
  expectedFirstRequest: Record<string, unknown>;
  /** Tool results the last turn of a wire request carries, by call id. */
  toolResultsOfLastTurn(body: any): { id: string; text: string }[];
  /** Where the request marks its prompt-cache breakpoints (the stable prefix); OpenAI caches prefixes by itself. */
  cacheMarks(body: any): string[];
  recordedResponse: string;
  rateLimited: ScriptedFailure[];
  overflow: ScriptedFailure;
}

const retry = { maxRetries: 3, backoffMs: 100 };

const PROTOCOLS: Protocol[] = [
  {
    name: 'OpenAI chat completions',
    secret: API_KEY,
    async start(script, { wrongSecret, sleeps }) {
      const server = await startScriptedModelServer({ script, apiKey: API_KEY });
      const provider = new OpenAiChatProvider({
        baseUrl: server.baseUrl,
        model: 'gpt-test',
        apiKey: wrongSecret ? `${API_KEY}-wrong` : API_KEY,
        ...retry,
        sleep: async (ms) => void sleeps.push(ms),
      });
      return { provider, requests: server.requests, problems: server.problems, close: server.close };
    },
    expectedFirstRequest: {
      model: 'gpt-test',
      messages: MESSAGES,
      tools: TOOLS.map((t) => ({ type: 'function', function: t })),
      tool_choice: 'auto',
      max_tokens: 512,
    },
    toolResultsOfLastTurn: (body) =>
      body.messages
        .filter((m: any, i: number) => m.role === 'tool' && i > body.messages.findLastIndex((x: any) => x.role === 'assistant'))
        .map((m: any) => ({ id: m.tool_call_id, text: m.content })),
    cacheMarks: (body) => (JSON.stringify(body).includes('cache') ? ['unexpected cache field'] : []),
    recordedResponse: 'chat-tool-calls-response',
    rateLimited: [{ status: 429, headers: { 'retry-after': '1' } }, { status: 503 }],
    overflow: failureFixture('chat-context-length-error'),
  },
  {
    name: 'Bedrock Converse',
    secret: BEDROCK_TEST_CREDENTIALS.secretAccessKey,
    async start(script, { wrongSecret, sleeps }) {
      const server = await startBedrockServer({ script, accessKeyId: BEDROCK_TEST_CREDENTIALS.accessKeyId, region: 'eu-west-1' });
      const credentials = wrongSecret ? { ...BEDROCK_TEST_CREDENTIALS, accessKeyId: 'AKIDSOMEONEELSE00001' } : BEDROCK_TEST_CREDENTIALS;
      const provider = new BedrockConverseProvider({
        model: 'anthropic.claude-test-v1:0',
        region: 'eu-west-1',
        endpoint: server.baseUrl,
        credentials,
        ...retry,
        sleep: async (ms) => void sleeps.push(ms),
      });
      return { provider, requests: server.requests, problems: server.problems, close: server.close };
    },
    expectedFirstRequest: {
      system: [{ text: 'You change code.' }, { cachePoint: { type: 'default' } }],
      messages: [{ role: 'user', content: [{ text: 'Fix the total function in invoice.py' }, { cachePoint: { type: 'default' } }] }],
      inferenceConfig: { maxTokens: 512 },
      toolConfig: {
        tools: [
          ...TOOLS.map((t) => ({ toolSpec: { name: t.name, description: t.description, inputSchema: { json: t.parameters } } })),
          { cachePoint: { type: 'default' } },
        ],
        toolChoice: { auto: {} },
      },
    },
    cacheMarks: (body) => [
      ...(body.toolConfig?.tools ?? []).flatMap((b: any, i: number) => ('cachePoint' in b ? [`tools[${i}]`] : [])),
      ...(body.system ?? []).flatMap((b: any, i: number) => ('cachePoint' in b ? [`system[${i}]`] : [])),
      ...body.messages.flatMap((m: any, j: number) => m.content.flatMap((b: any, i: number) => ('cachePoint' in b ? [`messages[${j}][${i}]`] : []))),
    ],
    toolResultsOfLastTurn: (body) =>
      body.messages
        .at(-1)
        .content.filter((b: any) => b.toolResult)
        .map((b: any) => ({ id: b.toolResult.toolUseId, text: b.toolResult.content[0].text })),
    recordedResponse: 'converse-tool-use-response',
    rateLimited: [failureFixture('converse-throttling-error'), { status: 503 }],
    overflow: failureFixture('converse-context-overflow-error'),
  },
  {
    name: 'Anthropic Messages',
    secret: API_KEY,
    async start(script, { wrongSecret, sleeps }) {
      const server = await startAnthropicServer({ script, apiKey: API_KEY });
      const provider = new AnthropicMessagesProvider({
        baseUrl: server.baseUrl,
        model: 'claude-test',
        apiKey: wrongSecret ? `${API_KEY}-wrong` : API_KEY,
        ...retry,
        sleep: async (ms) => void sleeps.push(ms),
      });
      return { provider, requests: server.requests, problems: server.problems, close: server.close };
    },
    expectedFirstRequest: {
      model: 'claude-test',
      max_tokens: 512,
      system: [{ type: 'text', text: 'You change code.', cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Fix the total function in invoice.py', cache_control: { type: 'ephemeral' } }] }],
      tools: TOOLS.map((t, i) => ({
        name: t.name,
        description: t.description,
        input_schema: t.parameters,
        ...(i === TOOLS.length - 1 ? { cache_control: { type: 'ephemeral' } } : {}),
      })),
      tool_choice: { type: 'auto' },
    },
    cacheMarks: (body) => [
      ...(body.tools ?? []).flatMap((b: any, i: number) => (b.cache_control ? [`tools[${i}]`] : [])),
      ...(body.system ?? []).flatMap((b: any, i: number) => (b.cache_control ? [`system[${i}]`] : [])),
      ...body.messages.flatMap((m: any, j: number) => m.content.flatMap((b: any, i: number) => (b.cache_control ? [`messages[${j}][${i}]`] : []))),
    ],
    toolResultsOfLastTurn: (body) =>
      body.messages
        .at(-1)
        .content.filter((b: any) => b.type === 'tool_result')
        .map((b: any) => ({ id: b.tool_use_id, text: b.content })),
    recordedResponse: 'messages-tool-use-response',
    rateLimited: [{ status: 429, headers: { 'retry-after': '1' } }, failureFixture('messages-overloaded-error')],
    overflow: failureFixture('messages-prompt-too-long-error'),
  },
];

const open: Started[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

async function failure(promise: Promise<unknown>): Promise<ModelProviderError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ModelProviderError);
  return error as ModelProviderError;
}

describe.each(PROTOCOLS)('$name provider conformance', (protocol) => {
  async function start(script: ScriptedReply[], options: { wrongSecret?: boolean } = {}) {
    const sleeps: number[] = [];
    const started = await protocol.start(script, { ...options, sleeps });
    open.push(started);
    return { ...started, sleeps };
  }

  it('answers in plain text with end_turn and usage, from a well-formed request carrying the tool schemas', async () => {
    const s = await start([answer('Nothing to change.', { promptTokens: 321, completionTokens: 9 })]);

    const response = await s.provider.complete({ messages: MESSAGES, tools: TOOLS, maxTokens: 512 });

    expect(response.message).toEqual({ role: 'assistant', content: 'Nothing to change.' });
    expect(response.stopReason).toBe('end_turn');
    expect(response.usage).toMatchObject({ promptTokens: 321, completionTokens: 9 });
    expect(s.problems()).toEqual([]);
    expect(s.requests[0].body).toEqual(protocol.expectedFirstRequest);
    expect(s.requests[0].raw).not.toContain(protocol.secret);
  });

  it('reports the prompt tokens read from the cache, counted in the prompt tokens', async () => {
    const s = await start([answer('Nothing to change.', { promptTokens: 321, completionTokens: 9, cachedTokens: 300 })]);

    const response = await s.provider.complete({ messages: MESSAGES, tools: TOOLS, maxTokens: 512 });

    expect(response.usage).toEqual({ promptTokens: 321, completionTokens: 9, cachedInputTokens: 300 });
  });

  it('marks the same stable prefix (tools, system prompt, first user turn) for the cache on every call of a growing conversation', async () => {
    const s = await start([callTools({ id: 'call_a', name: 'file_read', arguments: { path: 'invoice.py' } }), answer('Done.')]);

    const first = await s.provider.complete({ messages: MESSAGES, tools: TOOLS, maxTokens: 512 });
    await s.provider.complete({
      messages: [...MESSAGES, first.message, { role: 'tool', tool_call_id: 'call_a', content: 'def total(items):\n    return 0\n' }],
      tools: TOOLS,
      maxTokens: 512,
    });

    expect(s.problems()).toEqual([]);
    const marks = s.requests.map((r) => protocol.cacheMarks(r.body));
    expect(marks[1]).toEqual(marks[0]);
    // The prefix up to the last mark is byte-identical between the calls.
    const prefix = (body: any) => JSON.stringify({ ...body, messages: body.messages.slice(0, 1) });
    expect(prefix(s.requests[1].body)).toBe(prefix(s.requests[0].body));
  });

  it('round-trips tool calls: two calls in one turn, both results sent back in one turn', async () => {
    const s = await start([
      callTools({ id: 'call_a', name: 'file_read', arguments: { path: 'invoice.py' } }, { id: 'call_b', name: 'git_diff', arguments: {} }),
      answer('Done.'),
    ]);

    const first = await s.provider.complete({ messages: MESSAGES, tools: TOOLS, maxTokens: 512 });
    expect(first.stopReason).toBe('tool_use');
    expect(first.message.tool_calls).toEqual([
      { id: 'call_a', type: 'function', function: { name: 'file_read', arguments: '{"path":"invoice.py"}' } },
      { id: 'call_b', type: 'function', function: { name: 'git_diff', arguments: '{}' } },
    ]);
    const history: ChatMessage[] = [
      ...MESSAGES,
      first.message,
      { role: 'tool', tool_call_id: 'call_a', content: 'def total(items):\n    return 0\n' },
      { role: 'tool', tool_call_id: 'call_b', content: '' },
    ];
    const second = await s.provider.complete({ messages: history, tools: TOOLS, maxTokens: 512 });

    expect(second.message.content).toBe('Done.');
    expect(s.problems()).toEqual([]);
    expect(protocol.toolResultsOfLastTurn(s.requests[1].body)).toEqual([
      { id: 'call_a', text: 'def total(items):\n    return 0\n' },
      { id: 'call_b', text: expect.any(String) },
    ]);
  });

  it('parses the recorded-shape tool-use response from the documentation', async () => {
    const s = await start([{ status: 200, body: JSON.stringify(fixture(protocol.recordedResponse)) }]);

    const response = await s.provider.complete({ messages: MESSAGES, tools: TOOLS });

    expect(response.message.content).toBe("I'll read the invoice module first.");
    expect(response.message.tool_calls?.map((c) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual([['file_read', { path: 'src/invoice.py' }]]);
    expect(response.stopReason).toBe('tool_use');
    expect(response.usage).toMatchObject({ promptTokens: 412, completionTokens: 61 });
  });

  it.each([
    ['length', 'max_tokens'],
    ['content_filter', 'refusal'],
  ] as const)('maps the protocol stop reason for %s to %s', async (finishReason, stopReason) => {
    const s = await start([{ content: 'partial', finishReason }]);

    const response = await s.provider.complete({ messages: MESSAGES, tools: TOOLS, maxTokens: 512 });

    expect(response.stopReason).toBe(stopReason);
    expect(response.finishReason).toBeTruthy();
  });

  it('retries rate limits and overload with backoff, then succeeds', async () => {
    const s = await start([...protocol.rateLimited, answer('finally')]);

    const response = await s.provider.complete({ messages: MESSAGES, tools: TOOLS });

    expect(response.message.content).toBe('finally');
    expect(s.requests).toHaveLength(3);
    expect(s.sleeps).toHaveLength(2);
  });

  it('reports a context overflow as MODEL_CONTEXT_OVERFLOW without retrying', async () => {
    const s = await start([protocol.overflow, answer('unreachable')]);

    const error = await failure(s.provider.complete({ messages: MESSAGES, tools: TOOLS }));

    expect(error.reason).toBe('MODEL_CONTEXT_OVERFLOW');
    expect(s.requests).toHaveLength(1);
    expect(s.sleeps).toEqual([]);
  });

  it('reports an authentication failure as MODEL_AUTH_FAILED without retrying', async () => {
    const s = await start([answer('unreachable')], { wrongSecret: true });

    const error = await failure(s.provider.complete({ messages: MESSAGES, tools: [] }));

    expect(error.reason).toBe('MODEL_AUTH_FAILED');
    expect(s.requests).toHaveLength(1);
    expect(s.sleeps).toEqual([]);
  });

  it('never lets the secret into an error, even when the endpoint echoes it', async () => {
    const s = await start([
      {
        status: 400,
        body: JSON.stringify({
          message: `bad request; credential was ${protocol.secret}`,
          error: { type: 'invalid_request_error', message: `key ${protocol.secret}` },
        }),
      },
    ]);

    const error = await failure(s.provider.complete({ messages: MESSAGES, tools: [] }));

    expect(error.reason).toBe('MODEL_REQUEST_REJECTED');
    expect(JSON.stringify({ ...error.toJSON(), message: error.message, stack: error.stack })).not.toContain(protocol.secret);
    for (const r of s.requests) expect(r.raw).not.toContain(protocol.secret);
  });
});

describe('Bedrock Converse specifics', () => {
  it('reports a body the SDK cannot read as MODEL_RESPONSE_INVALID, not retried', async () => {
    const server = await startBedrockServer({ script: [{ status: 200, body: '<html>captive portal</html>' }, answer('unreachable')] });
    open.push({ ...server, provider: undefined as never });
    const sleeps: number[] = [];
    const provider = new BedrockConverseProvider({
      model: 'm',
      region: 'us-east-1',
      endpoint: server.baseUrl,
      credentials: BEDROCK_TEST_CREDENTIALS,
      sleep: async (ms) => void sleeps.push(ms),
    });

    const error = await failure(provider.complete({ messages: MESSAGES, tools: [] }));

    expect(error.reason).toBe('MODEL_RESPONSE_INVALID');
    expect(server.requests).toHaveLength(1);
  });

  it('reports a role without bedrock:InvokeModel on the model as MODEL_AUTH_FAILED, not retried', async () => {
    const server = await startBedrockServer({ script: [failureFixture('converse-access-denied-error'), answer('unreachable')] });
    open.push({ ...server, provider: undefined as never });
    const sleeps: number[] = [];
    const provider = new BedrockConverseProvider({
      model: 'm',
      region: 'us-east-1',
      endpoint: server.baseUrl,
      credentials: BEDROCK_TEST_CREDENTIALS,
      sleep: async (ms) => void sleeps.push(ms),
    });

    const error = await failure(provider.complete({ messages: MESSAGES, tools: [] }));

    expect(error.reason).toBe('MODEL_AUTH_FAILED');
    expect(error.message).toContain('AccessDeniedException');
    expect(sleeps).toEqual([]);
  });

  it('sets no cache points for a model that is not Claude (not every model on Bedrock takes them)', async () => {
    const server = await startBedrockServer({ script: [answer('ok')] });
    open.push({ ...server, provider: undefined as never });
    const provider = new BedrockConverseProvider({
      model: 'meta.llama3-70b-instruct-v1:0',
      region: 'us-east-1',
      endpoint: server.baseUrl,
      credentials: BEDROCK_TEST_CREDENTIALS,
    });

    await provider.complete({ messages: MESSAGES, tools: TOOLS, maxTokens: 512 });

    expect(server.problems()).toEqual([]);
    expect(server.requests[0].raw).not.toContain('cachePoint');
  });

  it('omits toolConfig without tools and inferenceConfig without a cap', async () => {
    const server = await startBedrockServer({ script: [answer('ok')] });
    open.push({ ...server, provider: undefined as never });
    const provider = new BedrockConverseProvider({ model: 'm', region: 'us-east-1', endpoint: server.baseUrl, credentials: BEDROCK_TEST_CREDENTIALS });

    await provider.complete({ messages: [{ role: 'user', content: 'hi' }], tools: [] });

    expect(server.problems()).toEqual([]);
    expect(server.requests[0].body).toEqual({ messages: [{ role: 'user', content: [{ text: 'hi' }] }] });
  });
});
