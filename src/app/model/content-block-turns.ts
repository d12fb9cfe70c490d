import type { ChatMessage, ModelStopReason } from '../../core/ports.js';

/**
 * The chat-completions history the engine keeps, regrouped the way block-based APIs (Bedrock
 * Converse, Anthropic Messages) want it: system text apart, then turns that alternate user /
 * assistant, each a list of blocks. Tool messages become tool-result blocks of a user turn, and
 * consecutive ones share that turn (both APIs reject two user turns in a row); a user message
 * right after tool results joins the same turn, after the results.
 */
export type TurnBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; id: string; text: string };

export interface BlockTurn {
  role: 'user' | 'assistant';
  blocks: TurnBlock[];
}

export interface BlockConversation {
  system: string[];
  turns: BlockTurn[];
}

export function toBlockConversation(messages: ChatMessage[]): BlockConversation {
  const system: string[] = [];
  const turns: BlockTurn[] = [];
  const push = (role: BlockTurn['role'], blocks: TurnBlock[]) => {
    if (blocks.length === 0) return;
    const last = turns.at(-1);
    if (last?.role === role) last.blocks.push(...blocks);
    else turns.push({ role, blocks });
  };
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        if (message.content?.trim()) system.push(message.content);
        break;
      case 'user':
        push('user', textBlocks(message.content));
        break;
      case 'tool':
        // An empty result is still a result: the call must be answered.
        push('user', [{ type: 'tool_result', id: message.tool_call_id ?? '', text: message.content?.length ? message.content : '(no output)' }]);
        break;
      case 'assistant':
        push('assistant', [
          ...textBlocks(message.content),
          ...(message.tool_calls ?? []).map((call): TurnBlock => ({
            type: 'tool_use',
            id: call.id,
            name: call.function.name,
            input: toolInput(call.function.arguments),
          })),
        ]);
        break;
    }
  }
  return { system, turns };
}

/** Both APIs reject empty text blocks. */
function textBlocks(content: string | null): TurnBlock[] {
  return content?.trim() ? [{ type: 'text', text: content }] : [];
}

/**
 * Block APIs carry tool input as a JSON object. Arguments the model sent malformed were already
 * answered with an error result; they are replayed as an empty object, which both APIs accept.
 */
function toolInput(argumentsText: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(argumentsText);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * The stop reasons of the two content-block APIs (Bedrock Converse and Anthropic Messages share
 * most of them) in the one internal vocabulary. Each API's refusal words are listed: Anthropic's
 * `refusal`, Bedrock's guardrail and content filter.
 */
const BLOCK_STOP_REASONS: Readonly<Record<string, ModelStopReason>> = {
  end_turn: 'end_turn',
  stop_sequence: 'end_turn',
  tool_use: 'tool_use',
  max_tokens: 'max_tokens',
  model_context_window_exceeded: 'max_tokens',
  refusal: 'refusal',
  guardrail_intervened: 'refusal',
  content_filtered: 'refusal',
};

export function blockStopReason(reason: string): ModelStopReason {
  return Object.hasOwn(BLOCK_STOP_REASONS, reason) ? BLOCK_STOP_REASONS[reason] : 'other';
}
