import { shortenAtWord } from '../util/shorten.js';
import { findFencedBlocks, splitLines } from './fenced-blocks.js';

/** Longest CLI task title kept; longer first lines are shortened at a word boundary. */
export const MAX_TASK_TITLE = 200;

/**
 * A CLI task's title, as an issue title would be: its first line of prose or its Markdown
 * heading, without the `#` marks. Lines inside fenced blocks (the ```agent block) never count,
 * so a task that opens with its block still gets the maintainer's words, or nothing.
 */
export function taskTitleOf(text: string): string {
  const lines = splitLines(text);
  const fenced = new Set<number>();
  for (const block of findFencedBlocks(lines)) for (let i = block.openLine; i <= (block.closeLine ?? lines.length - 1); i++) fenced.add(i);
  for (const [i, line] of lines.entries()) {
    if (fenced.has(i)) continue;
    const trimmed = line
      .replace(/^\s{0,3}#+\s*/, '')
      .replace(/\s+#+\s*$/, '')
      .trim();
    if (trimmed) return shortenAtWord(trimmed, MAX_TASK_TITLE);
  }
  return '';
}
