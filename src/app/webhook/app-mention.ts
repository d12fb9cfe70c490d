import { findFencedBlocks, splitLines } from '../../core/task/fenced-blocks.js';
import { escapeRegExp } from '../../core/util/escape-regexp.js';

/** The App's slug, as people mention it: its bot login without `[bot]` (`draftsman[bot]` → `draftsman`). */
export function appSlug(botLogin: string): string {
  return botLogin.replace(/\[bot\]$/, '');
}

/** `@slug` (or `@slug[bot]`) as GitHub links a mention: not inside a word or an e-mail address, not a longer name. */
function mentionPattern(botLogin: string): RegExp {
  return new RegExp(`(^|[^\\w@./-])@${escapeRegExp(appSlug(botLogin))}(?:\\[bot\\])?(?![\\w-])`, 'gi');
}

/** The lines that speak to the App: not in fenced code, not a `>` quote of an earlier comment, inline code removed. */
function spokenLines(body: string): string[] {
  const lines = splitLines(body);
  const fenced = new Set<number>();
  for (const block of findFencedBlocks(lines)) for (let i = block.openLine; i <= (block.closeLine ?? lines.length - 1); i++) fenced.add(i);
  return lines.filter((line, i) => !fenced.has(i) && !/^\s*>/.test(line)).map((line) => line.replace(/`[^`]*`/g, ''));
}

/**
 * Whether a comment or review body mentions the App, the way a reviewer asks Copilot with
 * `@copilot`: outside code and quotes, so quoting an earlier request does not ask again.
 */
export function mentionsApp(body: string, botLogin: string): boolean {
  return spokenLines(body).some((line) => mentionPattern(botLogin).test(line));
}

/** What a mention asks: the body without the mention itself (the rest of the sentence is the request). */
export function mentionInstructions(body: string, botLogin: string): string {
  return body
    .replace(mentionPattern(botLogin), (_m, before: string) => before)
    .replace(/[ \t]{2,}/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .join('\n')
    .trim();
}
