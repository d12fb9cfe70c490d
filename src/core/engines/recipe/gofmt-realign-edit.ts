import type { TreeSyntaxService } from '../../syntax/create-syntax-service.js';
import { LineIndex } from '../../syntax/line-index.js';
import { gofmtAlign } from './gofmt-align.js';
import type { FileRecipeResult, LineEdit } from './recipe-types.js';

function lineCount(text: string): number {
  return text.split('\n').length;
}

/**
 * A Go edit with gofmt's alignment restored in the blocks it touched. The edits are reported
 * as before (whole lines, 1-based in the original), plus one per line only the realignment
 * changed. An edit that adds or removes lines is left as it is.
 */
export function realignGoEdit(original: string, result: FileRecipeResult, syntax: TreeSyntaxService): FileRecipeResult {
  if (lineCount(original) !== lineCount(result.text)) return result;
  const rows = new Set<number>();
  const ranges = result.edits.map((edit) => {
    const first = edit.line - 1;
    const last = first + lineCount(edit.after) - 1;
    for (let row = first; row <= last; row++) rows.add(row);
    return { first, last };
  });
  const text = gofmtAlign(original, result.text, rows, (source, fn) => syntax.withTree('go', source, fn));
  if (text === result.text) return result;
  const oldLines = new LineIndex(original);
  const newLines = new LineIndex(text);
  for (let row = 0; row < newLines.lineCount; row++) {
    if (!rows.has(row) && oldLines.lineText(row) !== newLines.lineText(row)) ranges.push({ first: row, last: row });
  }
  const slice = (lines: LineIndex, first: number, last: number) => lines.text.slice(lines.lineStart(first), lines.lineEnd(last));
  const edits: LineEdit[] = ranges
    .sort((a, b) => a.first - b.first)
    .map(({ first, last }) => ({ line: first + 1, before: slice(oldLines, first, last), after: slice(newLines, first, last) }));
  return { ...result, text, edits };
}
