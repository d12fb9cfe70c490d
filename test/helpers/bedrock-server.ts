import type { IncomingMessage } from 'node:http';
import {
  scriptedInput,
  startBlockModelServer,
  type BlockModelServer,
  type BlockScript,
  type NeutralBlock,
  type NeutralRequest,
  type WireProtocol,
} from './block-model-server.js';
import type { ScriptedFailure } from './scripted-model-server.js';

/**
 * A loopback Amazon Bedrock runtime that answers `POST /model/{modelId}/converse` as the
 * Converse API documents it: SigV4-signed requests (the `Authorization: AWS4-HMAC-SHA256
 * Credential=<key id>/<date>/<region>/bedrock/aws4_request` header is checked, the signature is
 * not), `system` text blocks, alternating `messages` of `text` / `toolUse` / `toolResult`
 * blocks, `toolConfig.tools[].toolSpec.inputSchema.json`, errors as `x-amzn-ErrorType` plus
 * `{"message"}`. Scripts are the scripted OpenAI server's (`ScriptedReply`), seeing requests in
 * the chat-completions shape.
 */
export interface BedrockServerOptions {
  script: BlockScript;
  /** Requests signed with another access key id get 403 UnrecognizedClientException. */
  accessKeyId?: string;
  region?: string;
}

export const BEDROCK_TEST_CREDENTIALS = { accessKeyId: 'AKIDLOOPBACKTEST0001', secretAccessKey: 'loopback-secret-access-key-0123456789abcd' };

/** The exception Bedrock raises for a status, when a script gives a bare status. */
const EXCEPTIONS: Record<number, { type: string; message: string }> = {
  400: { type: 'ValidationException', message: 'The request is invalid.' },
  403: { type: 'AccessDeniedException', message: "You don't have access to the model with the specified model ID." },
  404: { type: 'ResourceNotFoundException', message: 'The model is not found.' },
  408: { type: 'ModelTimeoutException', message: 'Model has timed out in processing the request.' },
  424: { type: 'ModelErrorException', message: 'The model failed to process the request.' },
  429: { type: 'ThrottlingException', message: 'Too many requests, please wait before trying again.' },
  500: { type: 'InternalServerException', message: 'An internal server error occurred.' },
  503: { type: 'ServiceUnavailableException', message: 'The service is unavailable.' },
};

export function bedrockError(status: number, type: string, message: string) {
  return { status, body: JSON.stringify({ message }), headers: { 'x-amzn-errortype': type } };
}

function bedrockProtocol(options: BedrockServerOptions): WireProtocol {
  const region = options.region ?? 'us-east-1';
  return {
    route(method, url) {
      const match = /^\/model\/([^/]+)\/converse$/.exec(url);
      return method === 'POST' && match ? { model: decodeURIComponent(match[1]) } : undefined;
    },
    authFailure(headers) {
      const credential = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=[^,]+, Signature=[0-9a-f]{64}$/.exec(
        String(headers.authorization ?? ''),
      );
      if (!credential || !headers['x-amz-date']) return bedrockError(403, 'MissingAuthenticationTokenException', 'Missing Authentication Token');
      if (options.accessKeyId !== undefined && credential[1] !== options.accessKeyId)
        return bedrockError(403, 'UnrecognizedClientException', 'The security token included in the request is invalid.');
      if (credential[3] !== region || credential[4] !== 'bedrock')
        return bedrockError(
          403,
          'InvalidSignatureException',
          `Credential should be scoped to a valid region and service bedrock, not ${credential[3]}/${credential[4]}.`,
        );
      return undefined;
    },
    parse(body, model, headers: IncomingMessage['headers']) {
      const problems: string[] = [];
      if (!String(headers['content-type'] ?? '').startsWith('application/json')) problems.push('content-type must be application/json');
      if (body.modelId !== undefined) problems.push('modelId belongs in the path, not the body');
      problems.push(...cachePointProblems(body));
      const system = systemBlocks(withoutCachePoints(body.system), problems);
      const tools = converseTools(body.toolConfig && { ...body.toolConfig, tools: withoutCachePoints(body.toolConfig.tools) }, problems);
      for (const key of Object.keys(body)) if (!CONVERSE_FIELDS.includes(key)) problems.push(`unknown field ${key}`);
      if (!Array.isArray(body.messages)) return { request: { model: model ?? '', system, turns: [], tools, maxTokens: undefined }, problems };
      const turns = body.messages.map((m: any) => ({
        role: m?.role,
        blocks: Array.isArray(m?.content) ? withoutCachePoints(m.content).map(neutralBlock) : [],
      }));
      const usesTools = turns.some((t: { blocks: NeutralBlock[] }) => t.blocks.some((b) => b.kind === 'tool_use' || b.kind === 'tool_result'));
      if (usesTools && body.toolConfig === undefined) problems.push('The toolConfig field must be defined when using toolUse and toolResult content blocks.');
      return { request: { model: model ?? '', system, turns, tools, maxTokens: body.inferenceConfig?.maxTokens }, problems };
    },
    rejection: (problems) => bedrockError(400, 'ValidationException', problems.join('; ')),
    failure(reply: ScriptedFailure) {
      const known = EXCEPTIONS[reply.status] ?? { type: 'InternalServerException', message: `scripted ${reply.status}` };
      const error = bedrockError(reply.status, known.type, known.message);
      return { ...error, headers: { ...error.headers, ...reply.headers } };
    },
    success(reply, index, _model, stopReason) {
      const content = [
        ...(reply.content ? [{ text: reply.content }] : []),
        ...(reply.toolCalls ?? []).map((call, i) => ({
          toolUse: { toolUseId: call.id ?? `tooluse_${index}_${i}`, name: call.name, input: scriptedInput(call.arguments) },
        })),
      ];
      const usage = reply.usage ?? { promptTokens: 100, completionTokens: 20 };
      return {
        output: { message: { role: 'assistant', content } },
        stopReason,
        // inputTokens leaves out what was read from (or written to) the cache; totalTokens has it all.
        usage: {
          inputTokens: usage.promptTokens - (usage.cachedTokens ?? 0),
          outputTokens: usage.completionTokens,
          totalTokens: usage.promptTokens + usage.completionTokens,
          ...(usage.cachedTokens !== undefined ? { cacheReadInputTokens: usage.cachedTokens, cacheWriteInputTokens: 0 } : {}),
        },
        metrics: { latencyMs: 42 },
      };
    },
    stopReasons: { stop: 'end_turn', tool_calls: 'tool_use', length: 'max_tokens', content_filter: 'content_filtered' },
    toolResultsFirst: false,
  };
}

/** The top-level fields of a Converse request. */
const CONVERSE_FIELDS = ['messages', 'system', 'inferenceConfig', 'toolConfig', 'additionalModelRequestFields', 'guardrailConfig'];

/** The texts of `system` (an array of non-empty text blocks when present); what is wrong goes to `problems`. */
function systemBlocks(blocks: any, problems: string[]): string[] {
  const system: string[] = [];
  if (blocks === undefined) return system;
  if (!Array.isArray(blocks)) problems.push('system must be an array of blocks');
  else
    for (const block of blocks)
      typeof block?.text === 'string' && block.text.trim() ? system.push(block.text) : problems.push('system blocks must be non-empty text');
  return system;
}

/** The tools of `toolConfig` (not empty when present, with a valid `toolChoice`); what is wrong goes to `problems`. */
function converseTools(toolConfig: any, problems: string[]): NeutralRequest['tools'] {
  const tools = (toolConfig?.tools ?? []).map((tool: any) => ({
    name: tool?.toolSpec?.name,
    description: tool?.toolSpec?.description,
    schema: tool?.toolSpec?.inputSchema?.json,
  }));
  if (toolConfig !== undefined && tools.length === 0) problems.push('toolConfig.tools must not be empty');
  if (toolConfig?.toolChoice !== undefined && !['auto', 'any', 'tool'].some((k) => k in toolConfig.toolChoice)) problems.push('toolConfig.toolChoice invalid');
  return tools;
}

/** Converse allows at most four cache checkpoints per request. */
const MAX_CACHE_POINTS = 4;

/** `{cachePoint: {type: 'default'}}` blocks in system, tools and message content: well formed, never first, at most four. */
function cachePointProblems(body: any): string[] {
  const lists: unknown[][] = [body.system, body.toolConfig?.tools, ...(Array.isArray(body.messages) ? body.messages.map((m: any) => m?.content) : [])].filter(
    Array.isArray,
  );
  const problems: string[] = [];
  let count = 0;
  for (const list of lists)
    for (const [i, block] of list.entries()) {
      if (!block || typeof block !== 'object' || !('cachePoint' in block)) continue;
      count += 1;
      if ((block as any).cachePoint?.type !== 'default' || Object.keys(block).length !== 1)
        problems.push('cachePoint must be {"cachePoint":{"type":"default"}}');
      if (i === 0) problems.push('a cachePoint must follow the content it caches');
    }
  if (count > MAX_CACHE_POINTS) problems.push(`at most ${MAX_CACHE_POINTS} cache checkpoints are allowed, got ${count}`);
  return problems;
}

function withoutCachePoints(list: any): any {
  return Array.isArray(list) ? list.filter((block) => !(block && typeof block === 'object' && 'cachePoint' in block)) : list;
}

function neutralBlock(block: any): NeutralBlock {
  if (block && 'text' in block) return { kind: 'text', text: block.text };
  if (block?.toolUse) return { kind: 'tool_use', id: block.toolUse.toolUseId, name: block.toolUse.name, input: block.toolUse.input };
  if (block?.toolResult) {
    const content = block.toolResult.content;
    const texts = Array.isArray(content) ? content.map((c: any) => c?.text) : [];
    const text = texts.length > 0 && texts.every((t: unknown) => typeof t === 'string') ? texts.join('') : undefined;
    const status = block.toolResult.status;
    if (status !== undefined && status !== 'success' && status !== 'error') return { kind: 'unknown', what: `toolResult.status ${String(status)}` };
    return { kind: 'tool_result', id: block.toolResult.toolUseId, text };
  }
  return { kind: 'unknown', what: JSON.stringify(Object.keys(block ?? {})) };
}

export function startBedrockServer(options: BedrockServerOptions): Promise<BlockModelServer> {
  return startBlockModelServer(bedrockProtocol(options), options.script, { http2: true });
}
