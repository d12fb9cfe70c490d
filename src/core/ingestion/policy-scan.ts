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

/** The scan's findings, capped per code; `counts` keeps every one. One per scan. */
class FindingLog {
  readonly findings: Finding[] = [];
  readonly counts: Partial<Record<FindingCode, number>> = {};

  add(finding: Finding): void {
    this.counts[finding.code] = (this.counts[finding.code] ?? 0) + 1;
    if ((this.counts[finding.code] ?? 0) <= MAX_FINDINGS_PER_CODE) this.findings.push(finding);
  }

  hostile(path: string, kind: HostileKind, entry: string, mode?: string): void {
    this.add({
      code: 'HOSTILE_TREE_ENTRY',
      severity: 'block',
      path,
      message: `refused tree entry (${kind})`,
      data: { entry, kind, ...(mode !== undefined ? { mode } : {}) },
    });
  }
}

/** One tree being walked: its entries, the next one, and the names seen so far (case-folded). */
interface Frame {
  entries: RawTreeEntry[];
  next: number;
  prefix: string;
  /** `prefix/`, made once per directory. */
  base: string;
  depth: number;
  seen: Map<string, string>;
}

/** What the walk of the trees found: the files in path order, gitlinks, and whether it stopped at the count limit. */
interface TreeWalk {
  files: TreeFile[];
  submodules: PolicyScanResult['submodules'];
  directories: number;
  overLimit: boolean;
}

async function openTree(objects: ObjectReader, oid: string, prefix: string, depth: number): Promise<Frame> {
  const tree = objects.known?.(oid) ?? (await objects.entry(oid));
  if (tree.type !== 'tree' || !tree.content) throw new Error(`expected a tree object at ${prefix || '/'}: ${oid}`);
  return { entries: parseTreeEntries(tree.content), next: 0, prefix, base: prefix ? `${prefix}/` : '', depth, seen: new Map() };
}

/**
 * Whether the walk takes an entry: names first, with the type git gives the entry (`.git` is
 * refused whatever its mode), then its mode, a case collision, depth and length; each refusal
 * is reported. A directory with a bad mode is still walked, so what it hides is reported too.
 */
function admitEntry(item: RawTreeEntry, frame: Frame, path: string, policy: IngestionPolicy, log: FindingLog): boolean {
  const kind = hostileNameKind(item.name) ?? (item.nameValid ? undefined : 'BAD_ENCODING');
  if (kind) {
    log.hostile(path, kind, item.name, item.rawMode);
    return false;
  }
  if (!item.mode || !isStandardModeSpelling(item.rawMode)) {
    log.hostile(path, 'BAD_MODE', item.name, item.rawMode);
    if (item.mode !== '040000') return false;
  }
  const folded = item.name.toLowerCase();
  if (frame.seen.get(folded) !== undefined) {
    log.hostile(path, 'CASE_COLLISION', item.name);
    return false;
  }
  frame.seen.set(folded, item.name);
  return admitPlace(item, frame.depth, path, policy, log);
}

function admitPlace(item: RawTreeEntry, depth: number, path: string, policy: IngestionPolicy, log: FindingLog): boolean {
  if (depth + 1 > policy.maxPathDepth) {
    log.hostile(path, 'TOO_DEEP', item.name);
    return false;
  }
  if (path.length > policy.maxPathLength) {
    log.hostile(path, 'TOO_LONG', item.name);
    return false;
  }
  return true;
}

function addFile(walk: TreeWalk, path: string, oid: string, mode: Exclude<RawTreeEntry['mode'], '040000'>): void {
  if (mode === '160000') {
    walk.submodules.push({ path, oid });
    walk.files.push({ path, mode: '160000', oid });
  } else walk.files.push({ path, mode: mode ?? '100644', oid });
}

/**
 * Depth first, each tree's entries in their stored order: git sorts a tree's entries by name
 * (a directory as `name/`), so the files come out in path order and need no sort afterwards
 * (checked, since JavaScript orders strings by UTF-16 units rather than bytes). Trees can share
 * subtrees, so a few objects can spell billions of paths (a "tree bomb"): enumeration stops as
 * soon as the count limit is passed, for files and directories alike.
 */
async function walkTrees(treeOid: string, policy: IngestionPolicy, objects: ObjectReader, log: FindingLog): Promise<TreeWalk> {
  const walk: TreeWalk = { files: [], submodules: [], directories: 0, overLimit: false };
  const stack: Frame[] = [await openTree(objects, treeOid, '', 0)];
  while (stack.length > 0 && !walk.overLimit) {
    const frame = stack[stack.length - 1];
    if (frame.next >= frame.entries.length) {
      stack.pop();
      continue;
    }
    const item = frame.entries[frame.next++];
    // Flat from the start: the workspace keeps a path for every file (core/util/flat-string.ts).
    const path = flatString(frame.base + item.name);
    if (!admitEntry(item, frame, path, policy, log)) continue;
    if (item.mode === '040000') {
      walk.directories += 1;
      if (walk.directories > policy.maxFileCount) walk.overLimit = true;
      else stack.push(await openTree(objects, item.oid, path, frame.depth + 1));
      continue;
    }
    addFile(walk, path, item.oid, item.mode);
    if (walk.files.length > policy.maxFileCount) walk.overLimit = true;
  }
  sortByPath(walk.files, (f) => f.path);
  return walk;
}

/** What the pass over the files' blobs gathers. */
interface BlobScan {
  totalBytes: number;
  symlinks: SymlinkInfo[];
  attributeFiles: string[];
  pointers: string[];
  gitmodules?: TreeFile;
}

async function scanSymlink(file: TreeFile, blob: CatalogEntry, objects: ObjectReader, scan: BlobScan, log: FindingLog): Promise<void> {
  const target = decoder.decode(blob.head && blob.size <= blob.head.byteLength ? blob.head : await objects.blob(file.oid));
  const resolved = symlinkDestination(file.path, target);
  scan.symlinks.push({ path: file.path, target, resolved: resolved ?? null, allowed: resolved !== undefined });
  if (resolved === undefined)
    log.add({ code: 'FORBIDDEN_SYMLINK', severity: 'block', path: file.path, message: 'symlink points outside the workspace', data: { target } });
}

async function scanAttributesFile(file: TreeFile, objects: ObjectReader, scan: BlobScan, log: FindingLog): Promise<void> {
  const attributes = scanAttributes(decoder.decode(await objects.blob(file.oid)));
  if (attributes.lfs) scan.attributeFiles.push(file.path);
  if (attributes.rewriting.length > 0) {
    log.add({
      code: 'ATTRIBUTES_NOT_APPLIED',
      severity: 'warn',
      path: file.path,
      message: 'content is read as stored; these attributes are not applied',
      data: { attributes: attributes.rewriting },
    });
  }
}

/** A regular file's size, LFS pointer and binary findings, from the catalog's facts (no read). */
function blobFindings(file: TreeFile, blob: CatalogEntry, policy: IngestionPolicy, scan: BlobScan, log: FindingLog): void {
  if (blob.size > policy.maxFileSizeMb * MIB) {
    log.add({
      code: 'FILE_TOO_LARGE',
      severity: 'warn',
      path: file.path,
      message: 'file is over the size limit',
      data: { sizeBytes: blob.size, limitMb: policy.maxFileSizeMb },
    });
  }
  if (blob.size < 1024 && blob.head && decoder.decode(blob.head.subarray(0, LFS_HEADER.length)) === LFS_HEADER) scan.pointers.push(file.path);
  else if (blob.binary)
    log.add({ code: 'BINARY_FILE', severity: 'warn', path: file.path, message: 'binary file (NUL in the first 8000 bytes)', data: { sizeBytes: blob.size } });
}

const isAttributesFile = (path: string): boolean => path === '.gitattributes' || path.endsWith('/.gitattributes');

/** Sizes, symlinks, attributes, LFS pointers and binaries of every file but gitlinks. */
async function scanBlobs(files: TreeFile[], policy: IngestionPolicy, objects: ObjectReader, log: FindingLog): Promise<BlobScan> {
  const scan: BlobScan = { totalBytes: 0, symlinks: [], attributeFiles: [], pointers: [] };
  for (const file of files) {
    if (file.mode === '160000') continue;
    const blob = objects.known?.(file.oid) ?? (await objects.entry(file.oid));
    scan.totalBytes += blob.size;
    if (file.mode === '120000') {
      await scanSymlink(file, blob, objects, scan, log);
      continue;
    }
    if (file.path === '.gitmodules') scan.gitmodules = file;
    if (isAttributesFile(file.path)) await scanAttributesFile(file, objects, scan, log);
    blobFindings(file, blob, policy, scan, log);
  }
  return scan;
}

/** Submodules (declared in .gitmodules or present as gitlinks): never fetched; blocked unless the policy keeps them opaque. */
async function reportSubmodules(
  submodules: PolicyScanResult['submodules'],
  gitmodules: TreeFile | undefined,
  policy: IngestionPolicy,
  objects: ObjectReader,
  log: FindingLog,
): Promise<void> {
  if (!gitmodules && submodules.length === 0) return;
  const urls = gitmodules ? parseGitmodules(decoder.decode(await objects.blob(gitmodules.oid))) : new Map<string, string>();
  for (const sub of submodules) sub.url = urls.get(sub.path);
  for (const [path, url] of urls) if (!submodules.some((s) => s.path === path)) submodules.push({ path, url });
  const opaque = policy.submodules === 'opaque';
  const code = opaque ? 'SUBMODULE_PRESENT' : 'SUBMODULE_BLOCKED';
  const severity = opaque ? 'warn' : 'block';
  if (gitmodules)
    log.add({
      code,
      severity,
      path: '.gitmodules',
      message: 'repository declares submodules; they are never fetched',
      data: { submodules: submodules.map((s) => s.path) },
    });
  const gitlink = opaque ? 'gitlink kept as it is (submodule commit, never fetched or edited)' : 'gitlink entry (submodule commit)';
  for (const sub of submodules.filter((s) => s.oid)) log.add({ code, severity, path: sub.path, message: gitlink, data: { oid: sub.oid, url: sub.url } });
}

function reportLfs(attributeFiles: string[], pointers: string[], policy: IngestionPolicy, log: FindingLog): void {
  if (attributeFiles.length === 0 && pointers.length === 0) return;
  const code = policy.allowLfs ? 'LFS_POINTER' : 'LFS_BLOCKED';
  const severity = policy.allowLfs ? 'warn' : 'block';
  for (const path of attributeFiles) log.add({ code, severity, path, message: 'filter=lfs in .gitattributes; LFS content is never downloaded' });
  for (const path of pointers) log.add({ code, severity, path, message: 'LFS pointer file; the workspace holds the pointer, not the content' });
}

/**
 * The policy scan, from tree objects, before anything is materialised: hostile
 * entries, symlinks, submodules, LFS, attributes that would rewrite content, file sizes,
 * binaries, file count. Returns the file list for the workspace (empty when blocked by a
 * hostile entry, since such a tree must never be opened).
 */
export async function scanTree(options: { treeOid: string; policy: IngestionPolicy; objects: ObjectReader }): Promise<PolicyScanResult> {
  const { policy, objects } = options;
  const log = new FindingLog();
  const { files, submodules, directories, overLimit } = await walkTrees(options.treeOid, policy, objects, log);
  if (overLimit) {
    const what = files.length > policy.maxFileCount ? 'files' : 'directories';
    log.add({
      code: 'FILE_COUNT_EXCEEDED',
      severity: 'block',
      path: '',
      message: `the tree has more than ${policy.maxFileCount} ${what}, the limit is ${policy.maxFileCount} (counting stopped there)`,
      data: { fileCount: files.length, directoryCount: directories, limit: policy.maxFileCount, complete: false },
    });
  }
  const blobs: BlobScan = log.counts.FILE_COUNT_EXCEEDED
    ? { totalBytes: 0, symlinks: [], attributeFiles: [], pointers: [] }
    : await scanBlobs(files, policy, objects, log);
  await reportSubmodules(submodules, blobs.gitmodules, policy, objects, log);
  reportLfs(blobs.attributeFiles, blobs.pointers, policy, log);
  const { findings, counts } = log;
  return {
    files,
    fileCount: files.length,
    totalBytes: blobs.totalBytes,
    findings,
    counts,
    blocked: findings.some((f) => f.severity === 'block'),
    symlinks: blobs.symlinks,
    submodules,
    lfs: { attributeFiles: blobs.attributeFiles, pointers: blobs.pointers },
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
      else if (
        /^filter=/.test(attr) ||
        /^eol=/.test(attr) ||
        /^working-tree-encoding=/.test(attr) ||
        attr === 'ident' ||
        attr === 'text' ||
        /^text=/.test(attr) ||
        attr === 'crlf'
      ) {
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
