import git from 'isomorphic-git';
import type { FileMode, Workspace } from '../workspace/workspace.js';
import { binaryStringToBytes, bytesToBinaryString } from './binary-string.js';
import { GitBoundaryError } from './git-boundary-error.js';
import { hashBlobBytes } from './git-objects.js';
import { ZERO_OID } from '../objects/object-format.js';
import { unquoteGitPath } from '../text/quote-path.js';

interface Section {
  path: string;
  oldMode?: string;
  newMode?: string;
  oldOid?: string;
  newOid?: string;
  created: boolean;
  deleted: boolean;
  binary: boolean;
  hunks: { oldStart: number; lines: string[] }[];
}

type State = { content: Uint8Array; mode: FileMode } | null;

const invalid = (message: string, data: Record<string, unknown> = {}) => new GitBoundaryError('PATCH_INVALID', message, data);
const mismatch = (message: string, data: Record<string, unknown> = {}) => new GitBoundaryError('PATCH_MISMATCH', message, data);

function stripPrefix(label: string): string {
  const name = unquoteGitPath(label.replace(/\t$/, ''));
  return name.replace(/^[ab]\//, '');
}

/** The path of a `diff --git a/X b/X` line (same name on both sides, as our patches have). */
function headerPath(rest: string): string {
  if (rest.startsWith('"')) {
    let end = 1;
    while (end < rest.length && rest[end] !== '"') end += rest[end] === '\\' ? 2 : 1;
    return stripPrefix(rest.slice(0, end + 1));
  }
  const half = (rest.length - 1) / 2;
  return stripPrefix(rest.slice(0, half));
}

/** Header lines of a section after `diff --git`, each with what it records. */
const HEADER_RULES: [RegExp, (section: Section, m: RegExpMatchArray) => void][] = [
  [
    /^new file mode (\d+)$/,
    (s, m) => {
      s.created = true;
      s.newMode = m[1];
    },
  ],
  [
    /^deleted file mode (\d+)$/,
    (s, m) => {
      s.deleted = true;
      s.oldMode = m[1];
    },
  ],
  [
    /^old mode (\d+)$/,
    (s, m) => {
      s.oldMode = m[1];
    },
  ],
  [
    /^new mode (\d+)$/,
    (s, m) => {
      s.newMode = m[1];
    },
  ],
  [
    /^index ([0-9a-f]+)\.\.([0-9a-f]+)(?: (\d+))?$/,
    (s, m) => {
      s.oldOid = m[1];
      s.newOid = m[2];
      if (m[3]) s.oldMode = s.newMode = m[3];
    },
  ],
  // Paths come from the diff --git header; nothing else to take.
  [/^(?:---|\+\+\+) /, () => {}],
  [
    /^Binary files /,
    (s) => {
      s.binary = true;
    },
  ],
];

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/** Read the body of the hunk whose header `m` matched at lines[i - 1]; returns the index after it. */
function readHunk(lines: string[], i: number, m: RegExpMatchArray, current: Section): number {
  const oldCount = m[2] === undefined ? 1 : Number(m[2]);
  const newCount = m[4] === undefined ? 1 : Number(m[4]);
  const hunk = { oldStart: Number(m[1]), lines: [] as string[] };
  let seenOld = 0;
  let seenNew = 0;
  while (i < lines.length && (seenOld < oldCount || seenNew < newCount || lines[i].startsWith('\\'))) {
    const l = lines[i];
    if (l.startsWith('\\')) {
      if (hunk.lines.length === 0) throw invalid('misplaced no-newline marker');
      hunk.lines[hunk.lines.length - 1] = hunk.lines[hunk.lines.length - 1].replace(/\n$/, '');
    } else {
      const tag = l[0];
      if (tag === ' ' || tag === '-') seenOld++;
      if (tag === ' ' || tag === '+') seenNew++;
      if (tag !== ' ' && tag !== '-' && tag !== '+') throw invalid('bad hunk line', { path: current.path });
      hunk.lines.push(`${l}\n`);
    }
    i++;
  }
  if (seenOld !== oldCount || seenNew !== newCount) throw invalid('hunk is shorter than its header says', { path: current.path });
  current.hunks.push(hunk);
  return i;
}

/** Record one header line of `current`; false when no header rule knows the line. */
function readHeaderLine(line: string, current: Section): boolean {
  for (const [pattern, take] of HEADER_RULES) {
    const m = line.match(pattern);
    if (!m) continue;
    take(current, m);
    return true;
  }
  return false;
}

/** Parse a git-style patch (binary string) into sections. */
function parsePatch(text: string): Section[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const sections: Section[] = [];
  let current: Section | undefined;
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    i++;
    if (line.startsWith('diff --git ')) {
      current = { path: headerPath(line.slice('diff --git '.length)), created: false, deleted: false, binary: false, hunks: [] };
      sections.push(current);
      continue;
    }
    if (!current) throw invalid('patch does not start with a diff --git header');
    if (readHeaderLine(line, current)) continue;
    const m = line.match(HUNK_HEADER);
    if (!m) throw invalid('unexpected line in patch', { path: current.path, line: line.slice(0, 80) });
    i = readHunk(lines, i, m, current);
  }
  return sections;
}

function splitLines(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let k = 0; k < text.length; k++) {
    if (text.charCodeAt(k) === 10) {
      out.push(text.slice(start, k + 1));
      start = k + 1;
    }
  }
  if (start < text.length) out.push(text.slice(start));
  return out;
}

function applyHunks(path: string, before: string, hunks: Section['hunks']): string {
  const lines = splitLines(before);
  const out: string[] = [];
  let at = 0;
  for (const h of hunks) {
    const start = h.lines.every((l) => l[0] === '+') ? h.oldStart : h.oldStart - 1;
    if (start < at) throw mismatch('hunks overlap', { path });
    out.push(...lines.slice(at, start));
    at = start;
    for (const l of h.lines) {
      const tag = l[0];
      const body = l.slice(1);
      if (tag === '+') out.push(body);
      else {
        if (lines[at] !== body) throw mismatch('the workspace does not match the patch context', { path, line: at + 1 });
        if (tag === ' ') out.push(body);
        at++;
      }
    }
  }
  out.push(...lines.slice(at));
  return out.join('');
}

const isFullOid = (oid: string | undefined): oid is string => oid !== undefined && oid.length === 40;

/** Throw PATCH_MISMATCH unless the file's state before the section is what the section expects. */
async function checkPreImage(s: Section, before: State): Promise<void> {
  if (s.created) {
    if (before) throw mismatch('the patch creates a file that exists', { path: s.path });
    return;
  }
  if (!before) throw mismatch('the patch changes a file that does not exist', { path: s.path });
  if (s.oldMode && before.mode !== s.oldMode) throw mismatch('the file mode differs from the patch', { path: s.path, mode: before.mode, expected: s.oldMode });
  if (isFullOid(s.oldOid) && s.oldOid !== ZERO_OID && (await hashBlobBytes(before.content)) !== s.oldOid) {
    throw mismatch('the file content differs from the patch pre-image', { path: s.path });
  }
}

/** The content a binary section restores: its full post-image id, read from the object store. */
async function binaryPostImage(workspace: Workspace, s: Section): Promise<Uint8Array> {
  if (!isFullOid(s.newOid)) throw invalid('a binary change needs a full index line', { path: s.path });
  try {
    return (await git.readBlob({ fs: workspace.fs, gitdir: workspace.gitdir, oid: s.newOid })).blob;
  } catch (error) {
    throw new GitBoundaryError('BLOB_MISSING', 'the binary post-image is not in the object store', { path: s.path, oid: s.newOid }, { cause: error });
  }
}

/** The file's state after a section that does not delete it. */
async function postImage(workspace: Workspace, s: Section, before: State): Promise<State> {
  const mode = (s.newMode ?? before?.mode ?? '100644') as FileMode;
  const content = s.binary
    ? await binaryPostImage(workspace, s)
    : binaryStringToBytes(applyHunks(s.path, before ? bytesToBinaryString(before.content) : '', s.hunks));
  if (isFullOid(s.newOid) && (await hashBlobBytes(content)) !== s.newOid) throw mismatch('the result does not hash to the patch post-image', { path: s.path });
  return { content, mode };
}

/**
 * Apply one of our own git-style patches to the workspace (used by resume). Strict: every
 * pre-image must match exactly (full `index` ids, context lines, modes); on any mismatch
 * nothing is written and PATCH_MISMATCH is thrown. Binary changes are restored from the
 * object store by their full post-image id.
 */
export async function applyPatch(workspace: Workspace, patch: string | Uint8Array): Promise<{ paths: string[] }> {
  const text = typeof patch === 'string' ? bytesToBinaryString(new TextEncoder().encode(patch)) : bytesToBinaryString(patch);
  const sections = parsePatch(text);
  const pending = new Map<string, State>();
  const current = async (path: string): Promise<State> => {
    if (pending.has(path)) return pending.get(path)!;
    const entry = workspace.entry(path);
    return entry ? { content: await workspace.read(path), mode: entry.mode } : null;
  };
  for (const s of sections) {
    const before = await current(s.path);
    await checkPreImage(s, before);
    pending.set(s.path, s.deleted ? null : await postImage(workspace, s, before));
  }
  for (const [path, state] of pending) {
    if (state === null) await workspace.delete(path);
    else await workspace.write(path, state.content, state.mode);
  }
  return { paths: [...pending.keys()] };
}
