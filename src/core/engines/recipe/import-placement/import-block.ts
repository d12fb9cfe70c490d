import { LineIndex } from '../../../syntax/line-index.js';

/** One import statement as a language reads it: where it stands and how it sorts. */
export interface RawImport {
  /** 0-based lines of the statement itself (without attached comments). */
  startLine: number;
  endLine: number;
  /** Offsets of the statement: it must be alone on its lines (a trailing comment aside). */
  start: number;
  end: number;
  /** The imported module or package path, as written. */
  key: string;
  /** Coarse section the import belongs to (`static`, `std`, `relative`, ...). */
  kind: string;
  /** Statements of one container (one Go `import ( ... )`) may form one block; others never mix. */
  container: number;
  /** Extra sort fields the language's orders may use (Python's `from`, Go's alias). */
  detail?: string;
}

/** A language's import conventions: how a path splits, the orders a file may use, where sections go. */
export interface ImportStyle {
  separator: string;
  /** Candidate orders within a group; the first that every existing group satisfies is the file's. */
  orders: ((a: RawImport, b: RawImport) => number)[];
  /** Rank of a kind, to place a new group among the existing ones. */
  kindRank(kind: string): number;
  /** A line holding only a comment (so it may attach to the import below it). */
  commentLine: RegExp;
  /** What may follow a statement on its last line. */
  trailing: RegExp;
  /** The group order the project's formatter declares (its build says which formatter), over the file's own groups. */
  layout?: { groupOf(raw: RawImport): number };
}

interface Item {
  raw: RawImport;
  /** Lines of the item: attached comments above, then the statement. */
  first: number;
  last: number;
}

interface Block {
  items: Item[];
  /** Index of the item each group starts at; groups are separated by blank lines. */
  groupStarts: number[];
}

/** A replacement of lines `[first, last]` (0-based, inclusive): from `lineContentStart(first)` to the end of `last`, its terminator excluded. */
export interface LineReplacement {
  first: number;
  last: number;
  text: string;
}

/** Where a line's text starts: after the byte order mark on the first line, which never moves. */
export function lineContentStart(lines: LineIndex, line: number): number {
  return line === 0 && lines.text.startsWith('\uFEFF') ? 1 : lines.lineStart(line);
}

const ASCII = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
export const byKey = (a: RawImport, b: RawImport): number => ASCII(a.key, b.key);
export const byKeyIgnoringCase = (a: RawImport, b: RawImport): number => ASCII(a.key.toLowerCase(), b.key.toLowerCase());

/** Cut the imports into blocks: items separated only by blank lines and the comments attached to them. */
function blocksOf(imports: RawImport[], lines: LineIndex, style: ImportStyle): Block[] {
  const sorted = [...imports].sort((a, b) => a.start - b.start);
  const blocks: Block[] = [];
  let current: Block | undefined;
  let previous: RawImport | undefined;
  for (const raw of sorted) {
    const alone =
      lines.text.slice(lines.lineStart(raw.startLine), raw.start).trim() === '' && style.trailing.test(lines.text.slice(raw.end, lines.lineEnd(raw.endLine)));
    if (!alone) return [];
    let joins = current !== undefined && previous !== undefined && previous.container === raw.container;
    // Comments directly above an import move with it; above a block's first import they are a header and stay.
    let first = raw.startLine;
    if (joins && previous) while (first - 1 > previous.endLine && style.commentLine.test(lines.lineText(first - 1))) first--;
    let blank = false;
    if (joins && previous) {
      for (let line = previous.endLine + 1; line < first; line++) {
        if (lines.lineText(line).trim() === '') blank = true;
        else joins = false;
      }
    }
    if (!joins || !current) {
      current = { items: [], groupStarts: [0] };
      blocks.push(current);
    } else if (blank) current.groupStarts.push(current.items.length);
    current.items.push({ raw, first, last: raw.endLine });
    previous = raw;
  }
  return blocks;
}

function groupsOf<T>(block: Block, pick: (item: Item) => T): T[][] {
  return block.groupStarts.map((start, g) => block.items.slice(start, block.groupStarts[g + 1] ?? block.items.length).map(pick));
}

function isSorted(group: RawImport[], order: (a: RawImport, b: RawImport) => number): boolean {
  for (let i = 1; i < group.length; i++) if (order(group[i - 1], group[i]) > 0) return false;
  return true;
}

function commonPrefix(a: string[], b: string[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

/**
 * The group a moved import belongs in: one whose imports are of its kind, sharing the longest
 * path prefix with it; with nothing shared, the catch-all group (most distinct first segments),
 * so `jakarta.*` leaves a `javax` group for the one holding `org.*`, `com.*`. -1: a new group.
 */
function chooseGroup(moved: RawImport, groups: RawImport[][], origin: number, style: ImportStyle): number {
  // A declared layout decides: the group holding imports of the moved one's layout group.
  if (style.layout) {
    const want = style.layout.groupOf(moved);
    return groups.findIndex((group) => group.some((r) => style.layout!.groupOf(r) === want));
  }
  const segments = moved.key.split(style.separator);
  let best = -1;
  let bestRank: number[] = [];
  groups.forEach((group, index) => {
    if (!group.some((r) => r.kind === moved.kind)) return;
    const score = Math.max(...group.map((r) => commonPrefix(segments, r.key.split(style.separator))));
    const spread = new Set(group.map((r) => r.key.split(style.separator)[0])).size;
    const home = index === origin ? 1 : 0;
    const rank = score > 0 ? [score, home, spread] : [0, spread, home];
    if (best < 0 || outranks(rank, bestRank)) {
      best = index;
      bestRank = rank;
    }
  });
  return best;
}

/** Lexicographic comparison of two rank tuples: true when `a` is strictly higher. */
function outranks(a: number[], b: number[]): boolean {
  const i = a.findIndex((v, k) => v !== b[k]);
  return i >= 0 && a[i] > b[i];
}

function eolOf(text: string): string {
  return text.includes('\r\n') ? '\r\n' : '\n';
}

/**
 * Put the imports a migration rewrote where the file's own convention puts them. `before` and
 * `after` are the imports of `original` and of `text`, the same file after the rewrite (same
 * lines, only keys changed). When every group of a block was sorted by one of the style's orders, a rewritten
 * import leaves its place for the sorted position in the group of its kind (a new group when
 * none fits); otherwise it stays where it was. An import made identical to another is dropped.
 */
export function placeImports(original: string, text: string, before: RawImport[], after: RawImport[], style: ImportStyle): LineReplacement[] {
  const lines = new LineIndex(text);
  const oldBlocks = blocksOf(before, new LineIndex(original), style);
  const newBlocks = blocksOf(after, lines, style);
  if (oldBlocks.length !== newBlocks.length) return [];
  const out: LineReplacement[] = [];
  oldBlocks.forEach((oldBlock, b) => {
    const newBlock = newBlocks[b];
    if (newBlock.items.length !== oldBlock.items.length || newBlock.items.some((item, i) => item.first !== oldBlock.items[i].first)) return;
    const replacement = placeInBlock(text, lines, oldBlock, newBlock, style);
    if (replacement) out.push(replacement);
  });
  return out;
}

function placeInBlock(text: string, lines: LineIndex, oldBlock: Block, newBlock: Block, style: ImportStyle): LineReplacement | undefined {
  const itemText = (item: Item) => text.slice(lineContentStart(lines, item.first), lines.lineEnd(item.last));
  const moved = new Set(newBlock.items.map((item, i) => (item.raw.key !== oldBlock.items[i].raw.key ? i : -1)).filter((i) => i >= 0));
  if (moved.size === 0) return undefined;
  const oldGroups = groupsOf(oldBlock, (item) => item.raw);
  const order = style.orders.find((o) => oldGroups.every((g) => isSorted(g, o)));

  const newGroups = groupsOf(newBlock, (item) => ({ item, index: newBlock.items.indexOf(item) }));
  const kept = newGroups.map((group) => group.filter((entry) => !order || !moved.has(entry.index)));
  const isDuplicate = (entry: { item: Item }, others: { item: Item }[]) =>
    others.some((o) => o !== entry && o.item.raw.key === entry.item.raw.key && itemText(o.item).trim() === itemText(entry.item).trim());
  if (order) {
    for (const index of [...moved].sort((a, b) => a - b)) {
      const entry = { item: newBlock.items[index], index };
      const origin = newGroups.findIndex((g) => g.some((e) => e.index === index));
      let target = chooseGroup(entry.item.raw, oldGroups, origin, style);
      if (target < 0) {
        const rankOf = (raw: RawImport) => (style.layout ? style.layout.groupOf(raw) : style.kindRank(raw.kind));
        const rank = rankOf(entry.item.raw);
        target = oldGroups.findIndex((g) => g.every((r) => rankOf(r) > rank));
        if (target < 0) target = oldGroups.length;
        oldGroups.splice(target, 0, [entry.item.raw]);
        kept.splice(target, 0, []);
      }
      const group = kept[target];
      if (isDuplicate(entry, group)) continue;
      let at = group.length;
      while (at > 0 && order(group[at - 1].item.raw, entry.item.raw) > 0) at--;
      group.splice(at, 0, entry);
    }
  }
  // A rewrite that made two imports the same leaves one (the first).
  const seen: { item: Item }[] = [];
  const groups = kept
    .map((group) =>
      group.filter((entry) => {
        if (moved.has(entry.index) && isDuplicate(entry, seen)) return false;
        seen.push(entry);
        return true;
      }),
    )
    .filter((group) => group.length > 0);

  const first = newBlock.items[0].first;
  const last = newBlock.items[newBlock.items.length - 1].last;
  const blockStart = lineContentStart(lines, first);
  const blockEnd = lines.lineEnd(last);
  const original = text.slice(blockStart, blockEnd);
  const eol = eolOf(original.includes('\n') ? original : text);
  const secondGroup = newBlock.groupStarts[1];
  const separator =
    secondGroup !== undefined ? text.slice(lines.lineEnd(newBlock.items[secondGroup - 1].last), lines.lineStart(newBlock.items[secondGroup].first)) : eol + eol;
  const rebuilt = groups.map((group) => group.map((entry) => itemText(entry.item)).join(eol)).join(separator);
  if (rebuilt === original) return undefined;
  return { first, last, text: rebuilt };
}
