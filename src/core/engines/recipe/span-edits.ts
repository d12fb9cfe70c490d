import { LineIndex } from '../../syntax/line-index.js';
import type { FileRecipeResult, LineEdit, SpanEdit } from './recipe-types.js';

/**
 * Apply non-overlapping span edits to `text`; everything outside the spans is kept byte for
 * byte. Returns undefined when nothing changes. Edits are reported per group of touched lines.
 */
export function applySpanEdits(text: string, spans: SpanEdit[], notes: string[] = []): FileRecipeResult | undefined {
  const sorted = spans.filter((s) => text.slice(s.start, s.end) !== s.text).sort((a, b) => a.start - b.start || a.end - b.end);
  // No edit: the notes still say what was left and why.
  if (sorted.length === 0) return notes.length > 0 ? { text, edits: [], notes, occurrences: 0 } : undefined;
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i].start < sorted[i - 1].end) throw new Error(`overlapping edits at ${sorted[i].start}`);
  }
  let out = '';
  let last = 0;
  for (const span of sorted) {
    out += text.slice(last, span.start) + span.text;
    last = span.end;
  }
  out += text.slice(last);
  return { text: out, edits: lineEdits(text, sorted), notes, occurrences: sorted.length };
}

/** Group spans into whole-line regions (regions sharing a line merge) and show each before and after. */
function lineEdits(text: string, spans: SpanEdit[]): LineEdit[] {
  const lines = new LineIndex(text);
  const groups: { first: number; last: number; spans: SpanEdit[] }[] = [];
  for (const span of spans) {
    const first = lines.lineOf(span.start);
    const last = lines.lineOf(Math.max(span.start, span.end - 1));
    const group = groups[groups.length - 1];
    if (group && first <= group.last) {
      group.last = Math.max(group.last, last);
      group.spans.push(span);
    } else groups.push({ first, last, spans: [span] });
  }
  return groups.map((group) => {
    const start = lines.lineStart(group.first);
    const end = lines.lineEnd(group.last);
    let after = '';
    let cursor = start;
    for (const span of group.spans) {
      after += text.slice(cursor, span.start) + span.text;
      cursor = span.end;
    }
    after += text.slice(cursor, end);
    return { line: group.first + 1, before: text.slice(start, end), after };
  });
}
