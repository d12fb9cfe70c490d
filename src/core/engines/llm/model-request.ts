import type { ChatMessage, ModelResponse, ToolSpec } from '../../ports.js';
import { canonicalJson } from '../../util/digest.js';
import { jsonByteLength } from '../../util/json-length.js';

/** The provider's own token count of the previous call, and how many messages it saw. */
export interface PreviousCall {
  promptTokens: number;
  completionTokens: number;
  messages: number;
}

/**
 * Worst-case prompt tokens of the next request, for the checks before it is sent: one token per
 * three bytes of the request's JSON (denser than real text, so rarely low), and never less than
 * the provider's own count of the previous prompt plus its answer plus what was added since.
 */
export function promptEstimate(messages: ChatMessage[], tools: ToolSpec[], previous?: PreviousCall): number {
  const bytes = (value: unknown) => Math.ceil(jsonByteLength(value) / 3);
  const whole = bytes({ messages, tools });
  if (!previous) return whole;
  return Math.max(whole, previous.promptTokens + previous.completionTokens + bytes(messages.slice(previous.messages + 1)));
}

/** A message as it is sent: its content and tool-call arguments redacted. */
export function redactMessage(message: ChatMessage, redact: (text: string) => string): ChatMessage {
  const out: ChatMessage = { role: message.role, content: message.content === null ? null : redact(message.content) };
  if (message.tool_calls) {
    out.tool_calls = message.tool_calls.map((call) => ({
      id: call.id,
      type: call.type,
      function: { name: call.function.name, arguments: redact(call.function.arguments) },
    }));
  }
  if (message.tool_call_id !== undefined) out.tool_call_id = message.tool_call_id;
  if (message.name !== undefined) out.name = message.name;
  return out;
}

/** When a provider reports no usage: about four characters per token, deterministic. */
export function estimateTokens(messages: ChatMessage[], response: ModelResponse): { promptTokens: number; completionTokens: number } {
  return { promptTokens: Math.ceil(canonicalJson(messages).length / 4), completionTokens: Math.ceil(canonicalJson(response.message).length / 4) };
}
