import { createHash, hash as digest, type Hash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { InflateBudget, InflateSizeError, InflateTruncatedError, STREAM_OBJECT_BYTES, inflateStreaming, type InflateLimits } from './inflate-budget.js';
import { ObjectInflater } from './object-inflater.js';
import { writePackIndex } from './pack-idx.js';
import { BaseCache, PackCatalog, applyDelta, deltaTargetSize, readObjectHeader, type ObjectType } from './pack-catalog.js';

const TYPE_NAMES: Record<number, ObjectType> = { 1: 'commit', 2: 'tree', 3: 'blob', 4: 'tag' };
const OFS_DELTA = 6;
const REF_DELTA = 7;
/** Longest object header: type and size varint (10 bytes) plus a REF_DELTA base (20 bytes). */
const MAX_HEADER = 32;
const MAX_CHAIN = 10_000;
/**
 * Room reserved for a pack before its size is known. Pages of a buffer become resident only
 * once written, so reserving costs no memory, while every growth copies (and touches) all
 * bytes so far: on a machine where touching fresh memory is slow that copy is most of the cost.
 */
const INITIAL_CAPACITY = 32 * 1024 * 1024;
/** Inflated delta bases kept while indexing, by bytes. */
const BASE_CACHE_BYTES = 8 * 1024 * 1024;

export class PackIndexError extends Error {}

interface Entry {
  offset: number;
  /** Where the zlib stream starts. */
  dataAt: number;
  end: number;
  kind: number;
  /** Inflated size declared by the object header (for deltas: of the delta itself). */
  size: number;
  baseOffset?: number;
  baseOid?: string;
  oid?: string;
  type?: ObjectType;
  /** CRC-32 of the object's bytes in the pack, taken when it is complete (while the rest downloads). */
  crc: number;
}

export interface IndexedPack {
  /** The version-2 `.idx`, byte for byte what `git index-pack` writes. */
  idx: Uint8Array;
  /** Object ids in index (sorted) order. */
  oids: string[];
  packSha: string;
  /** The whole pack, one buffer (the indexer's own, not a copy). */
  pack: Buffer;
  /** What the scan and the workspace need of every object; blobs are read from `pack` lazily. */
  catalog: PackCatalog;
}

/**
 * Index a version-2 pack as `git index-pack` does (native zlib and SHA-1, the same `.idx`) and
 * catalog its objects in the same pass, so no object is inflated twice: commits, trees and tags
 * are kept inflated, blobs only as facts (size, binary, a possible LFS pointer's first bytes).
 *
 * Bytes can be pushed as they arrive: every object whose zlib stream is complete is indexed
 * while the rest of the pack is still downloading. Deltas are resolved at the end, depth first
 * from each base, so each base is inflated once and only a chain's worth of contents is held.
 * A thin pack (a delta whose base is not in the pack) is refused. Inflated sizes are bounded by
 * the budget from each object's declared size before it is inflated; an object over
 * STREAM_OBJECT_BYTES is hashed as a stream, so a pack of compressed zeros costs time
 * proportional to the limit, not memory.
 */
export class PackIndexer {
  private buffer: Buffer;
  private length = 0;
  private count = -1;
  private at = 12;
  private readonly entries: Entry[] = [];
  private readonly ofsChildren = new Map<number, Entry[]>();
  private readonly refChildren = new Map<string, Entry[]>();
  private current?: Entry;
  /** Input needed before a truncated object is tried again (doubling, so retries cost O(size)). */
  private retryAt = 0;
  private hashed = 0;
  private readonly packHash: Hash = createHash('sha1');
  private readonly inflater = new ObjectInflater();
  private scratch = Buffer.allocUnsafe(64 * 1024);
  private readonly budget: InflateBudget;
  private readonly packNumber: number;
  private readonly bases = new BaseCache<number>(BASE_CACHE_BYTES);
  private byOid?: Map<string, Entry>;

  constructor(
    limits: InflateLimits | InflateBudget = {},
    readonly catalog: PackCatalog = new PackCatalog(),
    whole?: Uint8Array,
  ) {
    this.budget = limits instanceof InflateBudget ? limits : new InflateBudget(limits);
    this.buffer = whole ? Buffer.from(whole.buffer, whole.byteOffset, whole.byteLength) : Buffer.allocUnsafe(INITIAL_CAPACITY);
    this.length = whole ? whole.byteLength : 0;
    this.packNumber = catalog.addPack(() => this.buffer.subarray(0, this.length));
  }

  /** Append bytes as they arrive and index every object they complete. */
  push(chunk: Uint8Array): void {
    if (this.length + chunk.byteLength > this.buffer.byteLength) {
      const grown = Buffer.allocUnsafe(Math.max(this.length + chunk.byteLength, this.buffer.byteLength * 4));
      this.buffer.copy(grown, 0, 0, this.length);
      this.buffer = grown;
    }
    this.buffer.set(chunk, this.length);
    this.length += chunk.byteLength;
    this.drain(false);
  }

  /** The last bytes are in: check the checksum, index the rest, resolve deltas, write the `.idx`. */
  async finish(): Promise<IndexedPack> {
    if (this.length < 32) throw new PackIndexError('not a pack');
    this.readPackHeader();
    const trailer = this.length - 20;
    this.hashUpTo(trailer);
    const pack = this.buffer.subarray(0, this.length);
    const packSha = pack.toString('hex', trailer);
    if (this.packHash.digest('hex') !== packSha) throw new PackIndexError('pack checksum mismatch');
    while (!this.drain(true)) await this.streamLarge();
    if (this.at !== trailer) throw new PackIndexError('pack has trailing data');
    this.resolveRest();
    const { idx, oids } = writePackIndex(this.entries, pack.subarray(trailer));
    // The catalog reads the pack through this indexer: keep nothing else of it alive.
    this.scratch = Buffer.alloc(0);
    this.bases.clear();
    this.entries.length = 0;
    this.ofsChildren.clear();
    this.refChildren.clear();
    this.byOid = undefined;
    return { idx, oids, packSha, pack, catalog: this.catalog };
  }

  private readPackHeader(): void {
    if (this.count >= 0) return;
    const pack = this.buffer;
    if (pack.readUInt32BE(0) !== 0x5041434b) throw new PackIndexError('not a pack');
    const version = pack.readUInt32BE(4);
    if (version !== 2 && version !== 3) throw new PackIndexError(`unsupported pack version ${version}`);
    this.count = pack.readUInt32BE(8);
  }

  private hashUpTo(end: number): void {
    if (end > this.hashed) {
      this.packHash.update(this.buffer.subarray(this.hashed, end));
      this.hashed = end;
    }
  }

  /**
   * Index complete objects in order. Until the last bytes are in (`final` false) it stops at the
   * first object whose stream is not complete yet, or that must be streamed. Returns true when
   * every object is indexed, false when a large object waits for `streamLarge`.
   */
  private drain(final: boolean): boolean {
    if (this.count < 0) {
      if (this.length < 12) return false;
      this.readPackHeader();
    }
    // The trailer is only known at the end; until then the last 20 bytes may be it.
    const limit = final ? this.length - 20 : this.length;
    if (!final) this.hashUpTo(this.length - 20);
    while (this.entries.length < this.count) {
      if (!this.current) {
        if (!final && this.length - this.at < MAX_HEADER) return false;
        if (this.at >= limit) throw new PackIndexError('truncated pack');
        this.current = this.readHeader(this.at, limit);
        this.retryAt = 0;
      }
      const entry = this.current;
      const isDelta = entry.kind === OFS_DELTA || entry.kind === REF_DELTA;
      if (!isDelta && entry.size > STREAM_OBJECT_BYTES) return false;
      const available = limit - entry.dataAt;
      // A stream is rarely longer than its content plus a few bytes: waiting until that much is
      // in (up to 64 KiB, then doubling) spares inflating what is certainly cut short.
      if (!final && available < Math.max(this.retryAt, Math.min(entry.size + 64, 64 * 1024))) return false;
      // The object's git header goes in front of its content, so one call names it.
      const header = isDelta ? '' : `${entry.type} ${entry.size}\0`;
      const room = header.length + entry.size + 1;
      const out = isDelta || entry.kind === 3 ? this.scratchFor(room) : Buffer.allocUnsafe(room);
      let consumed: number;
      try {
        consumed = this.inflater.inflateInto(this.buffer, entry.dataAt, limit, entry.size, out, out.write(header, 0, 'latin1'));
      } catch (error) {
        if (!(error instanceof InflateSizeError)) throw error;
        if (error instanceof InflateTruncatedError && !final) {
          this.retryAt = available * 2;
          return false;
        }
        throw new PackIndexError(`object at ${entry.offset}: ${error instanceof InflateTruncatedError ? 'truncated pack' : error.message}`);
      }
      if (!isDelta) this.record(entry, entry.type!, out, header.length);
      this.complete(entry, entry.dataAt + consumed);
      if (isDelta) this.resolveInStream(entry, out.subarray(0, entry.size));
    }
    return true;
  }

  private readHeader(start: number, limit: number): Entry {
    const header = readObjectHeader(this.buffer, start);
    const { kind, size } = header;
    if (kind !== OFS_DELTA && kind !== REF_DELTA && !TYPE_NAMES[kind]) throw new PackIndexError(`unknown object type ${kind} at ${start}`);
    if (header.dataAt >= limit) throw new PackIndexError('truncated pack');
    const entry: Entry = { offset: start, dataAt: header.dataAt, end: 0, kind, size, baseOffset: header.baseOffset, baseOid: header.baseOid, type: TYPE_NAMES[kind], crc: 0 };
    // Deltas count once resolved (their target size); their own instructions only per object.
    if (kind === OFS_DELTA || kind === REF_DELTA) this.budget.object(size, `offset ${start}`);
    else this.budget.admit(size, `offset ${start}`);
    if (kind === OFS_DELTA) push(this.ofsChildren, header.baseOffset!, entry);
    if (kind === REF_DELTA) push(this.refChildren, header.baseOid!, entry);
    return entry;
  }

  private complete(entry: Entry, end: number): void {
    entry.end = end;
    entry.crc = crc32(this.buffer.subarray(entry.offset, end)) >>> 0;
    this.at = end;
    this.entries.push(entry);
    this.current = undefined;
  }

  /** The current object is too large to hold: hash it (and probe its first bytes) as a stream. */
  private async streamLarge(): Promise<void> {
    const entry = this.current!;
    const type = entry.type!;
    const hash = createHash('sha1').update(`${type} ${entry.size}\0`);
    const head: Buffer[] = [];
    let headBytes = 0;
    let consumed: number;
    try {
      consumed = (await inflateStreaming(this.buffer.subarray(entry.dataAt, this.length - 20), entry.size, (chunk) => {
        hash.update(chunk);
        if (headBytes < 8000) {
          head.push(chunk.subarray(0, 8000 - headBytes));
          headBytes += Math.min(chunk.byteLength, 8000 - headBytes);
        }
      })).consumed!;
    } catch (error) {
      throw error instanceof InflateSizeError ? new PackIndexError(`object at ${entry.offset}: ${error.message}`) : error;
    }
    entry.oid = hash.digest('hex');
    const first = Buffer.concat(head);
    if (type === 'blob') this.catalog.addBlob(entry.oid, first, this.packNumber, entry.offset, entry.size);
    else this.catalog.add(entry.oid, type, this.inflater.inflate(this.buffer.subarray(entry.dataAt, this.length - 20), entry.size).data, this.packNumber, entry.offset);
    this.complete(entry, entry.dataAt + consumed);
  }

  private scratchFor(size: number): Buffer {
    if (this.scratch.byteLength < size) this.scratch = Buffer.allocUnsafe(Math.max(size, this.scratch.byteLength * 2));
    return this.scratch;
  }

  /**
   * Name an object and catalog it: commits, trees and tags with their content, blobs as facts.
   * `framed` holds the object's git header (`headerLength` bytes) then its content.
   */
  private record(entry: Entry, type: ObjectType, framed: Buffer, headerLength: number): void {
    const end = headerLength + (entry.kind === OFS_DELTA || entry.kind === REF_DELTA ? framed.byteLength - headerLength : entry.size);
    const oid = digest('sha1', framed.subarray(0, end), 'hex');
    entry.oid = oid;
    entry.type = type;
    const content = framed.subarray(headerLength, end);
    // Blob contents may sit in the scratch buffer; only their facts are kept.
    if (type === 'blob') this.catalog.addBlob(oid, content, this.packNumber, entry.offset);
    else this.catalog.add(oid, type, content, this.packNumber, entry.offset);
  }

  /**
   * Resolve an OFS_DELTA as soon as it is complete (its base is earlier in the pack, so already
   * named): the work overlaps the download. Others wait for `resolveRest`.
   */
  private resolveInStream(entry: Entry, delta: Uint8Array): void {
    if (entry.kind !== OFS_DELTA) return;
    const base = this.entryAt(entry.baseOffset!);
    if (base?.oid === undefined) return;
    this.resolve(entry, base, delta, this.contentOf(base, 1));
  }

  /** Apply a delta to its base's content, name and catalog the result, and keep it while it may be a base. */
  private resolve(entry: Entry, base: Entry, delta: Uint8Array, baseContent: Uint8Array): Uint8Array {
    // A delta's result is counted once, from the size its header declares, before it is built.
    const target = deltaTargetSize(delta);
    this.budget.admit(target, `offset ${entry.offset}`);
    const header = `${base.type} ${target}\0`;
    let framed: Buffer;
    try {
      framed = applyDelta(baseContent, delta, header.length);
    } catch (error) {
      throw new PackIndexError(`delta at ${entry.offset}: ${(error as Error).message}`);
    }
    framed.write(header, 0, 'latin1');
    this.record(entry, base.type!, framed, header.length);
    const content = framed.subarray(header.length);
    this.bases.set(entry.offset, content);
    return content;
  }

  /** The object starting at `offset`, by binary search: entries are in pack order. */
  private entryAt(offset: number): Entry | undefined {
    let lo = 0;
    let hi = this.entries.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const at = this.entries[mid].offset;
      if (at === offset) return this.entries[mid];
      if (at < offset) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }

  /** A named object's content: kept (commit, tree, tag), cached, or inflated (and its chain applied) again. */
  private contentOf(entry: Entry, depth: number): Uint8Array {
    const kept = this.catalog.get(entry.oid!)?.content;
    if (kept) return kept;
    const cached = this.bases.get(entry.offset);
    if (cached) return cached;
    if (depth > MAX_CHAIN) throw new PackIndexError('delta chain too deep');
    const raw = this.inflateFresh(entry);
    if (entry.kind !== OFS_DELTA && entry.kind !== REF_DELTA) {
      this.bases.set(entry.offset, raw);
      return raw;
    }
    const base = entry.kind === OFS_DELTA ? this.entryAt(entry.baseOffset!) : this.byOid?.get(entry.baseOid!);
    if (base?.oid === undefined) throw new PackIndexError('delta base not in the pack (thin pack)');
    const content = applyDelta(this.contentOf(base, depth + 1), raw);
    this.bases.set(entry.offset, content);
    return content;
  }

  private inflateFresh(entry: Entry): Buffer {
    const into = Buffer.allocUnsafe(entry.size + 1);
    try {
      this.inflater.inflateInto(this.buffer, entry.dataAt, this.length, entry.size, into, 0);
      return into.subarray(0, entry.size);
    } catch (error) {
      throw error instanceof InflateSizeError ? new PackIndexError(`object at ${entry.offset}: ${error.message}`) : error;
    }
  }

  /**
   * Deltas not resolved while streaming (REF_DELTA, or a base that was itself waiting): depth
   * first from every named object with unnamed children, so each base is built once.
   */
  private resolveRest(): void {
    if (this.entries.every((e) => e.oid !== undefined)) return;
    this.byOid = new Map(this.entries.filter((e) => e.oid !== undefined).map((e) => [e.oid!, e]));
    const waiting = (entry: Entry): Entry[] => [...(this.ofsChildren.get(entry.offset) ?? []), ...(this.refChildren.get(entry.oid!) ?? [])].filter((c) => c.oid === undefined);
    for (let i = 0; i < this.entries.length; i++) {
      const root = this.entries[i];
      if (root.oid === undefined) continue;
      const children = waiting(root);
      if (children.length === 0) continue;
      const rootContent = this.contentOf(root, 1);
      const stack = children.map((entry) => ({ entry, base: root, content: rootContent, depth: 1 }));
      while (stack.length > 0) {
        const { entry, base, content, depth } = stack.pop()!;
        if (depth > MAX_CHAIN) throw new PackIndexError('delta chain too deep');
        if (entry.oid !== undefined) continue;
        const result = this.resolve(entry, base, this.inflateFresh(entry), content);
        this.byOid.set(entry.oid!, entry);
        for (const child of waiting(entry)) stack.push({ entry: child, base: entry, content: result, depth: depth + 1 });
      }
    }
    if (this.entries.some((e) => e.oid === undefined)) throw new PackIndexError('delta base not in the pack (thin pack)');
  }
}

/** Index a whole pack already in memory (no copy of it is made). */
export async function indexPack(pack: Uint8Array, limits: InflateLimits | InflateBudget = {}, catalog?: PackCatalog): Promise<IndexedPack> {
  return new PackIndexer(limits, catalog, pack).finish();
}

function push<K>(map: Map<K, Entry[]>, key: K, entry: Entry): void {
  const list = map.get(key);
  if (list) list.push(entry);
  else map.set(key, [entry]);
}
