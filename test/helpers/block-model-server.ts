import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createH2cServer, type Http2ServerRequest, type Http2ServerResponse, type Http2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { ScriptedFailure, ScriptedMessage, ScriptedReply } from './scripted-model-server.js';

/**
 * What the Bedrock Converse and Anthropic Messages loopback servers share: both speak in turns
 * of content blocks that must alternate user / assistant, with every tool use answered by a
 * tool result in the very next user turn. Each protocol parses its wire body into these neutral
 * turns; the checks and the chat-completions view handed to scripts are made once here, so one
 * script (the scripted OpenAI server's `ScriptedReply`) runs on all three protocols.
 */
export type NeutralBlock =
  | { kind: 'text'; text: unknown }
  | { kind: 'tool_use'; id: unknown; name: unknown; input: unknown }
  | { kind: 'tool_result'; id: unknown; text: unknown }
  | { kind: 'unknown'; what: string };

export interface NeutralTurn {
  role: unknown;
  blocks: NeutralBlock[];
}

export interface NeutralRequest {
  model: string;
  system: string[];
  turns: NeutralTurn[];
  tools: { name: unknown; description: unknown; schema: unknown }[];
  maxTokens?: number;
}

export interface BlockRecordedRequest {
  index: number;
  /** The raw body as received, for canary scans. */
  raw: string;
  /** The wire body as parsed. */
  body: any;
  /** The same request in chat-completions shape (what scripts see). */
  chat: any;
  headers: IncomingMessage['headers'];
  url: string;
  /** Why the request is malformed; empty when it is well formed. */
  problems: string[];
}

export type BlockScript = ScriptedReply[] | ((chat: any, index: number, request: BlockRecordedRequest) => ScriptedReply);

export interface BlockModelServer {
  baseUrl: string;
  requests: BlockRecordedRequest[];
  /** Problems of every malformed request, prefixed with its index. */
  problems(): string[];
  close(): Promise<void>;
}

export interface WireProtocol {
  /** The model id when the method and path are the protocol's endpoint, else undefined. */
  route(method: string, url: string): { model?: string } | undefined;
  /** An auth failure to answer with, or undefined when the headers pass. */
  authFailure(headers: IncomingMessage['headers']): { status: number; body: string; headers?: Record<string, string> } | undefined;
  /** Wire body -> neutral request, plus problems only this protocol has (header checks included). */
  parse(body: any, routeModel: string | undefined, headers: IncomingMessage['headers']): { request: NeutralRequest; problems: string[] };
  /** How this protocol answers a malformed request. */
  rejection(problems: string[]): { status: number; body: string; headers?: Record<string, string> };
  /** A scripted failure with a bare status, dressed as this protocol dresses errors. */
  failure(reply: ScriptedFailure): { status: number; body: string; headers?: Record<string, string> };
  /** A scripted turn as this protocol's success body. */
  success(reply: ScriptedMessage, index: number, model: string, finishReason: string): unknown;
  /** Chat-completions finish reasons (stop, tool_calls, length, content_filter) in this protocol's words. */
  stopReasons: Record<string, string>;
  /** Tool-result blocks must lead their user turn (Anthropic). */
  toolResultsFirst: boolean;
}

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * `http2`: answer HTTP/2 over cleartext (prior knowledge), as the AWS SDK's Bedrock runtime
 * client speaks HTTP/2 by default.
 */
export async function startBlockModelServer(protocol: WireProtocol, script: BlockScript, options: { http2?: boolean } = {}): Promise<BlockModelServer> {
  const requests: BlockRecordedRequest[] = [];
  let served = 0;

  const handle = async (req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse) => {
    const raw = await readBody(req);
    const record: BlockRecordedRequest = {
      index: requests.length,
      raw,
      body: undefined,
      chat: undefined,
      headers: req.headers as IncomingMessage['headers'],
      url: req.url ?? '',
      problems: [],
    };
    requests.push(record);
    const send = (answer: { status: number; body: string; headers?: Record<string, string> }) => reply(res, answer);

    const route = protocol.route(req.method ?? '', req.url ?? '');
    if (!route) {
      record.problems.push(`unexpected ${req.method} ${req.url}`);
      return send({ status: 404, body: JSON.stringify({ message: 'not found' }) });
    }
    const denied = protocol.authFailure(record.headers);
    if (denied) return send(denied);
    try {
      record.body = JSON.parse(raw);
    } catch {
      record.problems.push('body is not JSON');
      return send(protocol.rejection(record.problems));
    }
    const { request, problems } = protocol.parse(record.body, route.model, record.headers);
    record.problems.push(...problems, ...validateTurns(request, protocol.toolResultsFirst));
    if (record.problems.length > 0) return send(protocol.rejection(record.problems));
    record.chat = chatView(request);

    const scripted = typeof script === 'function' ? script(record.chat, served, record) : script[served];
    served += 1;
    if (scripted?.delayMs) await new Promise((resolve) => setTimeout(resolve, scripted.delayMs));
    if (res.destroyed) return;
    if (!scripted) return send(protocol.failure({ status: 500, body: undefined }));
    if ('status' in scripted)
      return send(scripted.body !== undefined ? { status: scripted.status, body: scripted.body, headers: scripted.headers } : protocol.failure(scripted));
    const toolCalls = scripted.toolCalls?.length ?? 0;
    const finish = scripted.finishReason ?? (toolCalls > 0 ? 'tool_calls' : 'stop');
    send({ status: 200, body: JSON.stringify(protocol.success(scripted, served - 1, request.model, protocol.stopReasons[finish] ?? finish)) });
  };

  const sessions = new Set<Http2Session>();
  const server = options.http2 ? createH2cServer((req, res) => void handle(req, res)) : createServer((req, res) => void handle(req, res));
  server.on('session', (session: Http2Session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    problems: () => requests.flatMap((r) => r.problems.map((p) => `#${r.index}: ${p}`)),
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const session of sessions) session.destroy();
        if ('closeAllConnections' in server) server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** Declared tools: valid, distinct names, string descriptions, object input schemas. Adds the names to `names`. */
function declaredToolProblems(tools: NeutralRequest['tools'], names: Set<string>): string[] {
  const problems: string[] = [];
  for (const [i, tool] of tools.entries()) {
    if (typeof tool.name !== 'string' || !TOOL_NAME.test(tool.name)) problems.push(`tools[${i}].name invalid: ${String(tool.name)}`);
    else if (names.has(tool.name)) problems.push(`tools[${i}].name duplicated: ${tool.name}`);
    else names.add(tool.name);
    if (tool.description !== undefined && typeof tool.description !== 'string') problems.push(`tools[${i}].description must be a string`);
    const schema = tool.schema as { type?: unknown } | undefined;
    if (!schema || typeof schema !== 'object' || schema.type !== 'object') problems.push(`tools[${i}] input schema must be a JSON object schema`);
  }
  return problems;
}

type Block = NeutralTurn['blocks'][number];

/** What the checks of one turn's blocks share: the turn, the declared tools, the pending tool uses, and what the turn answered. */
interface TurnScan {
  i: number;
  role: string;
  names: Set<string>;
  anyTools: boolean;
  toolResultsFirst: boolean;
  pending: string[];
  answered: Set<string>;
  seenOther: boolean;
}

function toolUseProblems(block: Extract<Block, { kind: 'tool_use' }>, t: TurnScan): string[] {
  const problems: string[] = [];
  if (t.role !== 'assistant') problems.push(`messages[${t.i}]: tool use outside an assistant turn`);
  if (typeof block.id !== 'string' || block.id === '' || typeof block.name !== 'string') problems.push(`messages[${t.i}]: malformed tool use`);
  if (!block.input || typeof block.input !== 'object' || Array.isArray(block.input)) problems.push(`messages[${t.i}]: tool use input must be an object`);
  if (typeof block.name === 'string' && !t.names.has(block.name) && t.anyTools) problems.push(`messages[${t.i}]: tool use of undeclared tool ${block.name}`);
  return problems;
}

function toolResultProblems(block: Extract<Block, { kind: 'tool_result' }>, t: TurnScan): string[] {
  const problems: string[] = [];
  if (t.role !== 'user') problems.push(`messages[${t.i}]: tool result outside a user turn`);
  if (t.toolResultsFirst && t.seenOther) problems.push(`messages[${t.i}]: tool results must come first in the turn`);
  if (typeof block.text !== 'string') problems.push(`messages[${t.i}]: tool result content must be text`);
  if (typeof block.id !== 'string' || !t.pending.includes(block.id)) problems.push(`messages[${t.i}]: tool result for unknown tool use ${String(block.id)}`);
  else t.answered.add(block.id);
  return problems;
}

function blockProblems(block: Block, t: TurnScan): string[] {
  switch (block.kind) {
    case 'unknown':
      return [`messages[${t.i}]: unknown content block ${block.what}`];
    case 'text':
      t.seenOther = true;
      return typeof block.text !== 'string' || block.text.trim() === '' ? [`messages[${t.i}]: text block must be a non-empty string`] : [];
    case 'tool_use':
      t.seenOther = true;
      return toolUseProblems(block, t);
    case 'tool_result':
      return toolResultProblems(block, t);
  }
  return [];
}

/** One turn's checks; returns the tool uses still pending after it. */
function turnProblems(request: NeutralRequest, i: number, t: Omit<TurnScan, 'i' | 'role' | 'answered' | 'seenOther'>, problems: string[]): string[] {
  const turn = request.turns[i];
  if (i > 0 && request.turns[i - 1].role === turn.role) problems.push(`messages[${i}]: two ${turn.role} turns in a row`);
  if (turn.blocks.length === 0) problems.push(`messages[${i}].content is empty`);
  const scan: TurnScan = { ...t, i, role: turn.role as string, answered: new Set<string>(), seenOther: false };
  for (const block of turn.blocks) problems.push(...blockProblems(block, scan));
  if (turn.role === 'user') {
    const missing = t.pending.filter((id) => !scan.answered.has(id));
    if (missing.length > 0) problems.push(`messages[${i}]: tool uses ${missing.join(', ')} have no tool result`);
    return [];
  }
  if (t.pending.length > 0) problems.push(`messages[${i}]: tool uses ${t.pending.join(', ')} have no tool result`);
  return turn.blocks.flatMap((b) => (b.kind === 'tool_use' && typeof b.id === 'string' ? [b.id] : []));
}

/** The checks both block APIs make: alternation, tool use / tool result pairing, non-empty text, object tool schemas. */
export function validateTurns(request: NeutralRequest, toolResultsFirst: boolean): string[] {
  const problems: string[] = [];
  if (request.turns.length === 0) return ['messages missing or empty'];
  if (request.turns[0].role !== 'user') problems.push('first message must have role user');
  const names = new Set<string>();
  problems.push(...declaredToolProblems(request.tools, names));
  let pending: string[] = [];
  for (const [i, turn] of request.turns.entries()) {
    if (turn.role !== 'user' && turn.role !== 'assistant') {
      problems.push(`messages[${i}].role invalid: ${String(turn.role)}`);
      continue;
    }
    pending = turnProblems(request, i, { names, anyTools: request.tools.length > 0, toolResultsFirst, pending }, problems);
  }
  if (pending.length > 0) problems.push(`last tool uses ${pending.join(', ')} have no tool result`);
  if (request.maxTokens !== undefined && (!Number.isInteger(request.maxTokens) || request.maxTokens < 1))
    problems.push('max tokens must be a positive integer');
  return problems;
}

/** The request as the chat-completions server would have seen it, so scripts written for it read it the same way. */
export function chatView(request: NeutralRequest): any {
  const messages: any[] = request.system.map((text) => ({ role: 'system', content: text }));
  for (const turn of request.turns) {
    if (turn.role === 'assistant') {
      const text = turn.blocks.flatMap((b) => (b.kind === 'text' ? [String(b.text)] : [])).join('');
      const calls = turn.blocks.flatMap((b) =>
        b.kind === 'tool_use' ? [{ id: b.id, type: 'function', function: { name: b.name, arguments: JSON.stringify(b.input) } }] : [],
      );
      messages.push({ role: 'assistant', content: text || null, ...(calls.length > 0 ? { tool_calls: calls } : {}) });
    } else {
      for (const b of turn.blocks) {
        if (b.kind === 'tool_result') messages.push({ role: 'tool', tool_call_id: b.id, content: b.text });
        if (b.kind === 'text') messages.push({ role: 'user', content: b.text });
      }
    }
  }
  const tools = request.tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.schema } }));
  return {
    model: request.model,
    messages,
    ...(tools.length > 0 ? { tools } : {}),
    ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
  };
}

/** Scripted tool-call arguments as an object (scripts may give a JSON string). */
export function scriptedInput(args: unknown): unknown {
  if (typeof args !== 'string') return args;
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}

function reply(res: ServerResponse | Http2ServerResponse, answer: { status: number; body: string; headers?: Record<string, string> }): void {
  (res as ServerResponse).writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
  res.end(answer.body);
}

function readBody(req: IncomingMessage | Http2ServerRequest): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
