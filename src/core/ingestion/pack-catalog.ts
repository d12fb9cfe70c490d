import type { FsLike } from '../ports.js';
import { InflateBudget, inflateExact, type InflateLimits } from './inflate-budget.js';
import { indexPack } from './index-pack.js';

/** Git object types as they appear in a pack. */
export type ObjectType = 'commit' | 'tree' | 'blob' | 'tag';

/** What the scan needs to know about one object without keeping blob contents around. */
export interface CatalogEntry {
  type: ObjectType;
  size: number;
  /** Full content for commits, trees and tags; blobs keep none. */
  content?: Uint8Array;
  /** Blobs: a NUL byte in the first 8000 bytes (git's own binary heuristic). */
  binary?: boolean;
  /** Blobs that start like an LFS pointer: their first bytes (up to 1 KiB); absent otherwise. */
  head?: Uint8Array;
  /** Blobs a blob:none fetch left out: size unknown (0), content fetched only when read. */
  absent?: boolean;
}

const TYPES: Record<number, ObjectType> = { 1: 'commit', 2: 'tree', 3: 'blob', 4: 'tag' };
const OFS_DELTA = 6;
const REF_DELTA = 7;
const BINARY_PROBE = 8000;
const HEAD_BYTES = 1024;
const LFS_PREFIX = Buffer.from('version https://git-lfs');
/** Inflated delta bases kept for lazy reads, by bytes (a chain's bases are reused by its siblings). */
const BASE_CACHE_BYTES = 32 * 1024 * 1024;

/** A blob's facts from its first bytes: binary (git's heuristic), and the head of a possible LFS pointer. */
export function blobFacts(first: Uint8Array): { binary: boolean; head?: Uint8Array } {
  const nul = first.indexOf(0);
  const binary = nul !== -1 && nul < BINARY_PROBE;
  return startsLikeLfs(first) ? { binary, head: Uint8Array.prototype.slice.call(first, 0, HEAD_BYTES) } : { binary };
}

function startsLikeLfs(bytes: Uint8Array): boolean {
  if (bytes.byteLength < LFS_PREFIX.byteLength) return false;
  for (let i = 0; i < LFS_PREFIX.byteLength; i++) if (bytes[i] !== LFS_PREFIX[i]) return false;
  return true;
}

/** Inflated contents that may be delta bases, most recently used last, bounded by bytes. */
export class BaseCache<K> {
  private readonly items = new Map<K, Uint8Array>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: K): Uint8Array | undefined {
    const found = this.items.get(key);
    if (found) {
      this.items.delete(key);
      this.items.set(key, found);
    }
    return found;
  }

  /** Keep `content` (not one over a quarter of the bound), dropping the least recently used. */
  set(key: K, content: Uint8Array): void {
    if (content.byteLength > this.maxBytes / 4 || this.items.has(key)) return;
    this.items.set(key, content);
    this.bytes += content.byteLength;
    for (const [oldest, kept] of this.items) {
      if (this.bytes <= this.maxBytes) break;
      this.items.delete(oldest);
      this.bytes -= kept.byteLength;
    }
  }

  clear(): void {
    this.items.clear();
    this.bytes = 0;
  }
}

interface Located extends CatalogEntry {
  pack: number;
  offset: number;
}

/**
 * Every object of the object store's packs, by id, as the indexer saw it (see `PackIndexer`):
 * commits, trees and tags inflated, blobs as facts plus where they are. Blob contents are
 * inflated from the pack when read, deltas resolved through a cache of bases bounded by bytes.
 */
export class PackCatalog {
  private readonly entries = new Map<string, Located>();
  private readonly packs: (() => Uint8Array)[] = [];
  private readonly bases = new BaseCache<string>(BASE_CACHE_BYTES);

  /** A pack the catalog reads from; `bytes` is asked for when a blob is read. */
  addPack(bytes: () => Uint8Array): number {
    this.packs.push(bytes);
    return this.packs.length - 1;
  }

  /** A commit, tree or tag with its content (`size` defaults to the content's). */
  add(oid: string, type: ObjectType, content: Uint8Array, pack: number, offset: number): void {
    // One object shape for every entry: the scan reads tens of thousands of them.
    if (!this.entries.has(oid)) this.entries.set(oid, { type, size: content.byteLength, content, binary: undefined, head: undefined, pack, offset });
  }

  /** A blob, from its content or (a large one) its first bytes and declared size. */
  addBlob(oid: string, first: Uint8Array, pack: number, offset: number, size = first.byteLength): void {
    if (this.entries.has(oid)) return;
    const nul = first.indexOf(0);
    const head = startsLikeLfs(first) ? Uint8Array.prototype.slice.call(first, 0, HEAD_BYTES) : undefined;
    this.entries.set(oid, { type: 'blob', size, content: undefined, binary: nul !== -1 && nul < BINARY_PROBE, head, pack, offset });
  }

  get(oid: string): CatalogEntry | undefined {
    return this.entries.get(oid);
  }

  has(oid: string): boolean {
    return this.entries.has(oid);
  }

  get size(): number {
    return this.entries.size;
  }

  /** An object's full content (a blob inflated from its pack now); undefined when not catalogued. */
  read(oid: string): { type: ObjectType; content: Uint8Array } | undefined {
    const entry = this.entries.get(oid);
    if (!entry) return undefined;
    if (entry.content) return { type: entry.type, content: entry.content };
    return { type: entry.type, content: this.contentAt(entry.pack, entry.offset, 0) };
  }

  private contentAt(packNumber: number, offset: number, depth: number): Uint8Array {
    const key = `${packNumber}:${offset}`;
    const cached = this.bases.get(key);
    if (cached) return cached;
    if (depth > 10_000) throw new Error('delta chain too deep');
    const pack = this.packs[packNumber]();
    const header = readObjectHeader(pack, offset);
    const raw = inflateExact(pack.subarray(header.dataAt, pack.byteLength - 20), header.size).data;
    if (header.kind !== OFS_DELTA && header.kind !== REF_DELTA) {
      if (!TYPES[header.kind]) throw new Error(`unknown pack object type ${header.kind}`);
      return raw;
    }
    const at = header.kind === OFS_DELTA ? { pack: packNumber, offset: header.baseOffset! } : this.entries.get(header.baseOid!);
    if (!at) throw new Error(`delta base outside the packs: ${header.baseOid}`);
    const base = this.contentAt(at.pack, at.offset, depth + 1);
    this.bases.set(`${at.pack}:${at.offset}`, base);
    return applyDelta(base, raw);
  }

}

/**
 * Catalog every pack in `gitdir` (one indexing pass each, see `PackIndexer`). isomorphic-git
 * resolves each packed object separately (a whole delta chain per read, plus a loose-object
 * probe that throws): for tens of thousands of files that is the difference between seconds
 * and a fraction of one. Objects outside packs are not listed; callers fall back to
 * isomorphic-git for them. Inflated sizes are bounded by `limits` before anything is inflated.
 */
export async function readPackCatalog(fs: FsLike, gitdir: string, limits: InflateLimits = {}): Promise<PackCatalog> {
  const catalog = new PackCatalog();
  const budget = new InflateBudget(limits);
  const packDir = `${gitdir}/objects/pack`;
  let names: string[];
  try {
    names = await fs.promises.readdir(packDir);
  } catch {
    return catalog;
  }
  for (const name of names.filter((n) => n.endsWith('.idx')).sort()) {
    const pack = await fs.promises.readFile(`${packDir}/${name.replace(/\.idx$/, '.pack')}`);
    await indexPack(toBytes(pack), budget, catalog);
  }
  return catalog;
}

/**
 * One pack object's header at `offset`: type, declared inflated size (of the delta itself for
 * deltas), the delta base (an offset for OFS_DELTA, an object id for REF_DELTA), and where its
 * zlib stream starts. The one parser of pack object headers (the catalog and the indexer).
 */
export function readObjectHeader(pack: Uint8Array, offset: number): { offset: number; kind: number; size: number; dataAt: number; baseOffset?: number; baseOid?: string } {
  let at = offset;
  let byte = pack[at++];
  const kind = (byte >> 4) & 7;
  let size = byte & 15;
  let scale = 16;
  while (byte & 0x80) {
    byte = pack[at++];
    size += (byte & 0x7f) * scale;
    scale *= 128;
  }
  const header: { offset: number; kind: number; size: number; dataAt: number; baseOffset?: number; baseOid?: string } = { offset, kind, size, dataAt: at };
  if (kind === OFS_DELTA) {
    byte = pack[at++];
    let distance = byte & 0x7f;
    while (byte & 0x80) {
      byte = pack[at++];
      distance = (distance + 1) * 128 + (byte & 0x7f);
    }
    header.baseOffset = offset - distance;
  } else if (kind === REF_DELTA) {
    header.baseOid = Buffer.from(pack.buffer, pack.byteOffset + at, 20).toString('hex');
    at += 20;
  }
  header.dataAt = at;
  return header;
}

/** The result size a delta declares (its second varint), read before building anything. */
export function deltaTargetSize(delta: Uint8Array): number {
  let at = 0;
  for (let field = 0; field < 2; field++) {
    let value = 0;
    let scale = 1;
    let byte: number;
    do {
      if (at >= delta.byteLength) throw new Error('truncated delta header');
      byte = delta[at++];
      value += (byte & 0x7f) * scale;
      scale *= 128;
    } while (byte & 0x80);
    if (field === 1) return value;
  }
  return 0;
}

/** Apply a git delta (copy/insert instructions) to `base`; the result starts `room` bytes into the buffer returned. */
export function applyDelta(base: Uint8Array, delta: Uint8Array, room = 0): Buffer {
  let at = 0;
  const varint = (): number => {
    let value = 0;
    let scale = 1;
    let byte: number;
    do {
      byte = delta[at++];
      value += (byte & 0x7f) * scale;
      scale *= 128;
    } while (byte & 0x80);
    return value;
  };
  const sourceSize = varint();
  if (sourceSize !== base.byteLength) throw new Error('delta base size mismatch');
  const out = Buffer.allocUnsafe(room + varint());
  let written = room;
  while (at < delta.byteLength) {
    const op = delta[at++];
    if (op & 0x80) {
      let offset = 0;
      let size = 0;
      if (op & 0x01) offset |= delta[at++];
      if (op & 0x02) offset |= delta[at++] << 8;
      if (op & 0x04) offset |= delta[at++] << 16;
      if (op & 0x08) offset += delta[at++] * 0x1000000;
      if (op & 0x10) size |= delta[at++];
      if (op & 0x20) size |= delta[at++] << 8;
      if (op & 0x40) size |= delta[at++] << 16;
      if (size === 0) size = 0x10000;
      // Checked, not clamped: a short copy would leave uninitialised bytes in the result.
      if (offset + size > base.byteLength || written + size > out.byteLength || at > delta.byteLength) throw new Error('delta copies outside its base or result');
      copyBytes(base, offset, size, out, written);
      written += size;
    } else if (op > 0) {
      if (at + op > delta.byteLength || written + op > out.byteLength) throw new Error('delta inserts past its end');
      copyBytes(delta, at, op, out, written);
      at += op;
      written += op;
    } else throw new Error('invalid delta opcode 0');
  }
  if (written !== out.byteLength) throw new Error('delta result size mismatch');
  return out;
}

/** Short copies byte by byte: most delta instructions move a few bytes, and a view costs more. */
function copyBytes(from: Uint8Array, at: number, size: number, to: Uint8Array, into: number): void {
  if (size > 64) to.set(from.subarray(at, at + size), into);
  else for (let i = 0; i < size; i++) to[into + i] = from[at + i];
}

function toBytes(data: Uint8Array | string): Uint8Array {
  return typeof data === 'string' ? new TextEncoder().encode(data) : data;
}
