import { z } from 'zod';
import type { ChatMessage, ToolSpec } from '../../ports.js';
import { canonicalJson, sha256Hex } from '../../util/digest.js';

const ToolCall = z.object({
  id: z.string(),
  type: z.literal('function'),
  function: z.object({ name: z.string(), arguments: z.string() }),
});

export const RecordedChatMessage = z.object({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.string().nullable(),
  tool_calls: z.array(ToolCall).optional(),
  tool_call_id: z.string().optional(),
  name: z.string().optional(),
});

export const RecordedModelResponse = z.object({
  message: RecordedChatMessage,
  usage: z
    .object({
      promptTokens: z.number().int().nonnegative(),
      completionTokens: z.number().int().nonnegative(),
      /** Of `promptTokens`, those the provider read from its prompt cache (when it says). */
      cachedInputTokens: z.number().int().nonnegative().optional(),
    })
    .optional(),
  finishReason: z.string().optional(),
  stopReason: z.enum(['end_turn', 'tool_use', 'max_tokens', 'refusal', 'other']).optional(),
});

/**
 * One model call as the ledger keeps it: which request (by digest) got which response. A resumed
 * phase replays these in order instead of asking the model again; the digest proves the
 * conversation up to that call is byte-identical.
 */
export const RecordedExchange = z.object({
  schemaVersion: z.literal(1),
  /** 0-based index of the model call within the phase. */
  seq: z.number().int().nonnegative(),
  phase: z.string(),
  model: z.string(),
  requestDigest: z.string().regex(/^[0-9a-f]{64}$/),
  response: RecordedModelResponse,
});
export type RecordedExchange = z.infer<typeof RecordedExchange>;

/** sha256 of the canonical JSON of what is sent to the model (after redaction). */
export function digestModelRequest(request: { model: string; messages: ChatMessage[]; tools: ToolSpec[]; maxTokens?: number }): string {
  return sha256Hex(canonicalJson(request));
}
