import { escapeControls } from './quote-path.js';
// Markdown text for the run report: everything from the repository or the issue is treated as text.

export function details(summary: string, body: string[]): string[] {
  return ['<details>', `<summary>${summary}</summary>`, '', ...body, '', '</details>', ''];
}

/**
 * Inline text: HTML neutralised (no comment markers, no tags), @mentions defused, one line.
 * Code spans already in the text (`` `@types/node` ``) are kept as they are: GitHub shows their
 * content literally, so an entity or a backslash escape there would be shown, not read, and a
 * mention inside one never notifies anyone.
 */
export function inline(text: string): string {
  const flat = escapeControls(text).replace(/\s*\r?\n\s*/g, ' ');
  let out = '';
  let at = 0;
  for (const span of codeSpans(flat)) {
    out += prose(flat.slice(at, span.start)) + flat.slice(span.start, span.end);
    at = span.end;
  }
  return out + prose(flat.slice(at));
}

/** Where CommonMark's code spans are: a run of N backticks closed by the next run of exactly N (linear in the text). */
export function codeSpans(text: string): { start: number; end: number }[] {
  const runs = [...text.matchAll(/`+/g)].map((m) => ({ start: m.index, end: m.index + m[0].length }));
  const byWidth = new Map<number, number[]>();
  runs.forEach((r, i) => {
    const list = byWidth.get(r.end - r.start) ?? [];
    list.push(i);
    byWidth.set(r.end - r.start, list);
  });
  const next = new Map<number, number>();
  const spans: { start: number; end: number }[] = [];
  for (let i = 0; i < runs.length; i++) {
    const width = runs[i]!.end - runs[i]!.start;
    const same = byWidth.get(width)!;
    let k = next.get(width) ?? 0;
    while (k < same.length && same[k]! <= i) k++;
    next.set(width, k);
    if (k >= same.length) continue;
    const close = same[k]!;
    spans.push({ start: runs[i]!.start, end: runs[close]!.end });
    i = close;
  }
  return spans;
}

function prose(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/@(?=[A-Za-z0-9])/g, '@&#8203;')
    .replace(/([[\]])/g, '\\$1');
}

/** A paragraph block: like `inline` but keeps line breaks. */
export function block(text: string): string {
  return text
    .split(/\r?\n/)
    .map((line) => inline(line))
    .join('\n')
    .trim();
}

export function cell(text: string): string {
  return inline(text).replace(/\|/g, '\\|');
}

/** A code span inside a table row: GFM reads `\\|` in a cell as a literal pipe, even in code. */
export function codeCell(text: string): string {
  return code(text).replace(/\|/g, '\\|');
}

/** A code span that survives backticks and pipes in its content. */
export function code(text: string): string {
  const flat = escapeControls(text.replace(/\s*\r?\n\s*/g, ' '));
  const longest = Math.max(0, ...(flat.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}

export function fenced(info: string, text: string): string[] {
  const longest = Math.max(0, ...(text.match(/`{3,}/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return [`${fence}${info}`, text, fence];
}

export function mermaidText(text: string): string {
  return text
    .replace(/["<>\r\n`]/g, ' ')
    .replace(/[[\]{}()]/g, ' ')
    .trim();
}

export function attr(text: string): string {
  return text.replace(/[^A-Za-z0-9._:/-]/g, '_');
}

export function firstLine(text: string): string {
  return (
    text
      .split(/\r?\n/)
      .map((l) => l.trim())
      .find((l) => l.length > 0) ?? ''
  );
}

/** The first paragraph as one line: the lines up to the first blank line, joined (a wrapped sentence stays whole). */
export function firstParagraph(text: string): string {
  const lines = text.split(/\r?\n/).map((l) => l.trim());
  const start = lines.findIndex((l) => l.length > 0);
  if (start < 0) return '';
  const end = lines.indexOf('', start);
  return lines.slice(start, end < 0 ? undefined : end).join(' ');
}

export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function plural(n: number, word: string): string {
  return n === 1 ? word : `${word}s`;
}

export function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}
