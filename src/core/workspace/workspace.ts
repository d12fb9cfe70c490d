import git from 'isomorphic-git';
import { WorkspaceError } from '../errors.js';
import type { FsLike } from '../ports.js';
import { normalizeRepoPath } from '../util/repo-path.js';
import { comparePaths, sortByPath } from '../util/path-order.js';

/** Git file modes as they appear in tree objects. */
export type FileMode = '100644' | '100755' | '120000' | '160000';

/** One file of a tree: a blob, a symlink (120000) or a gitlink (160000). */
export interface TreeFile {
  path: string;
  mode: FileMode;
  oid: string;
}

/** A file as the workspace shows it now. */
export interface WorkspaceEntry {
  path: string;
  mode: FileMode;
  /** Blob SHA in the base tree; undefined when the content lives in the overlay. */
  oid?: string;
  /** True when the overlay changed this path relative to the base tree. */
  changed: boolean;
}

export type ChangeKind = 'ADDED' | 'MODIFIED' | 'DELETED' | 'TYPE_CHANGED';

export interface WorkspaceChange {
  path: string;
  kind: ChangeKind;
  baseMode?: FileMode;
  baseOid?: string;
  mode?: FileMode;
}

/**
 * The object-backed workspace: the base tree read lazily from the object store,
 * edits kept in an in-memory overlay. Nothing is checked out. The rest of core reads and writes
 * through this interface and never sees the object store or the overlay.
 */
export interface Workspace {
  readonly fs: FsLike;
  readonly gitdir: string;
  readonly baseCommitSha: string;
  readonly baseTreeSha: string;
  /** Every file path of the current view, sorted (code-unit order, as git sorts). */
  paths(): string[];
  entry(path: string): WorkspaceEntry | undefined;
  /** The entry as it is in the base tree, whatever the overlay did. */
  baseEntry(path: string): TreeFile | undefined;
  read(path: string): Promise<Uint8Array>;
  readText(path: string): Promise<string>;
  readBase(path: string): Promise<Uint8Array>;
  /** What the fetch left out and how to get it, when it was partial. */
  readonly missing?: MissingObjects;
  write(path: string, content: Uint8Array | string, mode?: FileMode): Promise<void>;
  delete(path: string): Promise<void>;
  /** Paths whose view differs from the base tree, sorted. */
  changes(): WorkspaceChange[];
  /** Drop every overlay edit: the view equals the base tree again. */
  reset(): void;
}

/**
 * Objects a partial fetch left out, fetched when needed: blobs of a `blob:none` fetch, and
 * deeper history. Absent when the fetch was complete for the base commit.
 */
export interface MissingObjects {
  /** Commits of history fetched from the base (the base included). */
  historyDepth(): number;
  blobs?(oids: string[]): Promise<void>;
  /** Fetch history down to `depth` commits; `refused` says why nothing was fetched. */
  deepen?(depth: number): Promise<{ depth: number; bytes: number; refused?: string }>;
}

type OverlayValue = { content: Uint8Array; mode: FileMode } | null;

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8');

/** Read every file of a tree recursively (one readTree per directory). Sorted by path. */
export async function readTreeFiles(fs: FsLike, gitdir: string, treeOid: string): Promise<TreeFile[]> {
  const files: TreeFile[] = [];
  const cache = {};
  const visit = async (oid: string, prefix: string): Promise<void> => {
    const { tree } = await git.readTree({ fs, gitdir, oid, cache });
    for (const item of tree) {
      const path = prefix ? `${prefix}/${item.path}` : item.path;
      if (item.type === 'tree') await visit(item.oid, path);
      else files.push({ path, mode: item.mode as FileMode, oid: item.oid });
    }
  };
  await visit(treeOid, '');
  sortByPath(files, (f) => f.path);
  return files;
}

/** Base-tree blobs already catalogued in memory (the ingested pack); undefined: not there. */
export interface PackedObjects {
  read(oid: string): { type: string; content: Uint8Array } | undefined;
}

/**
 * Build a workspace over a commit already present in `gitdir`. Ingestion passes what it already
 * knows (the tree, its files, the catalogued pack) so nothing is read twice.
 */
export async function openWorkspace(options: {
  fs: FsLike;
  gitdir: string;
  commitSha: string;
  treeSha?: string;
  files?: TreeFile[];
  missing?: MissingObjects;
  packed?: PackedObjects;
}): Promise<ObjectWorkspace> {
  const { fs, gitdir, commitSha } = options;
  const tree = options.treeSha ?? (await git.readCommit({ fs, gitdir, oid: commitSha })).commit.tree;
  const files = options.files ?? (await readTreeFiles(fs, gitdir, tree));
  return new ObjectWorkspace(fs, gitdir, commitSha, tree, files, options.missing, options.packed);
}

export class ObjectWorkspace implements Workspace {
  private readonly base = new Map<string, TreeFile>();
  private readonly overlay = new Map<string, OverlayValue>();
  private sortedCache: string[] | undefined;
  /** isomorphic-git's object cache: packs are loaded and indexed once per workspace, not per read. */
  private readonly objectCache = {};

  constructor(
    readonly fs: FsLike,
    readonly gitdir: string,
    readonly baseCommitSha: string,
    readonly baseTreeSha: string,
    files: TreeFile[],
    readonly missing?: MissingObjects,
    private readonly packed?: PackedObjects,
  ) {
    for (const file of files) this.base.set(file.path, file);
  }

  paths(): string[] {
    if (!this.sortedCache) {
      let all: string[];
      if (this.overlay.size === 0) all = [...this.base.keys()];
      else {
        const set = new Set(this.base.keys());
        for (const [path, value] of this.overlay) {
          if (value === null) set.delete(path);
          else set.add(path);
        }
        all = [...set];
      }
      this.sortedCache = sortByPath(all, (path) => path);
    }
    return this.sortedCache;
  }

  entry(path: string): WorkspaceEntry | undefined {
    const over = this.overlay.get(path);
    if (over === null) return undefined;
    if (over) return { path, mode: over.mode, changed: true };
    const base = this.base.get(path);
    return base ? { path, mode: base.mode, oid: base.oid, changed: false } : undefined;
  }

  baseEntry(path: string): TreeFile | undefined {
    return this.base.get(path);
  }

  async read(path: string): Promise<Uint8Array> {
    const over = this.overlay.get(path);
    if (over === null) throw new WorkspaceError('FILE_NOT_FOUND', `no such file: ${path}`, { path });
    if (over) return over.content;
    return this.readBase(path);
  }

  async readText(path: string): Promise<string> {
    return decoder.decode(await this.read(path));
  }

  async readBase(path: string): Promise<Uint8Array> {
    const base = this.base.get(path);
    if (!base || base.mode === '160000') throw new WorkspaceError('FILE_NOT_FOUND', `no such file in the base tree: ${path}`, { path });
    const packed = this.packed?.read(base.oid);
    if (packed?.type === 'blob') return packed.content;
    try {
      return (await git.readBlob({ fs: this.fs, gitdir: this.gitdir, oid: base.oid, cache: this.objectCache })).blob;
    } catch (error) {
      // A blob:none fetch: the blob is fetched the first time its file is read.
      if (!this.missing?.blobs || (error as { code?: string }).code !== 'NotFoundError') throw error;
      await this.missing.blobs([base.oid]);
      return (await git.readBlob({ fs: this.fs, gitdir: this.gitdir, oid: base.oid, cache: this.objectCache })).blob;
    }
  }

  async write(path: string, content: Uint8Array | string, mode?: FileMode): Promise<void> {
    const normalized = this.checkWritable(path);
    const bytes = typeof content === 'string' ? encoder.encode(content) : content;
    const current = this.entry(normalized);
    const nextMode: FileMode = mode ?? (current && current.mode !== '160000' ? current.mode : '100644');
    const base = this.base.get(normalized);
    this.sortedCache = undefined;
    if (base && base.mode === nextMode && (await sameBlob(bytes, base.oid))) {
      this.overlay.delete(normalized);
      return;
    }
    this.overlay.set(normalized, { content: bytes, mode: nextMode });
  }

  async delete(path: string): Promise<void> {
    const normalized = this.checkWritable(path);
    if (!this.entry(normalized)) throw new WorkspaceError('FILE_NOT_FOUND', `no such file: ${normalized}`, { path: normalized });
    this.sortedCache = undefined;
    if (this.base.has(normalized)) this.overlay.set(normalized, null);
    else this.overlay.delete(normalized);
  }

  changes(): WorkspaceChange[] {
    const out: WorkspaceChange[] = [];
    for (const path of [...this.overlay.keys()].sort(comparePaths)) {
      const over = this.overlay.get(path);
      const base = this.base.get(path);
      if (over === null) {
        if (base) out.push({ path, kind: 'DELETED', baseMode: base.mode, baseOid: base.oid });
      } else if (over) {
        if (!base) out.push({ path, kind: 'ADDED', mode: over.mode });
        else {
          const typeChanged = (base.mode === '120000') !== (over.mode === '120000');
          out.push({ path, kind: typeChanged ? 'TYPE_CHANGED' : 'MODIFIED', baseMode: base.mode, baseOid: base.oid, mode: over.mode });
        }
      }
    }
    return out;
  }

  reset(): void {
    this.overlay.clear();
    this.sortedCache = undefined;
  }

  /** A path may be written when it is normalised, not a directory, and no parent is a file or symlink. */
  private checkWritable(path: string): string {
    const normalized = normalizeRepoPath(path);
    const segments = normalized.split('/');
    for (let i = 1; i < segments.length; i++) {
      const parent = segments.slice(0, i).join('/');
      const entry = this.entry(parent);
      if (entry?.mode === '120000')
        throw new WorkspaceError('WRITE_THROUGH_SYMLINK', `path goes through a symlink: ${parent}`, { path: normalized, symlink: parent });
      if (entry) throw new WorkspaceError('IS_A_DIRECTORY', `a parent of the path is a file: ${parent}`, { path: normalized, parent });
    }
    // Paths are sorted, so anything under `normalized/` starts at the lower bound of that prefix.
    const paths = this.paths();
    const prefix = `${normalized}/`;
    let lo = 0;
    let hi = paths.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (paths[mid] < prefix) lo = mid + 1;
      else hi = mid;
    }
    if (lo < paths.length && paths[lo].startsWith(prefix)) {
      throw new WorkspaceError('IS_A_DIRECTORY', `path is a directory: ${normalized}`, { path: normalized });
    }
    return normalized;
  }
}

/** True when `bytes` hash to the blob `oid` (git's "blob <len>\0" framing). */
async function sameBlob(bytes: Uint8Array, oid: string): Promise<boolean> {
  const { oid: computed } = await git.hashBlob({ object: bytes });
  return computed === oid;
}
