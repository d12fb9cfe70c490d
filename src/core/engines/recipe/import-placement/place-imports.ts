import type { TreeSyntaxService } from '../../../syntax/create-syntax-service.js';
import { LineIndex } from '../../../syntax/line-index.js';
import type { SyntaxLanguage } from '../../../syntax/types.js';
import type { SpanEdit } from '../recipe-types.js';
import { applySpanEdits } from '../span-edits.js';
import { lineContentStart, placeImports } from './import-block.js';
import type { ImportLayout } from './declared-layout.js';
import { IMPORT_CONVENTIONS } from './language-imports.js';

/** Narrow a replacement to the lines that really change, so an edit reports only those. */
function trimToChangedLines(text: string, span: SpanEdit): SpanEdit | undefined {
  const before = text.slice(span.start, span.end).split('\n');
  const after = span.text.split('\n');
  let head = 0;
  while (head < before.length - 1 && head < after.length - 1 && before[head] === after[head]) head++;
  let tail = 0;
  while (tail < before.length - head - 1 && tail < after.length - head - 1 && before[before.length - 1 - tail] === after[after.length - 1 - tail]) tail++;
  const lead = before.slice(0, head).reduce((n, line) => n + line.length + 1, 0);
  const trail = before.slice(before.length - tail).reduce((n, line) => n + line.length + 1, 0);
  const narrowed = { start: span.start + lead, end: span.end - trail, text: after.slice(head, after.length - tail).join('\n') };
  return text.slice(narrowed.start, narrowed.end) === narrowed.text ? undefined : narrowed;
}

/**
 * The spans of an import migration, with the rewritten imports moved where the file's own
 * convention puts them (group and order, see `placeImports`). Spans outside the import blocks
 * (qualified names in code) are kept as they are; lines the move leaves alone stay untouched.
 * A `layout` the project's formatter declares decides the group over the file's own groups.
 */
export function withImportPlacement(language: SyntaxLanguage, text: string, spans: SpanEdit[], syntax: TreeSyntaxService, layout?: ImportLayout): SpanEdit[] {
  const migrated = applySpanEdits(text, spans);
  if (!migrated) return spans;
  const { read, style: own } = IMPORT_CONVENTIONS[language];
  const style = layout ? { ...own, layout } : own;
  const before = syntax.withTree(language, text, read);
  const after = syntax.withTree(language, migrated.text, read);
  const lines = new LineIndex(text);
  const regions = placeImports(text, migrated.text, before, after, style).map((r) => ({
    start: lineContentStart(lines, r.first),
    end: lines.lineEnd(r.last),
    text: r.text,
  }));
  if (regions.length === 0) return spans;
  const outside = spans.filter((s) => !regions.some((r) => s.start < r.end && s.end > r.start));
  return [...outside, ...regions.flatMap((r) => trimToChangedLines(text, r) ?? [])];
}
