import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An assistant turn the server answers with. */
export interface ScriptedMessage {
  content?: string | null;
  toolCalls?: { id?: string; name: string; arguments: unknown }[];
  /** `cachedTokens`: of the prompt tokens, how many the provider read from its prompt cache (each protocol reports them its own way). */
  usage?: { promptTokens: number; completionTokens: number; cachedTokens?: number };
  finishReason?: string;
  /** A structured-output refusal: sent as `message.refusal` (content stays null unless given). */
  refusal?: string;
  /** Wait this long before answering (timeouts). */
  delayMs?: number;
}

/** An HTTP failure the server answers with instead (rate limit, server error, garbage). */
export interface ScriptedFailure {
  status: number;
  body?: string;
  headers?: Record<string, string>;
  delayMs?: number;
}

export type ScriptedReply = ScriptedMessage | ScriptedFailure;

export interface RecordedRequest {
  index: number;
  /** The raw body as received, for canary scans. */
  raw: string;
  body: any;
  authorization?: string;
  /** Why the request is malformed; empty when it is well formed. */
  problems: string[];
}

export interface ScriptedModelServer {
  baseUrl: string;
  requests: RecordedRequest[];
  /** Problems of every malformed request, prefixed with its index. */
  problems(): string[];
  close(): Promise<void>;
}

export interface ScriptedModelServerOptions {
  /** Replies in order, or a function of the parsed request body, its index and the recorded request (headers included). */
  script: ScriptedReply[] | ((body: any, index: number, request: RecordedRequest) => ScriptedReply);
  /** When set, requests without `Authorization: Bearer <apiKey>` get 401. */
  apiKey?: string;
  /** Answer `max_tokens` as OpenAI does for its reasoning models: 400 unsupported_parameter (they take `max_completion_tokens`). */
  refuseMaxTokens?: boolean;
}

const FUNCTION_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const ROLES = new Set(['system', 'user', 'assistant', 'tool']);

/**
 * A real HTTP server on 127.0.0.1 (random port) that speaks the chat-completions API from a
 * script. It records every request and checks that it is well formed (messages, tool-call
 * pairing, tools schema); a malformed request gets 400, as a strict provider would answer.
 */
export async function startScriptedModelServer(options: ScriptedModelServerOptions): Promise<ScriptedModelServer> {
  const requests: RecordedRequest[] = [];
  let served = 0;

  const server: Server = createServer(async (req, res) => {
    const raw = await readBody(req);
    const index = requests.length;
    const record: RecordedRequest = { index, raw, body: undefined, authorization: req.headers.authorization, problems: [] };
    requests.push(record);
    const send = (status: number, payload: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(payload);
    };

    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      record.problems.push(`unexpected ${req.method} ${req.url}`);
      return send(404, JSON.stringify({ error: { message: 'not found' } }));
    }
    if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      return send(401, JSON.stringify({ error: { message: 'invalid api key', type: 'invalid_request_error' } }));
    }
    try {
      record.body = JSON.parse(raw);
    } catch {
      record.problems.push('body is not JSON');
      return send(400, JSON.stringify({ error: { message: 'body is not JSON' } }));
    }
    if (options.refuseMaxTokens && record.body?.max_tokens !== undefined) {
      const message = "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.";
      record.problems.push(message);
      return send(400, JSON.stringify({ error: { message, type: 'invalid_request_error', param: 'max_tokens', code: 'unsupported_parameter' } }));
    }
    record.problems.push(...validateRequest(record.body));
    if (record.problems.length > 0) return send(400, JSON.stringify({ error: { message: record.problems.join('; ') } }));

    const reply = typeof options.script === 'function' ? options.script(record.body, served, record) : options.script[served];
    served += 1;
    if (reply?.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    if (res.destroyed) return;
    if (!reply) return send(500, JSON.stringify({ error: { message: `script has no reply for request ${served - 1}` } }));
    if ('status' in reply) return send(reply.status, reply.body ?? JSON.stringify({ error: { message: `scripted ${reply.status}` } }), reply.headers);
    send(200, JSON.stringify(completion(reply, served - 1, record.body.model)));
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    problems: () => requests.flatMap((r) => r.problems.map((p) => `#${r.index}: ${p}`)),
    // Idempotent: a test may close it early to make the endpoint refuse connections.
    close: () =>
      new Promise<void>((resolve, reject) => {
        if (!server.listening) return resolve();
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** Shorthand for a scripted turn that calls tools. */
export function callTools(...calls: { name: string; arguments: unknown; id?: string }[]): ScriptedMessage {
  return { content: null, toolCalls: calls };
}

/** Shorthand for a scripted final answer. */
export function answer(content: string, usage?: ScriptedMessage['usage']): ScriptedMessage {
  return { content, usage };
}

function completion(reply: ScriptedMessage, index: number, model: string) {
  const toolCalls = (reply.toolCalls ?? []).map((call, i) => ({
    id: call.id ?? `call_${index}_${i}`,
    type: 'function',
    function: { name: call.name, arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments) },
  }));
  const usage = reply.usage ?? { promptTokens: 100, completionTokens: 20 };
  return {
    id: `chatcmpl-${index}`,
    object: 'chat.completion',
    created: 1_700_000_000,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: reply.content ?? null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
          ...(reply.refusal !== undefined ? { refusal: reply.refusal } : {}),
        },
        finish_reason: reply.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
      },
    ],
    usage: {
      prompt_tokens: usage.promptTokens,
      completion_tokens: usage.completionTokens,
      total_tokens: usage.promptTokens + usage.completionTokens,
      // OpenAI counts cached tokens inside prompt_tokens and says how many in the details.
      ...(usage.cachedTokens !== undefined ? { prompt_tokens_details: { cached_tokens: usage.cachedTokens } } : {}),
    },
  };
}

/** `tools`: a non-empty array of functions with valid, distinct names and object parameter schemas. */
function toolProblems(tools: any): string[] {
  if (tools === undefined) return [];
  if (!Array.isArray(tools) || tools.length === 0) return ['tools must be a non-empty array when present'];
  const problems: string[] = [];
  const toolNames = new Set<string>();
  for (const [i, tool] of tools.entries()) {
    if (tool?.type !== 'function') problems.push(`tools[${i}].type must be "function"`);
    const fn = tool?.function;
    if (typeof fn?.name !== 'string' || !FUNCTION_NAME.test(fn.name)) problems.push(`tools[${i}].function.name invalid: ${String(fn?.name)}`);
    else if (toolNames.has(fn.name)) problems.push(`tools[${i}].function.name duplicated: ${fn.name}`);
    else toolNames.add(fn.name);
    if (fn?.description !== undefined && typeof fn.description !== 'string') problems.push(`tools[${i}].function.description must be a string`);
    if (fn?.parameters?.type !== 'object') problems.push(`tools[${i}].function.parameters must be an object schema`);
  }
  return problems;
}

/** `tool_choice` (only with tools) and the completion cap (`max_tokens` or `max_completion_tokens`, not both). */
function optionProblems(body: any): string[] {
  const problems: string[] = [];
  if (body.tool_choice !== undefined) {
    if (body.tools === undefined) problems.push('tool_choice without tools');
    if (!['auto', 'none', 'required'].includes(body.tool_choice) && typeof body.tool_choice !== 'object') problems.push('tool_choice invalid');
  }
  for (const field of ['max_tokens', 'max_completion_tokens'])
    if (body[field] !== undefined && (!Number.isInteger(body[field]) || body[field] < 1)) problems.push(`${field} must be a positive integer`);
  if (body.max_tokens !== undefined && body.max_completion_tokens !== undefined) problems.push('max_tokens and max_completion_tokens are exclusive');
  return problems;
}

/** An assistant message: string or null content, content or tool calls, well-formed tool calls (whose ids become pending). */
function assistantProblems(m: any, i: number, pending: Set<string>): string[] {
  const problems: string[] = [];
  if (m.content !== null && m.content !== undefined && typeof m.content !== 'string') problems.push(`messages[${i}].content must be a string or null`);
  if ((m.content === null || m.content === undefined) && !m.tool_calls?.length)
    problems.push(`messages[${i}]: assistant message without content or tool calls`);
  for (const call of m.tool_calls ?? []) {
    if (typeof call?.id !== 'string' || call.type !== 'function' || typeof call.function?.name !== 'string' || typeof call.function?.arguments !== 'string') {
      problems.push(`messages[${i}]: malformed tool call`);
    } else pending.add(call.id);
  }
  return problems;
}

/** One message, given the tool calls still waiting for their tool message (updated). */
function messageProblems(m: any, i: number, pending: Set<string>): string[] {
  if (!ROLES.has(m?.role)) return [`messages[${i}].role invalid: ${String(m?.role)}`];
  const problems: string[] = [];
  if (m.role !== 'tool' && pending.size > 0) problems.push(`messages[${i}]: tool calls ${[...pending].join(', ')} have no tool message`);
  if (m.role !== 'tool') pending.clear();
  if (m.role === 'assistant') problems.push(...assistantProblems(m, i, pending));
  else if (m.role === 'tool') {
    if (typeof m.content !== 'string') problems.push(`messages[${i}].content must be a string`);
    if (!pending.delete(m.tool_call_id)) problems.push(`messages[${i}]: tool message answers unknown call ${String(m.tool_call_id)}`);
  } else if (typeof m.content !== 'string') problems.push(`messages[${i}].content must be a string`);
  return problems;
}

/** The checks a strict chat-completions endpoint makes. */
export function validateRequest(body: any): string[] {
  const problems: string[] = [];
  if (!body || typeof body !== 'object') return ['body is not an object'];
  if (typeof body.model !== 'string' || body.model === '') problems.push('model missing');
  if (!Array.isArray(body.messages) || body.messages.length === 0) return [...problems, 'messages missing or empty'];
  problems.push(...toolProblems(body.tools), ...optionProblems(body));
  const pending = new Set<string>();
  for (const [i, m] of body.messages.entries()) problems.push(...messageProblems(m, i, pending));
  if (pending.size > 0) problems.push(`last tool calls ${[...pending].join(', ')} have no tool message`);
  if (body.messages[0]?.role !== 'system' && body.messages[0]?.role !== 'user') problems.push('first message must be system or user');
  return problems;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
