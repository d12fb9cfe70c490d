import type { FsLike } from '../ports.js';
import type { FileMode, MissingObjects, TreeFile, Workspace, WorkspaceChange, WorkspaceEntry } from '../workspace/workspace.js';

/** Base blobs kept in memory per attempt at most (beyond it, reads go to the object store again). */
export const DEFAULT_BLOB_CACHE_BYTES = 128 * 1024 * 1024;

const decoder = new TextDecoder('utf-8');

/**
 * The workspace the phases share, with the base tree's blobs kept once read. Discovery,
 * planning and the change each read every candidate file; a blob is immutable by id, so the
 * second and third reads are served from memory instead of the object store (about 0.1 ms a
 * read there, seconds over 10k files). Overlay files are never cached: they go to the workspace.
 * Every read returns a copy, so no caller can change what another one reads.
 */
export class CachedWorkspace implements Workspace {
  private readonly blobs = new Map<string, Uint8Array>();
  private cachedBytes = 0;

  constructor(
    private readonly inner: Workspace,
    private readonly maxBytes = DEFAULT_BLOB_CACHE_BYTES,
  ) {}

  get fs(): FsLike {
    return this.inner.fs;
  }
  get gitdir(): string {
    return this.inner.gitdir;
  }
  get baseCommitSha(): string {
    return this.inner.baseCommitSha;
  }
  get baseTreeSha(): string {
    return this.inner.baseTreeSha;
  }
  get missing(): MissingObjects | undefined {
    return this.inner.missing;
  }

  paths(): string[] {
    return this.inner.paths();
  }
  entry(path: string): WorkspaceEntry | undefined {
    return this.inner.entry(path);
  }
  baseEntry(path: string): TreeFile | undefined {
    return this.inner.baseEntry(path);
  }

  async read(path: string): Promise<Uint8Array> {
    const entry = this.inner.entry(path);
    if (!entry || entry.changed || !entry.oid || entry.mode === '160000') return this.inner.read(path);
    return this.blob(entry.oid, () => this.inner.read(path));
  }

  async readText(path: string): Promise<string> {
    return decoder.decode(await this.read(path));
  }

  async readBase(path: string): Promise<Uint8Array> {
    const base = this.inner.baseEntry(path);
    if (!base || base.mode === '160000') return this.inner.readBase(path);
    return this.blob(base.oid, () => this.inner.readBase(path));
  }

  write(path: string, content: Uint8Array | string, mode?: FileMode): Promise<void> {
    return this.inner.write(path, content, mode);
  }
  delete(path: string): Promise<void> {
    return this.inner.delete(path);
  }
  changes(): WorkspaceChange[] {
    return this.inner.changes();
  }
  reset(): void {
    this.inner.reset();
  }

  private async blob(oid: string, load: () => Promise<Uint8Array>): Promise<Uint8Array> {
    const known = this.blobs.get(oid);
    if (known) return known.slice();
    const bytes = await load();
    if (!this.blobs.has(oid) && this.cachedBytes + bytes.length <= this.maxBytes) {
      this.blobs.set(oid, bytes.slice());
      this.cachedBytes += bytes.length;
    }
    return bytes;
  }
}
