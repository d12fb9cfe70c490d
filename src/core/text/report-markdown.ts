import { shortenAtWord } from '../util/shorten.js';
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
  return defused(escapeControls(text).replace(/\s*\r?\n\s*/g, ' '));
}

/** Prose defused around the code spans, which are kept as written (newlines in `text` stay). */
function defused(text: string): string {
  let out = '';
  let at = 0;
  for (const span of codeSpans(text)) {
    out += prose(text.slice(at, span.start)) + keptCode(text.slice(span.start, span.end));
    at = span.end;
  }
  return out + prose(text.slice(at));
}

/**
 * Code kept byte for byte, but for draftsman's own section markers (`<!-- draftsman:…`): a zero-width
 * space breaks them, so code quoted in a body never reads as the start of a section the publisher replaces.
 */
function keptCode(text: string): string {
  return text.replaceAll('<!-- draftsman:', '<!-- draftsman\u200b:');
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

/**
 * A block of text as written, defused: fenced code blocks (```` ``` ```` or `~~~`) are kept byte for byte
 * inside a backtick fence longer than their longest backtick run (an unclosed one is closed), code
 * spans are kept within each paragraph, and the prose between is defused as `inline` does, line breaks kept.
 */
export function block(text: string): string {
  const out: string[] = [];
  for (const part of fencedParts(text)) {
    if (part.kind === 'code') out.push(...fenced(part.info, part.body));
    else
      out.push(
        part.text
          .split(/\r?\n(?:[ \t]*\r?\n)+/)
          .map((paragraph) => defused(paragraph.split(/\r?\n/).map(escapeControls).join('\n')))
          .join('\n\n'),
      );
  }
  return out.join('\n').trim();
}

/** The text without its fenced code blocks: the prose a one-line summary is taken from. */
export function proseOnly(text: string): string {
  return fencedParts(text)
    .flatMap((p) => (p.kind === 'prose' ? [p.text] : []))
    .join('\n\n');
}

type Part = { kind: 'prose'; text: string } | { kind: 'code'; info: string; body: string };

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})[ \t]*([^\r\n]*)$/;

/** CommonMark's fenced code blocks and the prose between them, in order; a fence left open runs to the end. */
function fencedParts(text: string): Part[] {
  const parts: Part[] = [];
  const lines = text.split(/\r?\n/);
  let prose: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE_OPEN.exec(lines[i]!);
    if (!open || (open[1]!.startsWith('`') && open[2]!.includes('`'))) {
      prose.push(lines[i]!);
      continue;
    }
    const fence = open[1]!;
    const close = new RegExp(`^ {0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}[ \\t]*$`);
    let end = i + 1;
    while (end < lines.length && !close.test(lines[end]!)) end++;
    if (prose.length > 0) parts.push({ kind: 'prose', text: prose.join('\n') });
    prose = [];
    parts.push({ kind: 'code', info: open[2]!.trim().split(/\s/)[0] ?? '', body: lines.slice(i + 1, end).join('\n') });
    i = end;
  }
  if (prose.length > 0) parts.push({ kind: 'prose', text: prose.join('\n') });
  return parts;
}

/**
 * Shorten one line at a word (as `shortenAtWord`), never inside a code span: a cut that would
 * fall in one cuts before it, so the span is not left open and its content read as prose.
 */
export function shortenOutsideCode(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  const short = shortenAtWord(line, max);
  if (short === line) return line;
  const kept = short.length - 1;
  const broken = codeSpans(line).find((s) => s.start < kept && s.end > kept);
  if (!broken) return short;
  const head = line.slice(0, broken.start).trimEnd();
  return head ? `${head}…` : short;
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
  const flat = keptCode(escapeControls(text.replace(/\s*\r?\n\s*/g, ' ')));
  const longest = Math.max(0, ...(flat.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}

/** A fenced code block: the text as it is, inside a backtick fence longer than any backtick run in it. */
export function fenced(info: string, text: string): string[] {
  const longest = Math.max(0, ...(text.match(/`{3,}/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return [`${fence}${info.replace(/`/g, '')}`, keptCode(text), fence];
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

/**
 * Lines of text each said once, in order: whitespace is folded, a sentence repeated inside a line
 * is dropped, and a line already in `seen` (or said before) is left out.
 */
export function distinct(texts: readonly string[], seen: readonly string[] = []): string[] {
  const flat = (text: string) => {
    const sentences = text
      .replace(/\s+/g, ' ')
      .trim()
      .split(/(?<=[.!?])\s+/);
    return sentences.filter((sentence, i) => sentences.indexOf(sentence) === i).join(' ');
  };
  const said = new Set(seen.map(flat));
  const out: string[] = [];
  for (const text of texts.map(flat)) {
    if (text === '' || said.has(text)) continue;
    said.add(text);
    out.push(text);
  }
  return out;
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
