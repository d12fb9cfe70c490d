import { sha256Hex } from '../util/digest.js';
import type { Workspace } from '../workspace/workspace.js';
import { looksBinary } from '../paths/path-classes.js';

const decoder = new TextDecoder('utf-8');

/** Text files larger than this are not read for search or symbols (they are listed as large). */
export const DEFAULT_MAX_TEXT_BYTES = 2 * 1024 * 1024;

/**
 * Lazy, cached access to file text for everything that needs content (manifests, hints,
 * queries, target search). Content is keyed by blob SHA, so two paths with the same blob and
 * two maps of the same commit share one read. Binary detection happens here, on first read.
 */
export class FileContents {
  private readonly cache = new Map<string, string | null>();
  private readonly sizes = new Map<string, number>();
  readsFromStore = 0;

  constructor(
    readonly workspace: Workspace,
    private readonly maxBytes: number = DEFAULT_MAX_TEXT_BYTES,
    /** Told after every read from the workspace, with the count so far (progress on long scans). */
    private readonly onRead?: (filesRead: number) => void,
  ) {}

  /** A content key: the blob SHA for base files, a digest of the bytes for overlay files (after a read). */
  keyOf(path: string): string | undefined {
    const entry = this.workspace.entry(path);
    if (!entry) return undefined;
    return entry.oid ? `git:${entry.oid}` : undefined;
  }

  /** Size in bytes when the file was read already. */
  sizeOf(path: string): number | undefined {
    const key = this.keyOf(path);
    return key ? this.sizes.get(key) : undefined;
  }

  /** UTF-8 text, or undefined for missing, gitlink, binary or oversized files. */
  async text(path: string): Promise<string | undefined> {
    const entry = this.workspace.entry(path);
    if (!entry || entry.mode === '160000') return undefined;
    const key = entry.oid ? `git:${entry.oid}` : undefined;
    if (key && this.cache.has(key)) return this.cache.get(key) ?? undefined;
    let bytes: Uint8Array;
    try {
      bytes = await this.workspace.read(path);
    } catch {
      return undefined;
    }
    this.readsFromStore++;
    this.onRead?.(this.readsFromStore);
    const k = key ?? `sha256:${sha256Hex(bytes)}`;
    this.sizes.set(k, bytes.length);
    const value = bytes.length > this.maxBytes || looksBinary(bytes) ? null : decoder.decode(bytes);
    if (key) this.cache.set(key, value);
    return value ?? undefined;
  }

  /** True when the file's content is binary (reads it if needed). */
  async isBinary(path: string): Promise<boolean> {
    const entry = this.workspace.entry(path);
    if (!entry) return false;
    const t = await this.text(path);
    if (t !== undefined) return false;
    const size = this.sizeOf(path);
    return size !== undefined && size <= this.maxBytes;
  }
}
