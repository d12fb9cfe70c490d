import { inflateExact } from './inflate-budget.js';
import { isBinaryContent } from '../objects/object-format.js';
import { applyDelta } from './git-delta.js';
import { OFS_DELTA, PACK_OBJECT_TYPES, REF_DELTA, readObjectHeader, type ObjectType } from './pack-format.js';
import { regrown } from './typed-arrays.js';
import { ByteArena } from './byte-arena.js';

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

const HEAD_BYTES = 1024;
const LFS_PREFIX = Buffer.from('version https://git-lfs');
/** Inflated delta bases kept for lazy reads, by bytes (a chain's bases are reused by its siblings). */
const BASE_CACHE_BYTES = 32 * 1024 * 1024;

/** A blob's facts from its first bytes: binary (git's heuristic), and the head of a possible LFS pointer. */
export function blobFacts(first: Uint8Array): { binary: boolean; head?: Uint8Array } {
  const binary = isBinaryContent(first);
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

const TYPE_CODES = Object.fromEntries(Object.entries(PACK_OBJECT_TYPES).map(([code, type]) => [type, Number(code)])) as Record<ObjectType, number>;
const HEX = new Int8Array(128).fill(-1);
for (let c = 0; c < 16; c++) {
  HEX['0123456789abcdef'.charCodeAt(c)] = c;
  HEX['0123456789ABCDEF'.charCodeAt(c)] = c;
}

/** A 40-digit hex object id as 20 bytes at `at`; false (and `out` unspecified) when it is not one. */
export function hexToName(oid: string, out: Uint8Array, at = 0): boolean {
  if (oid.length !== 40) return false;
  for (let k = 0; k < 20; k++) {
    const a = oid.charCodeAt(2 * k);
    const b = oid.charCodeAt(2 * k + 1);
    const hi = a < 128 ? HEX[a] : -1;
    const lo = b < 128 ? HEX[b] : -1;
    if (hi < 0 || lo < 0) return false;
    out[at + k] = (hi << 4) | lo;
  }
  return true;
}

/**
 * Every object of the object store's packs, by id, as the indexer saw it (see `PackIndexer`):
 * commits, trees and tags inflated, blobs as facts plus where they are. Blob contents are
 * inflated from the pack when read, deltas resolved through a cache of bases bounded by bytes.
 *
 * Tens of thousands of objects are held in typed arrays (names as 20 bytes, an open-addressing
 * table over them), not as one JavaScript object and id string each: those would all survive the
 * young generation's collections while the pack streams in, which is most of what ingesting a
 * large repository would otherwise cost in memory and collection time. `get` builds the entry
 * it returns.
 */
export class PackCatalog {
  private count = 0;
  private names = new Uint8Array(0);
  private types = new Uint8Array(0);
  private sizes = new Float64Array(0);
  private packOf = new Uint16Array(0);
  private offsets = new Float64Array(0);
  private binary = new Uint8Array(0);
  /** Contents of commits, trees and tags, by record (blobs keep none). */
  private readonly arena = new ByteArena();
  /** Where the arena keeps each commit's, tree's and tag's content (blobs keep none). */
  private keptAt = new Float64Array(0);
  /** First bytes of blobs that start like an LFS pointer (few), by record. */
  private readonly heads = new Map<number, Uint8Array>();
  /** Open addressing over `names`: record + 1, 0 for an empty slot; at most half full. */
  private slots = new Int32Array(1024);
  private readonly lookup = new Uint8Array(20);
  private readonly packs: (() => Uint8Array)[] = [];
  private readonly bases = new BaseCache<string>(BASE_CACHE_BYTES);

  /** A pack the catalog reads from; `bytes` is asked for when a blob is read. */
  addPack(bytes: () => Uint8Array): number {
    if (this.packs.length >= 0xffff) throw new Error('too many packs');
    this.packs.push(bytes);
    return this.packs.length - 1;
  }

  /** A commit, tree or tag with its content, which is copied (the caller may reuse its buffer). `oid` is hex or 20 bytes. */
  add(oid: string | Uint8Array, type: ObjectType, content: Uint8Array, pack: number, offset: number): void {
    const record = this.insert(oid);
    if (record < 0) return;
    this.fill(record, TYPE_CODES[type], content.byteLength, pack, offset, false);
    this.keptAt[record] = this.arena.keep(content);
  }

  /** A blob, from its content or (a large one) its first bytes and declared size. `oid` is hex or 20 bytes. */
  addBlob(oid: string | Uint8Array, first: Uint8Array, pack: number, offset: number, size = first.byteLength): void {
    const record = this.insert(oid);
    if (record < 0) return;
    this.fill(record, TYPE_CODES.blob, size, pack, offset, isBinaryContent(first));
    if (startsLikeLfs(first)) this.heads.set(record, Uint8Array.prototype.slice.call(first, 0, HEAD_BYTES));
  }

  get(oid: string): CatalogEntry | undefined {
    const record = this.find(oid);
    if (record < 0) return undefined;
    const type = PACK_OBJECT_TYPES[this.types[record]];
    if (type !== 'blob') return { type, size: this.sizes[record], content: this.contentOf(record) };
    const entry: CatalogEntry = { type, size: this.sizes[record], binary: this.binary[record] === 1 };
    const head = this.heads.get(record);
    if (head) entry.head = head;
    return entry;
  }

  has(oid: string): boolean {
    return this.find(oid) >= 0;
  }

  /** The kept content (commit, tree, tag) of the object named by the 20 bytes at `at`; undefined for a blob or an unknown name. */
  contentByName(name: Uint8Array, at = 0): Uint8Array | undefined {
    const record = this.findName(name, at);
    return record < 0 ? undefined : this.contentOf(record);
  }

  get size(): number {
    return this.count;
  }

  /** An object's full content (a blob inflated from its pack now); undefined when not catalogued. */
  read(oid: string): { type: ObjectType; content: Uint8Array } | undefined {
    const record = this.find(oid);
    if (record < 0) return undefined;
    const type = PACK_OBJECT_TYPES[this.types[record]];
    const kept = this.contentOf(record);
    if (kept) return { type, content: kept };
    return { type, content: this.contentAt(this.packOf[record], this.offsets[record], 0) };
  }

  private contentOf(record: number): Uint8Array | undefined {
    return this.types[record] === TYPE_CODES.blob ? undefined : this.arena.view(this.keptAt[record], this.sizes[record]);
  }

  private find(oid: string): number {
    return hexToName(oid, this.lookup) ? this.findName(this.lookup, 0) : -1;
  }

  private findName(name: Uint8Array, at: number): number {
    const mask = this.slots.length - 1;
    for (let slot = slotOf(name, at) & mask; ; slot = (slot + 1) & mask) {
      const entry = this.slots[slot];
      if (entry === 0) return -1;
      if (sameName(this.names, (entry - 1) * 20, name, at)) return entry - 1;
    }
  }

  /** A new record for `oid`, or -1 when it is already catalogued (the first pack that has it wins). */
  private insert(oid: string | Uint8Array): number {
    let name: Uint8Array;
    if (typeof oid === 'string') {
      if (!hexToName(oid, this.lookup)) throw new Error(`not an object id: ${oid.slice(0, 50)}`);
      name = this.lookup;
    } else name = oid;
    if (this.findName(name, 0) >= 0) return -1;
    if ((this.count + 1) * 2 > this.slots.length) this.rehash(this.slots.length * 2);
    const record = this.count++;
    if (record >= this.types.length) this.grow(Math.max(1024, this.types.length * 2));
    for (let k = 0; k < 20; k++) this.names[record * 20 + k] = name[k];
    const mask = this.slots.length - 1;
    let slot = slotOf(name, 0) & mask;
    while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
    this.slots[slot] = record + 1;
    return record;
  }

  private fill(record: number, type: number, size: number, pack: number, offset: number, binary: boolean): void {
    this.types[record] = type;
    this.sizes[record] = size;
    this.packOf[record] = pack;
    this.offsets[record] = offset;
    this.binary[record] = binary ? 1 : 0;
  }

  /** Room for `more` records beyond those held (the pack header says how many are coming). */
  reserve(more: number): void {
    const wanted = this.count + more;
    if (wanted > this.types.length) this.grow(wanted);
    let size = this.slots.length;
    while (wanted * 2 > size) size *= 2;
    if (size > this.slots.length) this.rehash(size);
  }

  private grow(capacity: number): void {
    this.names = regrown(this.names, Uint8Array, capacity * 20);
    this.types = regrown(this.types, Uint8Array, capacity);
    this.sizes = regrown(this.sizes, Float64Array, capacity);
    this.packOf = regrown(this.packOf, Uint16Array, capacity);
    this.offsets = regrown(this.offsets, Float64Array, capacity);
    this.binary = regrown(this.binary, Uint8Array, capacity);
    this.keptAt = regrown(this.keptAt, Float64Array, capacity);
  }

  private rehash(size: number): void {
    this.slots = new Int32Array(size);
    const mask = size - 1;
    for (let record = 0; record < this.count; record++) {
      let slot = slotOf(this.names, record * 20) & mask;
      while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
      this.slots[slot] = record + 1;
    }
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
      if (!PACK_OBJECT_TYPES[header.kind]) throw new Error(`unknown pack object type ${header.kind}`);
      return raw;
    }
    let at: { pack: number; offset: number } | undefined;
    if (header.kind === OFS_DELTA) at = { pack: packNumber, offset: header.baseOffset! };
    else {
      const base = this.find(header.baseOid!);
      if (base >= 0) at = { pack: this.packOf[base], offset: this.offsets[base] };
    }
    if (!at) throw new Error(`delta base outside the packs: ${header.baseOid}`);
    const base = this.contentAt(at.pack, at.offset, depth + 1);
    this.bases.set(`${at.pack}:${at.offset}`, base);
    return applyDelta(base, raw);
  }
}

/** A name's hash slot: SHA-1 names are uniform, so four of their bytes will do. */
function slotOf(name: Uint8Array, at: number): number {
  return ((name[at + 4] << 24) | (name[at + 5] << 16) | (name[at + 6] << 8) | name[at + 7]) >>> 0;
}

function sameName(a: Uint8Array, aAt: number, b: Uint8Array, bAt: number): boolean {
  for (let k = 0; k < 20; k++) if (a[aAt + k] !== b[bAt + k]) return false;
  return true;
}
