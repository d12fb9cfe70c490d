import { bytesToBinaryString, utf8ToBinaryString } from './binary-string.js';
import { compareBytes, isBinaryContent, ZERO_OID } from '../objects/object-format.js';
import { diffLineArrays } from '../text/line-diff.js';
import { quoteGitPath } from '../text/quote-path.js';
import type { SideFile, TreeSide } from './tree-side.js';

export type PatchKind = 'ADDED' | 'MODIFIED' | 'DELETED' | 'TYPE_CHANGED';

/** One file's part of a patch. `text` is a binary string (one code unit per byte). */
export interface FilePatch {
  path: string;
  kind: PatchKind;
  oldMode?: string;
  newMode?: string;
  oldOid?: string;
  newOid?: string;
  binary: boolean;
  insertions: number;
  deletions: number;
  text: string;
}

const CONTEXT = 3;

/** Split into lines, each keeping its `\n` (the last may have none). */
function splitLines(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      out.push(text.slice(start, i + 1));
      start = i + 1;
    }
  }
  if (start < text.length) out.push(text.slice(start));
  return out;
}

/** One op per line of a diff: its tag and text, and the old/new line numbers before it. */
interface LineOps {
  tags: string[];
  lines: string[];
  oldAt: number[];
  newAt: number[];
  /** Old and new line counts after the last op. */
  oldNo: number;
  newNo: number;
}

function lineOps(a: string[], b: string[]): LineOps {
  const ops: LineOps = { tags: [], lines: [], oldAt: [], newAt: [], oldNo: 0, newNo: 0 };
  for (const change of diffLineArrays(a, b)) {
    const tag = change.removed ? '-' : change.added ? '+' : ' ';
    for (const line of change.value) {
      ops.tags.push(tag);
      ops.lines.push(line);
      ops.oldAt.push(ops.oldNo);
      ops.newAt.push(ops.newNo);
      if (tag !== '+') ops.oldNo++;
      if (tag !== '-') ops.newNo++;
    }
  }
  return ops;
}

/** Where the hunk whose first change is at `i` ends: later changes within 2*CONTEXT unchanged lines join it. */
function hunkEnd(tags: string[], i: number): number {
  const total = tags.length;
  let end = i;
  for (;;) {
    while (end < total && tags[end] !== ' ') end++;
    let j = end;
    while (j < total && tags[j] === ' ') j++;
    if (j < total && j - end <= 2 * CONTEXT) end = j;
    else return Math.min(total, end + CONTEXT);
  }
}

const range = (s: number, n: number) => (n === 1 ? `${s}` : `${s},${n}`);

/** The `@@` header of the hunk over ops [start, end). */
function hunkHeader(ops: LineOps, start: number, end: number): string {
  const total = ops.tags.length;
  const oldCount = (end < total ? ops.oldAt[end] : ops.oldNo) - ops.oldAt[start];
  const newCount = (end < total ? ops.newAt[end] : ops.newNo) - ops.newAt[start];
  const oldStart = oldCount === 0 ? ops.oldAt[start] : ops.oldAt[start] + 1;
  const newStart = newCount === 0 ? ops.newAt[start] : ops.newAt[start] + 1;
  return `@@ -${range(oldStart, oldCount)} +${range(newStart, newCount)} @@\n`;
}

/**
 * Unified hunks (3 lines of context, git's header format) between two binary strings, plus
 * counts. Lines without a final newline get git's `\ No newline at end of file` marker. The
 * line diff is bounded (see `diffLineArrays`) and the hunks are built in one linear pass, so a
 * file with every line changed stays fast.
 */
export function buildHunks(oldText: string, newText: string): { hunks: string; insertions: number; deletions: number } {
  const ops = lineOps(splitLines(oldText), splitLines(newText));
  const { tags, lines } = ops;
  const total = tags.length;
  let insertions = 0;
  let deletions = 0;
  const out: string[] = [];
  let i = 0;
  while (i < total) {
    while (i < total && tags[i] === ' ') i++;
    if (i >= total) break;
    const start = Math.max(0, i - CONTEXT);
    const end = hunkEnd(tags, i);
    out.push(hunkHeader(ops, start, end));
    for (let k = start; k < end; k++) {
      if (tags[k] === '+') insertions++;
      if (tags[k] === '-') deletions++;
      out.push(tags[k], lines[k]);
      if (lines[k].charCodeAt(lines[k].length - 1) !== 10) out.push('\n\\ No newline at end of file\n');
    }
    i = end;
  }
  return { hunks: out.join(''), insertions, deletions };
}

const label = (prefix: string, path: string) => {
  const quoted = quoteGitPath(`${prefix}${path}`);
  return quoted;
};
const fileLine = (prefix: string, path: string) => {
  const quoted = label(prefix, path);
  return quoted.startsWith('"') || !path.includes(' ') ? quoted : `${quoted}\t`;
};

async function content(side: TreeSide, path: string, file: SideFile): Promise<Uint8Array> {
  if (file.mode === '160000') return new TextEncoder().encode(`Subproject commit ${file.oid}\n`);
  return side.read(path);
}

/** The extended header lines of a section: creation, deletion, mode change, `index`. */
function extendedHeader(a: SideFile | undefined, b: SideFile | undefined): string {
  if (!a && b) return `new file mode ${b.mode}\nindex ${ZERO_OID}..${b.oid}\n`;
  if (a && !b) return `deleted file mode ${a.mode}\nindex ${a.oid}..${ZERO_OID}\n`;
  if (!a || !b) return '';
  let head = '';
  if (a.mode !== b.mode) head += `old mode ${a.mode}\nnew mode ${b.mode}\n`;
  if (a.oid !== b.oid) head += a.mode === b.mode ? `index ${a.oid}..${b.oid} ${a.mode}\n` : `index ${a.oid}..${b.oid}\n`;
  return head;
}

/** A side's name of `path` in a `---`/`+++` or `Binary files` line; /dev/null when the side has no file. */
const sideName = (file: SideFile | undefined, name: string) => (file ? utf8ToBinaryString(name) : '/dev/null');

/** One `diff --git` section (an add, a delete, or a same-type change). */
async function section(
  path: string,
  from: TreeSide,
  to: TreeSide,
  a: SideFile | undefined,
  b: SideFile | undefined,
): Promise<Omit<FilePatch, 'kind' | 'path'>> {
  const oldBytes = a ? await content(from, path, a) : new Uint8Array();
  const newBytes = b ? await content(to, path, b) : new Uint8Array();
  const binary = isBinaryContent(oldBytes) || isBinaryContent(newBytes);
  const head = utf8ToBinaryString(`diff --git ${label('a/', path)} ${label('b/', path)}\n`) + extendedHeader(a, b);
  const meta = { oldMode: a?.mode, newMode: b?.mode, oldOid: a?.oid, newOid: b?.oid };
  if (a?.oid === b?.oid) return { ...meta, binary, insertions: 0, deletions: 0, text: head };
  if (binary) {
    const text = `${head}Binary files ${sideName(a, label('a/', path))} and ${sideName(b, label('b/', path))} differ\n`;
    return { ...meta, binary, insertions: 0, deletions: 0, text };
  }
  const { hunks, insertions, deletions } = buildHunks(bytesToBinaryString(oldBytes), bytesToBinaryString(newBytes));
  const text = hunks ? `${head}--- ${sideName(a, fileLine('a/', path))}\n+++ ${sideName(b, fileLine('b/', path))}\n${hunks}` : head;
  return { ...meta, binary, insertions, deletions, text };
}

const typeOf = (f: SideFile) => (f.mode === '120000' ? 'link' : f.mode === '160000' ? 'gitlink' : 'file');

/**
 * Git-style patches from one side to another, file by file in path-byte order, with full
 * object ids on `index` lines (so `git apply` can also restore binaries from the object store).
 * Renames appear as a delete and an add (`--no-renames`); a type change as a delete then an
 * add of the same path, as git prints it. `paths` limits the comparison to those paths.
 */
export async function diffSides(from: TreeSide, to: TreeSide, options: { paths?: string[] } = {}): Promise<FilePatch[]> {
  const wanted = options.paths ? new Set(options.paths) : undefined;
  const all = [...new Set([...from.files.keys(), ...to.files.keys()])].filter((p) => !wanted || wanted.has(p)).sort(compareBytes);
  const out: FilePatch[] = [];
  for (const path of all) {
    const a = from.files.get(path);
    const b = to.files.get(path);
    if (a && b && a.oid === b.oid && a.mode === b.mode) continue;
    if (a && b && typeOf(a) !== typeOf(b)) {
      const del = await section(path, from, to, a, undefined);
      const add = await section(path, from, to, undefined, b);
      out.push({
        path,
        kind: 'TYPE_CHANGED',
        oldMode: a.mode,
        newMode: b.mode,
        oldOid: a.oid,
        newOid: b.oid,
        binary: del.binary || add.binary,
        insertions: del.insertions + add.insertions,
        deletions: del.deletions + add.deletions,
        text: del.text + add.text,
      });
      continue;
    }
    const s = await section(path, from, to, a, b);
    out.push({ path, kind: !a ? 'ADDED' : !b ? 'DELETED' : 'MODIFIED', ...s });
  }
  return out;
}

/** `git diff --numstat` lines (`-\t-` for binaries), paths quoted as git quotes them. */
export function formatNumstat(files: FilePatch[]): string {
  return files.map((f) => (f.binary ? `-\t-\t${quoteGitPath(f.path)}\n` : `${f.insertions}\t${f.deletions}\t${quoteGitPath(f.path)}\n`)).join('');
}
