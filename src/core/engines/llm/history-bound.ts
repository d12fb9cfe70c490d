import type { ChatMessage } from '../../ports.js';

/**
 * How much of a phase's conversation is re-sent in full. Every request carries the whole
 * conversation, so without a bound the bytes sent grow with the square of the calls. The last
 * `keepTurns` model turns (each with the tool results it asked for) are sent as they were; in
 * older turns, a tool result longer than `elideOverChars` is replaced by a note naming the call
 * (the model repeats it, or reads the file, to see it again) and a tool-call argument string
 * longer than `elideOverChars` (a whole file written, a long replacement) by its length.
 */
export interface HistoryBound {
  keepTurns: number;
  elideOverChars: number;
}

export const DEFAULT_HISTORY_BOUND: HistoryBound = { keepTurns: 3, elideOverChars: 600 };

/**
 * The conversation as it is sent: `messages` with old long tool results and arguments elided.
 * Deterministic, and stable: the system prompt and the task context (the first two messages)
 * never change, and a message before the kept turns, once elided, stays as it is in every later
 * request, so providers that cache a prompt's prefix reuse it. `stable` counts the leading
 * messages that no later request of the phase changes.
 */
export function boundHistory(messages: readonly ChatMessage[], bound: HistoryBound = DEFAULT_HISTORY_BOUND): { messages: ChatMessage[]; stable: number } {
  const turns = messages.flatMap((m, i) => (m.role === 'assistant' ? [i] : []));
  const keepFrom = turns.length > bound.keepTurns ? turns[turns.length - bound.keepTurns] : Math.min(2, messages.length);
  const calls = new Map<string, { name: string; arguments: string }>();
  const out = messages.map((message, i) => {
    if (i < 2 || i >= keepFrom) return message;
    if (message.role === 'assistant' && message.tool_calls) {
      for (const call of message.tool_calls) calls.set(call.id, call.function);
      return { ...message, tool_calls: message.tool_calls.map((call) => ({ ...call, function: elideArguments(call.function, bound) })) };
    }
    if (message.role === 'tool' && message.content !== null && message.content.length > bound.elideOverChars) {
      return { ...message, content: elisionNote(calls.get(message.tool_call_id ?? ''), message.content.length, bound) };
    }
    return message;
  });
  return { messages: out, stable: keepFrom };
}

function elisionNote(call: { name: string; arguments: string } | undefined, chars: number, bound: HistoryBound): string {
  const what = call ? `${call.name} ${shortArguments(call.arguments, bound)}` : 'an earlier tool call';
  return (
    `[elided: the result of ${what} (${chars} characters) was shown ${bound.keepTurns} or more turns ago and is left out to keep the conversation short. ` +
    'If you still need it, repeat the call (a read gives the current content) or read the file again.]'
  );
}

/** Arguments as the note names them: a long string value cut, so the note stays short. */
function shortArguments(args: string, bound: HistoryBound): string {
  const elided = elideArguments({ name: '', arguments: args }, { ...bound, elideOverChars: 120 }).arguments;
  return elided.length > 300 ? `${elided.slice(0, 300)}…` : elided;
}

/** Tool-call arguments with every string value over the bound replaced by its length; still valid JSON when it was. */
function elideArguments(fn: { name: string; arguments: string }, bound: HistoryBound): { name: string; arguments: string } {
  if (fn.arguments.length <= bound.elideOverChars) return fn;
  let parsed: unknown;
  try {
    parsed = JSON.parse(fn.arguments);
  } catch {
    return { ...fn, arguments: JSON.stringify({ elided: `${fn.arguments.length} characters of arguments that were not JSON` }) };
  }
  const shorten = (value: unknown): unknown => {
    if (typeof value === 'string') return value.length > bound.elideOverChars ? `[${value.length} characters, elided]` : value;
    if (Array.isArray(value)) return value.map(shorten);
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shorten(v)]));
    return value;
  };
  return { ...fn, arguments: JSON.stringify(shorten(parsed)) };
}
