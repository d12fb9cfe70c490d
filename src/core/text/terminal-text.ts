import { escapeControls } from './quote-path.js';
import { codeSpans } from './report-markdown.js';

/** The escapes `report-markdown.ts` puts into prose for GitHub, and the characters they stand for. */
const ESCAPED = /&amp;|&lt;|&gt;|&#8203;|\\([[\]|])/g;
const PLAIN: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&#8203;': '' };

/**
 * Report markdown for a terminal: the entities and backslash escapes that keep text inert on
 * GitHub (`&lt;dependency&gt;`, `@&#8203;acme`, `\[`) shown as the characters they stand for,
 * outside code spans and fenced blocks (GitHub shows those literally, so they hold none), and
 * control characters quoted (`\033`) so the terminal shows them instead of obeying them.
 */
export function terminalText(markdown: string): string {
  let fence: string | undefined;
  return markdown
    .split('\n')
    .map((line) => {
      const opening = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
      if (fence !== undefined) {
        if (opening && opening[0] === fence[0] && opening.length >= fence.length && line.trim() === opening) fence = undefined;
        return escapeControls(line);
      }
      if (opening) {
        fence = opening;
        return escapeControls(line);
      }
      return escapeControls(unescapeProse(line));
    })
    .join('\n');
}

function unescapeProse(line: string): string {
  let out = '';
  let at = 0;
  for (const span of codeSpans(line)) {
    out += plain(line.slice(at, span.start)) + line.slice(span.start, span.end);
    at = span.end;
  }
  return out + plain(line.slice(at));
}

function plain(text: string): string {
  return text.replace(ESCAPED, (match, bracket: string | undefined) => bracket ?? PLAIN[match]!);
}
