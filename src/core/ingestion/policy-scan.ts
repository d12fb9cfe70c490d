import type { TreeFile } from '../workspace/workspace.js';
import { resolveLinkTarget } from '../util/repo-path.js';
import { hostileNameKind, type HostileKind } from './hostile-entry.js';
import type { IngestionPolicy } from './ingestion-policy.js';
import type { CatalogEntry } from './pack-catalog.js';
import { isStandardModeSpelling, parseTreeEntries, type RawTreeEntry } from './tree-entries.js';
import { sortByPath } from '../util/path-order.js';
import { flatString } from '../util/flat-string.js';

export type FindingCode =
  | 'HOSTILE_TREE_ENTRY'
  | 'FORBIDDEN_SYMLINK'
  | 'SUBMODULE_BLOCKED'
  | 'SUBMODULE_PRESENT'
  | 'LFS_BLOCKED'
  | 'LFS_POINTER'
  | 'FILE_COUNT_EXCEEDED'
  | 'FILE_TOO_LARGE'
  | 'BINARY_FILE'
  | 'ATTRIBUTES_NOT_APPLIED';

/** One thing the scan noticed. `block` findings stop ingestion; `warn` ones are reported. */
export interface Finding {
  code: FindingCode;
  severity: 'block' | 'warn';
  path: string;
  message: string;
  data?: Record<string, unknown>;
}

export interface SymlinkInfo {
  path: string;
  target: string;
  /** Where it points inside the repository, or null when it leaves it. */
  resolved: string | null;
  allowed: boolean;
}

export interface PolicyScanResult {
  files: TreeFile[];
  fileCount: number;
  totalBytes: number;
  findings: Finding[];
  /** Findings per code, including those left out of `findings` by the cap. */
  counts: Partial<Record<FindingCode, number>>;
  blocked: boolean;
  symlinks: SymlinkInfo[];
  submodules: { path: string; oid?: string; url?: string }[];
  lfs: { attributeFiles: string[]; pointers: string[] };
}

/** How the scan reads objects: the pack catalog first, isomorphic-git for the rest. */
export interface ObjectReader {
  entry(oid: string): Promise<CatalogEntry>;
  /** The entry when it is at hand without waiting (the pack catalog's objects); tens of thousands of awaits are not free. */
  known?(oid: string): CatalogEntry | undefined;
  /** Full blob content, for the few small files the scan must parse. */
  blob(oid: string): Promise<Uint8Array>;
}

const MAX_FINDINGS_PER_CODE = 200;
const LFS_HEADER = 'version https://git-lfs.github.com/spec/v1';
const MIB = 1024 * 1024;
const decoder = new TextDecoder('utf-8');

/**
 * The policy scan, from tree objects, before anything is materialised: hostile
 * entries, symlinks, submodules, LFS, attributes that would rewrite content, file sizes,
 * binaries, file count. Returns the file list for the workspace (empty when blocked by a
 * hostile entry, since such a tree must never be opened).
 */
export async function scanTree(options: { treeOid: string; policy: IngestionPolicy; objects: ObjectReader }): Promise<PolicyScanResult> {
  const { policy, objects } = options;
  const findings: Finding[] = [];
  const counts: Partial<Record<FindingCode, number>> = {};
  const add = (finding: Finding): void => {
    counts[finding.code] = (counts[finding.code] ?? 0) + 1;
    if ((counts[finding.code] ?? 0) <= MAX_FINDINGS_PER_CODE) findings.push(finding);
  };
  const hostile = (path: string, kind: HostileKind, entry: string, mode?: string): void =>
    add({ code: 'HOSTILE_TREE_ENTRY', severity: 'block', path, message: `refused tree entry (${kind})`, data: { entry, kind, ...(mode !== undefined ? { mode } : {}) } });

  const files: TreeFile[] = [];
  const symlinks: SymlinkInfo[] = [];
  const submodules: PolicyScanResult['submodules'] = [];
  // Depth first, each tree's entries in their stored order: git sorts a tree's entries by name
  // (a directory as `name/`), so the files come out in path order and need no sort afterwards
  // (checked, since JavaScript orders strings by UTF-16 units rather than bytes).
  interface Frame {
    entries: RawTreeEntry[];
    next: number;
    prefix: string;
    /** `prefix/`, made once per directory. */
    base: string;
    depth: number;
    seen: Map<string, string>;
  }
  const open = async (oid: string, prefix: string, depth: number): Promise<Frame> => {
    const tree = objects.known?.(oid) ?? (await objects.entry(oid));
    if (tree.type !== 'tree' || !tree.content) throw new Error(`expected a tree object at ${prefix || '/'}: ${oid}`);
    return { entries: parseTreeEntries(tree.content), next: 0, prefix, base: prefix ? `${prefix}/` : '', depth, seen: new Map() };
  };
  const stack: Frame[] = [await open(options.treeOid, '', 0)];
  // Trees can share subtrees, so a few objects can spell billions of paths (a "tree bomb"):
  // enumeration stops as soon as the count limit is passed, for files and directories alike.
  let directories = 0;
  let overLimit = false;
  while (stack.length > 0 && !overLimit) {
    const frame = stack[stack.length - 1];
    if (frame.next >= frame.entries.length) {
      stack.pop();
      continue;
    }
    const item = frame.entries[frame.next++];
    const { depth, seen } = frame;
    // Flat from the start: the workspace keeps a path for every file (core/util/flat-string.ts).
    const path = flatString(frame.base + item.name);
    // Names first, with the type git gives the entry: `.git` is refused whatever its mode.
    const kind = hostileNameKind(item.name) ?? (item.nameValid ? undefined : 'BAD_ENCODING');
    if (kind) {
      hostile(path, kind, item.name, item.rawMode);
      continue;
    }
    if (!item.mode || !isStandardModeSpelling(item.rawMode)) {
      hostile(path, 'BAD_MODE', item.name, item.rawMode);
      // A directory is still walked, so what it hides is reported too.
      if (item.mode !== '040000') continue;
    }
    const folded = item.name.toLowerCase();
    const other = seen.get(folded);
    if (other !== undefined) {
      hostile(path, 'CASE_COLLISION', item.name);
      continue;
    }
    seen.set(folded, item.name);
    if (depth + 1 > policy.maxPathDepth) {
      hostile(path, 'TOO_DEEP', item.name);
      continue;
    }
    if (path.length > policy.maxPathLength) {
      hostile(path, 'TOO_LONG', item.name);
      continue;
    }
    if (item.mode === '040000') {
      directories += 1;
      if (directories > policy.maxFileCount) overLimit = true;
      else stack.push(await open(item.oid, path, depth + 1));
      continue;
    }
    if (item.mode === '160000') {
      submodules.push({ path, oid: item.oid });
      files.push({ path, mode: '160000', oid: item.oid });
    } else files.push({ path, mode: item.mode ?? '100644', oid: item.oid });
    if (files.length > policy.maxFileCount) overLimit = true;
  }
  sortByPath(files, (f) => f.path);

  if (overLimit) {
    const what = files.length > policy.maxFileCount ? 'files' : 'directories';
    add({
      code: 'FILE_COUNT_EXCEEDED',
      severity: 'block',
      path: '',
      message: `the tree has more than ${policy.maxFileCount} ${what}, the limit is ${policy.maxFileCount} (counting stopped there)`,
      data: { fileCount: files.length, directoryCount: directories, limit: policy.maxFileCount, complete: false },
    });
  }

  let totalBytes = 0;
  const attributeFiles: string[] = [];
  const pointers: string[] = [];
  let gitmodules: TreeFile | undefined;
  if (!counts.FILE_COUNT_EXCEEDED) {
    for (const file of files) {
      if (file.mode === '160000') continue;
      const blob = objects.known?.(file.oid) ?? (await objects.entry(file.oid));
      totalBytes += blob.size;
      if (file.mode === '120000') {
        const target = decoder.decode(blob.head && blob.size <= blob.head.byteLength ? blob.head : await objects.blob(file.oid));
        const resolved = symlinkDestination(file.path, target);
        symlinks.push({ path: file.path, target, resolved: resolved ?? null, allowed: resolved !== undefined });
        if (resolved === undefined) add({ code: 'FORBIDDEN_SYMLINK', severity: 'block', path: file.path, message: 'symlink points outside the workspace', data: { target } });
        continue;
      }
      const name = file.path.slice(file.path.lastIndexOf('/') + 1);
      if (file.path === '.gitmodules') gitmodules = file;
      if (name === '.gitattributes') {
        const text = decoder.decode(await objects.blob(file.oid));
        const scan = scanAttributes(text);
        if (scan.lfs) attributeFiles.push(file.path);
        if (scan.rewriting.length > 0) {
          add({ code: 'ATTRIBUTES_NOT_APPLIED', severity: 'warn', path: file.path, message: 'content is read as stored; these attributes are not applied', data: { attributes: scan.rewriting } });
        }
      }
      if (blob.size > policy.maxFileSizeMb * MIB) {
        add({ code: 'FILE_TOO_LARGE', severity: 'warn', path: file.path, message: 'file is over the size limit', data: { sizeBytes: blob.size, limitMb: policy.maxFileSizeMb } });
      }
      if (blob.size < 1024 && blob.head && decoder.decode(blob.head.subarray(0, LFS_HEADER.length)) === LFS_HEADER) pointers.push(file.path);
      else if (blob.binary) add({ code: 'BINARY_FILE', severity: 'warn', path: file.path, message: 'binary file (NUL in the first 8000 bytes)', data: { sizeBytes: blob.size } });
    }
  }

  if (gitmodules || submodules.length > 0) {
    const urls = gitmodules ? parseGitmodules(decoder.decode(await objects.blob(gitmodules.oid))) : new Map<string, string>();
    for (const sub of submodules) sub.url = urls.get(sub.path);
    for (const [path, url] of urls) if (!submodules.some((s) => s.path === path)) submodules.push({ path, url });
    const opaque = policy.submodules === 'opaque';
    const code = opaque ? 'SUBMODULE_PRESENT' : 'SUBMODULE_BLOCKED';
    const severity = opaque ? 'warn' : 'block';
    if (gitmodules) add({ code, severity, path: '.gitmodules', message: 'repository declares submodules; they are never fetched', data: { submodules: submodules.map((s) => s.path) } });
    const gitlink = opaque ? 'gitlink kept as it is (submodule commit, never fetched or edited)' : 'gitlink entry (submodule commit)';
    for (const sub of submodules.filter((s) => s.oid)) add({ code, severity, path: sub.path, message: gitlink, data: { oid: sub.oid, url: sub.url } });
  }
  if (attributeFiles.length > 0 || pointers.length > 0) {
    const code = policy.allowLfs ? 'LFS_POINTER' : 'LFS_BLOCKED';
    const severity = policy.allowLfs ? 'warn' : 'block';
    for (const path of attributeFiles) add({ code, severity, path, message: 'filter=lfs in .gitattributes; LFS content is never downloaded' });
    for (const path of pointers) add({ code, severity, path, message: 'LFS pointer file; the workspace holds the pointer, not the content' });
  }

  const blocked = findings.some((f) => f.severity === 'block');
  return {
    files,
    fileCount: files.length,
    totalBytes,
    findings,
    counts,
    blocked,
    symlinks,
    submodules,
    lfs: { attributeFiles, pointers },
  };
}

/** Where a symlink lands inside the repository; undefined when outside it or inside `.git`. */
function symlinkDestination(path: string, target: string): string | undefined {
  if (target.includes('\u0000') || target.includes('\\')) return undefined;
  const resolved = resolveLinkTarget(path, target);
  if (resolved === undefined) return undefined;
  if (resolved.split('/').some((segment) => hostileNameKind(segment) === 'DOT_GIT')) return undefined;
  return resolved;
}

/** Attributes that would make a checkout differ from the stored blob, and whether LFS is used. */
export function scanAttributes(text: string): { lfs: boolean; rewriting: string[] } {
  let lfs = false;
  const rewriting = new Set<string>();
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    for (const attr of line.split(/\s+/).slice(1)) {
      if (attr === 'filter=lfs') lfs = true;
      else if (/^filter=/.test(attr) || /^eol=/.test(attr) || /^working-tree-encoding=/.test(attr) || attr === 'ident' || attr === 'text' || /^text=/.test(attr) || attr === 'crlf') {
        rewriting.add(attr);
      }
    }
  }
  return { lfs, rewriting: [...rewriting].sort() };
}

/** `path -> url` from a .gitmodules file; credentials in URLs are dropped. */
export function parseGitmodules(text: string): Map<string, string> {
  const out = new Map<string, string>();
  let path: string | undefined;
  let url: string | undefined;
  const flush = (): void => {
    if (path) out.set(path, url ?? '');
    path = undefined;
    url = undefined;
  };
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line.startsWith('[')) flush();
    const match = /^(path|url)\s*=\s*(.*)$/.exec(line);
    if (match?.[1] === 'path') path = match[2];
    if (match?.[1] === 'url') url = stripCredentials(match[2]);
  }
  flush();
  return out;
}

function stripCredentials(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, '$1');
}
