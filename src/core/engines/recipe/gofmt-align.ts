import type { Node, Tree } from 'web-tree-sitter';
import { LineIndex } from '../../syntax/line-index.js';

/*
 * gofmt aligns with an elastic tabstop writer: the printer ends cells with tabs (soft "\v" or
 * hard "\t"), cells ending in the same column on consecutive lines form a column as wide as
 * the widest cell plus one space, a line without a cell in that column ends the column, empty
 * soft columns vanish, and some places flush the writer (a blank line, a comment on its own
 * line, the line after a multi-line item). Here each item line of a struct, const/var group,
 * interface, import group or statement list is rebuilt as those cells, and the aligned text is
 * the writer's output for the section.
 */

/** One line as the printer hands it to the writer: indentation, tab-terminated cells, then trailing text. */
interface CellLine {
  row: number;
  indent: string;
  cells: string[];
  trailing: string;
}

// Stand-ins for the printer's soft and hard tabs: code may hold real tabs (in raw strings), these never.
const SOFT = '\u0001';
const HARD = '\u0002';

function width(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** The writer's column algorithm (minwidth 0, padding 1, spaces, empty columns discarded). */
function formatSection(lines: CellLine[]): string[] {
  const out = lines.map(() => '');
  const widths: number[] = [];
  const emit = (from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const line = lines[i];
      let text = '';
      line.cells.forEach((cell, j) => {
        text += cell;
        if (j < widths.length) text += ' '.repeat(Math.max(0, widths[j] - width(cell)));
      });
      out[i] = line.indent + text + line.trailing;
    }
  };
  const format = (line0: number, line1: number): void => {
    const column = widths.length;
    for (let row = line0; row < line1; row++) {
      if (column >= lines[row].cells.length) continue;
      emit(line0, row);
      line0 = row;
      let w = 0;
      let discardable = true;
      for (; row < line1 && column < lines[row].cells.length; row++) {
        const cell = lines[row].cells[column];
        w = Math.max(w, width(cell) + 1);
        if (cell !== '') discardable = false;
      }
      widths.push(discardable ? 0 : w);
      format(line0, row);
      widths.pop();
      line0 = row;
      row--;
    }
    emit(line0, line1);
  };
  format(0, lines.length);
  return out;
}

/** Split a printer stream (text with soft and hard tabs) into cells and trailing text (a comment keeps no carriage return). */
function toCells(row: number, indent: string, stream: string): CellLine {
  const parts = stream.split(/[\u0001\u0002]/);
  return { row, indent, cells: parts.slice(0, -1), trailing: parts[parts.length - 1].replace(/\r$/, '') };
}

/** The first line of `text` (a multi-line item contributes only its first line; the writer is flushed after it). */
function firstLine(text: string): string {
  const nl = text.indexOf('\n');
  return nl < 0 ? text : text.slice(0, nl).replace(/\r$/, '');
}

const span = (source: string, from: Node, to: Node) => source.slice(from.startIndex, to.endIndex);

/** A comment on the item's last line, after it. */
function trailingComment(item: Node): Node | undefined {
  const next = item.nextSibling;
  return next?.type === 'comment' && next.startPosition.row === item.endPosition.row ? next : undefined;
}

function fieldStream(source: string, field: Node, sep: string, comment: Node | undefined): string {
  const names = field.childrenForFieldName('name').filter((n): n is Node => n !== null);
  const type = field.childForFieldName('type');
  const tag = field.childForFieldName('tag');
  if (!type) return source.slice(field.startIndex, field.endIndex);
  let stream: string;
  let extraTabs: number;
  if (names.length > 0) {
    stream = span(source, names[0], names[names.length - 1]) + sep + source.slice(type.startIndex, type.endIndex);
    extraTabs = 1;
  } else {
    stream = source.slice(field.startIndex, type.endIndex);
    extraTabs = 2;
  }
  if (tag) {
    stream += (names.length > 0 && sep === SOFT ? sep : '') + sep + tag.text;
    extraTabs = 0;
  }
  if (comment) stream += (extraTabs > 0 ? sep.repeat(extraTabs) : HARD) + comment.text;
  return stream;
}

/** Which specs of a const/var group keep an (empty) type column: a run of specs with values keeps it when one of them has a type. */
function keepTypeColumn(specs: Node[]): boolean[] {
  const keep = specs.map(() => false);
  let start = -1;
  let keepType = false;
  const populate = (from: number, to: number) => {
    if (keepType) for (let i = from; i < to; i++) keep[i] = true;
  };
  specs.forEach((spec, i) => {
    if (spec.childForFieldName('value')) {
      if (start < 0) {
        start = i;
        keepType = false;
      }
    } else if (start >= 0) {
      populate(start, i);
      start = -1;
    }
    if (spec.childForFieldName('type')) keepType = true;
  });
  if (start >= 0) populate(start, specs.length);
  return keep;
}

function valueSpecStream(source: string, spec: Node, keepType: boolean, comment: Node | undefined): string {
  const names = spec.childrenForFieldName('name').filter((n): n is Node => n !== null);
  const type = spec.childForFieldName('type');
  const value = spec.childForFieldName('value');
  let stream = names.length ? span(source, names[0], names[names.length - 1]) : '';
  let extraTabs = 3;
  if (type || keepType) {
    stream += SOFT;
    extraTabs--;
  }
  if (type) stream += type.text;
  if (value) {
    stream += `${SOFT}= ${source.slice(value.startIndex, value.endIndex)}`;
    extraTabs--;
  }
  if (comment) stream += (extraTabs > 0 ? SOFT.repeat(extraTabs) : HARD) + comment.text;
  return stream;
}

const GENERIC_CONTAINERS = new Set(['source_file', 'block', 'import_spec_list', 'interface_type']);
/** Case clauses hold statements after their `case x:` line. */
const CASE_CLAUSES = new Set(['expression_case', 'default_case', 'type_case', 'communication_case']);

/** The printer's ratio rule: whether an element's key size breaks the alignment section (a form feed). */
function breaksSection(prevSize: number, size: number, lnsum: number, count: number): boolean {
  if (prevSize <= 0 || size <= 0) return true;
  if (count === 0 || (prevSize <= 40 && size <= 40)) return false;
  const ratio = size / Math.exp(lnsum / count);
  return 2.5 * ratio <= 1 || 2.5 <= ratio;
}

/**
 * An element that starts its line, as the writer sees it: its cells when only indentation
 * precedes it (`key:` in a column when `keyed`), and whether the writer is flushed after it
 * (another element on the same line, or the element spans lines).
 */
function elementLine(x: Node, pair: { key: Node; value: Node } | undefined, keyed: boolean, lines: LineIndex): { cells?: CellLine; flush: boolean } {
  const source = lines.text;
  const line = x.startPosition.row;
  const indent = source.slice(lines.lineStart(line), x.startIndex);
  const comma = x.nextSibling?.type === ',' ? ',' : '';
  const after = x.nextSibling?.type === ',' ? x.nextSibling : x;
  const comment = after.nextSibling?.type === 'comment' && after.nextSibling.startPosition.row === after.endPosition.row ? after.nextSibling : undefined;
  const rest = comment ? HARD + comment.text : '';
  const stream = pair && keyed ? `${pair.key.text}:${SOFT}${source.slice(pair.value.startIndex, x.endIndex)}${comma}${rest}` : `${x.text}${comma}${rest}`;
  const tail = source.slice(after.endIndex, lines.lineEnd(after.endPosition.row));
  // Another element on the same line: the writer is flushed after this line.
  const crowded = !comment && tail.trim() !== '';
  const cells = /^[\t ]*$/.test(indent) ? toCells(line, indent, firstLine(crowded ? stream + tail : stream)) : undefined;
  return { cells, flush: crowded || x.endPosition.row !== line };
}

/**
 * The elements of a multi-line composite literal, the way the printer's expression list sees
 * them: a `key: value` alone on its line puts `key:` in a column, unless its key size differs
 * too much from the mean of the keys before it (the printer's ratio rule breaks the section).
 */
function literalSections(literal: Node, lines: LineIndex, sections: CellLine[][]): void {
  const source = lines.text;
  const elements = literal.namedChildren.filter((c): c is Node => c !== null && c.type !== 'comment');
  let section: CellLine[] = [];
  const flush = () => {
    if (section.length) sections.push(section);
    section = [];
  };
  let prevLine = literal.startPosition.row;
  let prevEnd = prevLine;
  let prevBreak = -1;
  let size = 0;
  let lnsum = 0;
  let count = 0;
  elements.forEach((x, i) => {
    const line = x.startPosition.row;
    const pair = x.type === 'keyed_element' && x.namedChildren.length === 2 ? { key: x.namedChildren[0]!, value: x.namedChildren[1]! } : undefined;
    const prevSize = size;
    size = x.endPosition.row === line ? width(pair ? pair.key.text : x.text) : 0;
    const useFF = breaksSection(prevSize, size, lnsum, count);
    if (prevLine < line) {
      const breaks = Math.min(line - prevEnd, 2);
      // A comment line between elements flushes the writer too.
      const commentBetween = source.slice(lines.lineStart(prevEnd + 1), lines.lineStart(line)).trim() !== '';
      if (i === 0 || useFF || prevBreak + 1 < i || breaks > 1 || commentBetween) flush();
      if (breaks > 1) {
        lnsum = 0;
        count = 0;
      }
      prevBreak = i;
      const written = elementLine(x, pair, size > 0 && elements.length > 1, lines);
      if (written.cells) section.push(written.cells);
      if (written.flush) flush();
    }
    if (size > 0) {
      lnsum += Math.log(size);
      count++;
    }
    prevLine = line;
    prevEnd = x.endPosition.row;
  });
  flush();
}

/** Every alignment section of the file: runs of item lines the writer formats together. */
function sectionsOf(tree: Tree, lines: LineIndex): CellLine[][] {
  const source = lines.text;
  const sections: CellLine[][] = [];
  const visit = (container: Node) => {
    const kind = container.type;
    const isStruct = kind === 'field_declaration_list';
    const isGroup = (kind === 'const_declaration' || kind === 'var_declaration') && container.children.some((c) => c?.type === '(');
    const isCase = CASE_CLAUSES.has(kind);
    if (kind === 'literal_value' && container.endPosition.row > container.startPosition.row) literalSections(container, lines, sections);
    else if (isStruct || isGroup || isCase || GENERIC_CONTAINERS.has(kind)) {
      const items = container.namedChildren.filter(
        (c): c is Node => c !== null && c.type !== 'comment' && (!isCase || c.startPosition.row > container.startPosition.row),
      );
      const fields = items.filter((c) => c.type === 'field_declaration');
      const sep = fields.length > 1 ? SOFT : ' ';
      const keep = isGroup ? keepTypeColumn(items) : [];
      let section: CellLine[] = [];
      let previousEnd = -2;
      const flush = () => {
        if (section.length) sections.push(section);
        section = [];
      };
      items.forEach((item, i) => {
        const row = item.startPosition.row;
        const lineStart = lines.lineStart(row);
        const indent = source.slice(lineStart, item.startIndex);
        // An item that does not start its line, a blank or comment line before it: a new section.
        if (!/^[\t ]*$/.test(indent) || row !== previousEnd + 1) flush();
        previousEnd = item.endPosition.row;
        if (!/^[\t ]*$/.test(indent)) return;
        const comment = trailingComment(item);
        let stream: string;
        if (isStruct && item.type === 'field_declaration') stream = fieldStream(source, item, sep, comment);
        else if (isGroup) stream = valueSpecStream(source, item, keep[i], comment);
        else stream = source.slice(item.startIndex, item.endIndex) + (comment ? HARD + comment.text : '');
        section.push(toCells(row, indent, firstLine(stream)));
        if (item.endPosition.row !== row || (comment && comment.endPosition.row !== row)) {
          flush();
          previousEnd = -2;
        }
      });
      flush();
    }
    for (const child of container.namedChildren) if (child && child.endPosition.row > child.startPosition.row) visit(child);
  };
  visit(tree.rootNode);
  return sections;
}

/**
 * Realign, as gofmt would, the alignment sections of a Go file that contain one of `rows`
 * (0-based lines of `text`). A section is realigned only when the same section of `original`
 * (same lines) is exactly what the alignment rules produce, so a file gofmt never formatted,
 * or a layout these rules do not model, is left as the edit made it. Both texts must have the
 * same number of lines. Returns the new text.
 */
export function gofmtAlign(original: string, text: string, rows: ReadonlySet<number>, parse: <T>(source: string, fn: (tree: Tree) => T) => T): string {
  const oldLines = new LineIndex(original);
  const newLines = new LineIndex(text);
  if (rows.size === 0 || oldLines.lineCount !== newLines.lineCount) return text;
  const before = new Map<string, CellLine[]>();
  for (const section of parse(original, (tree) => sectionsOf(tree, oldLines))) before.set(section.map((l) => l.row).join(','), section);
  const replaced = new Map<number, string>();
  for (const section of parse(text, (tree) => sectionsOf(tree, newLines))) {
    if (section.length < 2 || !section.some((l) => rows.has(l.row))) continue;
    const old = before.get(section.map((l) => l.row).join(','));
    if (!old || formatSection(old).some((line, i) => line !== oldLines.lineText(old[i].row))) continue;
    formatSection(section).forEach((line, i) => replaced.set(section[i].row, line));
  }
  if (replaced.size === 0) return text;
  let out = '';
  for (let row = 0; row < newLines.lineCount; row++) {
    out += replaced.get(row) ?? newLines.lineText(row);
    if (row + 1 < newLines.lineCount) out += text.slice(newLines.lineEnd(row), newLines.lineStart(row + 1));
  }
  return out;
}
