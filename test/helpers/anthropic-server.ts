import { scriptedInput, startBlockModelServer, type BlockModelServer, type BlockScript, type NeutralBlock, type WireProtocol } from './block-model-server.js';
import type { ScriptedFailure } from './scripted-model-server.js';

/**
 * A loopback Anthropic Messages API that answers `POST /v1/messages` as documented: `x-api-key`
 * and `anthropic-version` headers required, `max_tokens` required, top-level `system`,
 * alternating `messages` whose content is a string or `text` / `tool_use` / `tool_result`
 * blocks (tool results first in their user turn), `tools[].input_schema`, errors as
 * `{"type":"error","error":{"type","message"}}`. Scripts are the scripted OpenAI server's.
 */
export interface AnthropicServerOptions {
  script: BlockScript;
  /** Requests without this `x-api-key` get 401 authentication_error. */
  apiKey: string;
}

const ERROR_TYPES: Record<number, { type: string; message: string }> = {
  400: { type: 'invalid_request_error', message: 'invalid request' },
  401: { type: 'authentication_error', message: 'invalid x-api-key' },
  403: { type: 'permission_error', message: 'Your API key does not have permission to use the specified resource.' },
  404: { type: 'not_found_error', message: 'The requested resource could not be found.' },
  413: { type: 'request_too_large', message: 'Request exceeds the maximum allowed number of bytes.' },
  429: { type: 'rate_limit_error', message: 'Number of request tokens has exceeded your per-minute rate limit' },
  500: { type: 'api_error', message: 'An unexpected error has occurred internal to Anthropic’s systems.' },
  529: { type: 'overloaded_error', message: 'Overloaded' },
};

export function anthropicError(status: number, type: string, message: string) {
  return { status, body: JSON.stringify({ type: 'error', error: { type, message }, request_id: 'req_loopback' }) };
}

function anthropicProtocol(options: AnthropicServerOptions): WireProtocol {
  return {
    route: (method, url) => (method === 'POST' && url === '/v1/messages' ? {} : undefined),
    authFailure: (headers) => (headers['x-api-key'] === options.apiKey ? undefined : anthropicError(401, 'authentication_error', 'invalid x-api-key')),
    parse(body, _model, headers) {
      const problems: string[] = [];
      if (headers['anthropic-version'] !== '2023-06-01')
        problems.push(`anthropic-version header must be 2023-06-01, got ${String(headers['anthropic-version'])}`);
      if (headers.authorization !== undefined) problems.push('the key belongs in x-api-key, not Authorization');
      problems.push(...cacheControlProblems(body));
      if (typeof body.model !== 'string' || body.model === '') problems.push('model: Field required');
      if (body.max_tokens === undefined) problems.push('max_tokens: Field required');
      const system: string[] = [];
      if (typeof body.system === 'string') system.push(body.system);
      else if (Array.isArray(body.system)) for (const b of body.system) system.push(String(b?.text));
      else if (body.system !== undefined) problems.push('system must be a string or text blocks');
      if (body.messages?.some((m: any) => m?.role === 'system')) problems.push('system is a top-level field, not a message role');
      const tools = (body.tools ?? []).map((t: any) => ({ name: t?.name, description: t?.description, schema: t?.input_schema }));
      if (body.tool_choice !== undefined && !['auto', 'any', 'tool', 'none'].includes(body.tool_choice?.type)) problems.push('tool_choice.type invalid');
      const turns = Array.isArray(body.messages)
        ? body.messages.map((m: any) => ({
            role: m?.role,
            blocks:
              typeof m?.content === 'string'
                ? [{ kind: 'text', text: m.content } as NeutralBlock]
                : Array.isArray(m?.content)
                  ? m.content.map(neutralBlock)
                  : [],
          }))
        : [];
      return { request: { model: String(body.model ?? ''), system, turns, tools, maxTokens: body.max_tokens }, problems };
    },
    rejection: (problems) => anthropicError(400, 'invalid_request_error', problems.join('; ')),
    failure(reply: ScriptedFailure) {
      const known = ERROR_TYPES[reply.status] ?? { type: 'api_error', message: `scripted ${reply.status}` };
      return { ...anthropicError(reply.status, known.type, known.message), headers: reply.headers };
    },
    success(reply, index, model, stopReason) {
      const content = [
        ...(reply.content ? [{ type: 'text', text: reply.content }] : []),
        ...(reply.toolCalls ?? []).map((call, i) => ({
          type: 'tool_use',
          id: call.id ?? `toolu_${index}_${i}`,
          name: call.name,
          input: scriptedInput(call.arguments),
        })),
      ];
      const usage = reply.usage ?? { promptTokens: 100, completionTokens: 20 };
      const cached = usage.cachedTokens ?? 0;
      return {
        id: `msg_loopback_${index}`,
        type: 'message',
        role: 'assistant',
        model,
        content,
        stop_reason: stopReason,
        stop_sequence: null,
        // input_tokens counts only what came after the last cache breakpoint read or written.
        usage: {
          input_tokens: usage.promptTokens - cached,
          output_tokens: usage.completionTokens,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: cached,
        },
      };
    },
    stopReasons: { stop: 'end_turn', tool_calls: 'tool_use', length: 'max_tokens', content_filter: 'refusal' },
    toolResultsFirst: true,
  };
}

/** The Messages API allows at most four blocks with cache_control per request. */
const MAX_BREAKPOINTS = 4;

/** `cache_control` on tools, system blocks and message blocks: `{type: 'ephemeral'}` (with an optional ttl), at most four. */
function cacheControlProblems(body: any): string[] {
  const blocks: any[] = [
    ...(Array.isArray(body.tools) ? body.tools : []),
    ...(Array.isArray(body.system) ? body.system : []),
    ...(Array.isArray(body.messages) ? body.messages.flatMap((m: any) => (Array.isArray(m?.content) ? m.content : [])) : []),
  ];
  const marked = blocks.filter((b) => b && typeof b === 'object' && 'cache_control' in b);
  const problems = marked
    .filter((b) => b.cache_control?.type !== 'ephemeral' || Object.keys(b.cache_control).some((k) => k !== 'type' && k !== 'ttl'))
    .map(() => 'cache_control must be {"type":"ephemeral"}');
  if (marked.length > MAX_BREAKPOINTS) problems.push(`A maximum of ${MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${marked.length}.`);
  return problems;
}

function neutralBlock(block: any): NeutralBlock {
  switch (block?.type) {
    case 'text':
      return { kind: 'text', text: block.text };
    case 'tool_use':
      return { kind: 'tool_use', id: block.id, name: block.name, input: block.input };
    case 'tool_result': {
      const text =
        typeof block.content === 'string' ? block.content : Array.isArray(block.content) ? block.content.map((c: any) => c?.text).join('') : undefined;
      return { kind: 'tool_result', id: block.tool_use_id, text };
    }
    default:
      return { kind: 'unknown', what: String(block?.type) };
  }
}

export function startAnthropicServer(options: AnthropicServerOptions): Promise<BlockModelServer> {
  return startBlockModelServer(anthropicProtocol(options), options.script);
}
