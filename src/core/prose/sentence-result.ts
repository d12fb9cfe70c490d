import type { ProseReading, WordingSource } from './prose-reading.js';

/** A step one sentence asks for, before the reader adds where it was found. */
export type Finding = Omit<ProseReading, 'source' | 'text'>;

export interface SentenceResult {
  found: Finding[];
  /** Why a request in the sentence could not be read (one reason, the first). */
  unread?: string;
  /** The sentence names a group of updates whose packages the body lists ("Bump the npm_and_yarn group …"). */
  group?: boolean;
  /** The sentence is in a bot's fixed wording. */
  bot?: Exclude<WordingSource, 'person'>;
}

/** Note the first reason a request in the sentence could not be read. */
export function miss(result: SentenceResult, why: string): void {
  result.unread ??= why;
}
