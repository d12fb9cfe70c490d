import { canonicalJson } from '../../util/digest.js';

/** What the engine should do with one tool call. */
export type LoopVerdict =
  | { action: 'go' }
  /** Run the call, and append `note` to its result: the next identical one stops the phase. */
  | { action: 'warn'; note: string }
  | { action: 'stop'; message: string };

export interface LoopDetectorOptions {
  /** Identical tool calls without progress that stop the phase. Default 3, at least 3 (one answered, one warned). */
  maxRepeats?: number;
}

/**
 * Notices a model that goes round in circles: the same tool call (name and canonical arguments)
 * again and again while nothing changes. An identical assistant turn repeats each of its calls,
 * so it is caught the same way (a turn without calls ends the phase anyway). Without a change in
 * between, a repeated read or search can only return what the model already has. The model is
 * told once, at the last repeat still allowed; one more stops the phase. Any progress (a file
 * edited, as the caller measures it) clears the counts, since the same call may then answer
 * differently.
 */
export class LoopDetector {
  readonly maxRepeats: number;
  readonly #calls = new Map<string, number>();
  #progress: unknown;

  constructor(options: LoopDetectorOptions = {}) {
    this.maxRepeats = Math.max(3, options.maxRepeats ?? 3);
  }

  /** Record the caller's progress marker; a new value forgets every repeat seen so far. */
  progress(marker: unknown): void {
    if (Object.is(marker, this.#progress)) return;
    this.#progress = marker;
    this.#calls.clear();
  }

  /** One tool call, before it runs. */
  call(name: string, args: string): LoopVerdict {
    const key = `${name}\u0000${canonicalArguments(args)}`;
    const seen = (this.#calls.get(key) ?? 0) + 1;
    this.#calls.set(key, seen);
    const shown = args.length > 200 ? `${args.slice(0, 200)}...` : args;
    if (seen > this.maxRepeats - 1) {
      return { action: 'stop', message: `the model called ${name} with the same arguments ${seen} times without changing anything: ${shown}` };
    }
    if (seen === this.maxRepeats - 1) {
      return {
        action: 'warn',
        note: `note: you already called ${name} with these arguments (${shown}) and nothing has changed since, so the answer is the same. Calling it again with the same arguments stops this phase.`,
      };
    }
    return { action: 'go' };
  }
}

/** Key order and spacing do not make two calls different; unparsable arguments compare as sent. */
function canonicalArguments(args: string): string {
  const text = args.trim();
  if (text === '') return '{}';
  try {
    return canonicalJson(JSON.parse(text));
  } catch {
    return text;
  }
}
