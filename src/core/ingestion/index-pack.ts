import { createHash, hash as digest, type Hash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { InflateBudget, InflateSizeError, InflateTruncatedError, STREAM_OBJECT_BYTES, nameStreaming, type InflateLimits } from './inflate-budget.js';
import { ObjectInflater } from './object-inflater.js';
import { ObjectSlots } from './object-slots.js';
import { ownBytes, reservedRecords, roomFor } from './typed-arrays.js';
import { writePackIndex } from './pack-idx.js';
import { objectHeader } from '../objects/tree-hash.js';
import { applyDelta, deltaTargetSize } from './git-delta.js';
import { DeltaBases, MAX_CHAIN, PackIndexError } from './delta-bases.js';
import { PackCatalog } from './pack-catalog.js';
import { OFS_DELTA, PACK_OBJECT_TYPES as TYPE_NAMES, REF_DELTA, readObjectHeader } from './pack-format.js';

/** Longest object header: type and size varint (10 bytes) plus a REF_DELTA base (20 bytes). */
const MAX_HEADER = 32;
/**
 * Room reserved for a pack before its size is known. Pages of a buffer become resident only
 * once written, so reserving costs no memory, while every growth copies (and touches) all
 * bytes so far: on a machine where touching fresh memory is slow that copy is most of the cost.
 */
const INITIAL_CAPACITY = 32 * 1024 * 1024;

export { PackIndexError };

export interface IndexedPack {
  /** The version-2 `.idx`, byte for byte what `git index-pack` writes. */
  idx: Uint8Array;
  /** How many objects the pack holds. */
  objects: number;
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
  private slots = new ObjectSlots();
  private readonly inflater = new ObjectInflater();
  private byOid?: Map<string, number>;
  private count = -1;
  private at = 12;
  /** Deltas by their base: OFS_DELTA by the base's offset, REF_DELTA by its id. */
  private readonly ofsChildren = new Map<number, number[]>();
  private readonly refChildren = new Map<string, number[]>();
  /** The slot whose header is read and whose stream is not complete yet; -1 for none. */
  private current = -1;
  /** Input needed before a truncated object is tried again (doubling, so retries cost O(size)). */
  private retryAt = 0;
  private hashed = 0;
  private readonly packHash: Hash = createHash('sha1');
  /**
   * Reused buffers, so indexing makes no per-object garbage: `scratch` takes what streams in
   * (blobs, trees and commits before the catalog copies them, deltas), `results` what deltas
   * resolve to; delta bases and deltas inflated again are built by `bases`.
   */
  private scratch: Buffer = Buffer.allocUnsafe(64 * 1024);
  private results: Buffer = Buffer.alloc(0);
  private readonly budget: InflateBudget;
  private readonly packNumber: number;
  private readonly bases: DeltaBases;

  constructor(
    limits: InflateLimits | InflateBudget = {},
    readonly catalog: PackCatalog = new PackCatalog(),
    whole?: Uint8Array,
  ) {
    this.budget = limits instanceof InflateBudget ? limits : new InflateBudget(limits);
    this.buffer = whole ? Buffer.from(whole.buffer, whole.byteOffset, whole.byteLength) : Buffer.allocUnsafe(INITIAL_CAPACITY);
    this.length = whole ? whole.byteLength : 0;
    this.packNumber = catalog.addPack(() => this.buffer.subarray(0, this.length));
    // Read at each call: the pack buffer is replaced as it grows, the slots once indexing ends.
    const indexer = this;
    this.bases = new DeltaBases({
      get slots() {
        return indexer.slots;
      },
      get buffer() {
        return indexer.buffer;
      },
      get length() {
        return indexer.length;
      },
      get byOid() {
        return indexer.byOid;
      },
      catalog,
      inflater: this.inflater,
    });
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
    const { idx } = writePackIndex(this.slots, pack.subarray(trailer));
    const objects = this.slots.count;
    // The catalog reads the pack through this indexer: keep nothing else of it alive (the
    // per-object records are in the `.idx` and the catalog now).
    this.scratch = this.results = Buffer.alloc(0);
    this.slots = new ObjectSlots();
    this.bases.clear();
    this.ofsChildren.clear();
    this.refChildren.clear();
    this.byOid = undefined;
    return { idx, objects, packSha, pack, catalog: this.catalog };
  }

  private readPackHeader(): void {
    if (this.count >= 0) return;
    const pack = this.buffer;
    if (pack.readUInt32BE(0) !== 0x5041434b) throw new PackIndexError('not a pack');
    const version = pack.readUInt32BE(4);
    if (version !== 2 && version !== 3) throw new PackIndexError(`unsupported pack version ${version}`);
    this.count = pack.readUInt32BE(8);
    // The header says how many objects follow: room for them all at once, within a bound.
    const expected = reservedRecords(this.count);
    this.slots.reserve(expected);
    this.catalog.reserve(expected);
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
    const slots = this.slots;
    while (slots.count < this.count) {
      const slot = this.nextSlot(final, limit);
      if (slot < 0) return false;
      const isDelta = slots.isDelta(slot);
      const size = slots.size[slot];
      const dataAt = slots.dataAt[slot];
      if (!isDelta && size > STREAM_OBJECT_BYTES) return false;
      const available = limit - dataAt;
      // A stream is rarely longer than its content plus a few bytes: waiting until that much is
      // in (up to 64 KiB, then doubling) spares inflating what is certainly cut short.
      if (!final && available < Math.max(this.retryAt, Math.min(size + 64, 64 * 1024))) return false;
      // The object's git header goes in front of its content, so one call names it.
      const header = isDelta ? '' : objectHeader(TYPE_NAMES[slots.kind[slot]], size);
      const room = header.length + size + 1;
      const out = this.scratchFor(room);
      let consumed: number;
      try {
        consumed = this.inflater.inflateInto(this.buffer, dataAt, limit, size, out, out.write(header, 0, 'latin1'));
      } catch (error) {
        if (!(error instanceof InflateSizeError)) throw error;
        if (error instanceof InflateTruncatedError && !final) {
          this.retryAt = available * 2;
          return false;
        }
        throw new PackIndexError(`object at ${slots.offset[slot]}: ${error instanceof InflateTruncatedError ? 'truncated pack' : error.message}`);
      }
      if (!isDelta) this.record(slot, slots.kind[slot], out, header.length, header.length + size);
      this.complete(slot, dataAt + consumed);
      if (isDelta) this.resolveInStream(slot, out.subarray(0, size));
    }
    return true;
  }

  /** The slot of the object being indexed, its header read first if need be; -1 until enough bytes are in for the header. */
  private nextSlot(final: boolean, limit: number): number {
    if (this.current >= 0) return this.current;
    if (!final && this.length - this.at < MAX_HEADER) return -1;
    if (this.at >= limit) throw new PackIndexError('truncated pack');
    this.current = this.readHeader(this.at, limit);
    this.retryAt = 0;
    return this.current;
  }

  private readHeader(start: number, limit: number): number {
    const header = readObjectHeader(this.buffer, start);
    const { kind, size } = header;
    if (kind !== OFS_DELTA && kind !== REF_DELTA && !TYPE_NAMES[kind]) throw new PackIndexError(`unknown object type ${kind} at ${start}`);
    if (header.dataAt >= limit) throw new PackIndexError('truncated pack');
    const slots = this.slots;
    const slot = slots.count;
    slots.reserve(slot + 1);
    slots.offset[slot] = start;
    slots.dataAt[slot] = header.dataAt;
    slots.size[slot] = size;
    slots.kind[slot] = kind;
    slots.type[slot] = 0;
    // Deltas count once resolved (their target size); their own instructions only per object.
    if (kind === OFS_DELTA || kind === REF_DELTA) this.budget.object(size, start);
    else this.budget.admit(size, start);
    if (kind === OFS_DELTA) {
      slots.baseOffset[slot] = header.baseOffset!;
      push(this.ofsChildren, header.baseOffset!, slot);
    }
    if (kind === REF_DELTA) {
      slots.baseOid.set(slot, header.baseOid!);
      push(this.refChildren, header.baseOid!, slot);
    }
    return slot;
  }

  private complete(slot: number, end: number): void {
    const start = this.slots.offset[slot];
    this.slots.crc[slot] = crc32(this.buffer.subarray(start, end)) >>> 0;
    this.at = end;
    this.slots.count++;
    this.current = -1;
  }

  /** The current object is too large to hold: hash it (and probe its first bytes) as a stream. */
  private async streamLarge(): Promise<void> {
    const slot = this.current;
    const slots = this.slots;
    const kind = slots.kind[slot];
    const size = slots.size[slot];
    const dataAt = slots.dataAt[slot];
    let named: Awaited<ReturnType<typeof nameStreaming>>;
    try {
      named = await nameStreaming(this.buffer.subarray(dataAt, this.length - 20), TYPE_NAMES[kind], size);
    } catch (error) {
      throw error instanceof InflateSizeError ? new PackIndexError(`object at ${slots.offset[slot]}: ${error.message}`) : error;
    }
    const { name, first, consumed } = named;
    slots.names.set(name, slot * 20);
    slots.type[slot] = kind;
    if (kind === 3) this.catalog.addBlob(name, first, this.packNumber, slots.offset[slot], size);
    else
      this.catalog.add(
        name,
        TYPE_NAMES[kind],
        this.inflater.inflate(this.buffer.subarray(dataAt, this.length - 20), size).data,
        this.packNumber,
        slots.offset[slot],
      );
    this.complete(slot, dataAt + consumed);
  }

  private scratchFor(size: number): Buffer {
    return (this.scratch = roomFor(this.scratch, size));
  }

  /**
   * Name an object and catalog it: commits, trees and tags with their content, blobs as facts.
   * `framed` holds the object's git header (`headerLength` bytes) then its content, up to `end`.
   */
  private record(slot: number, type: number, framed: Buffer, headerLength: number, end: number): void {
    const name = digest('sha1', framed.subarray(0, end), 'buffer') as unknown as Buffer;
    this.slots.names.set(name, slot * 20);
    this.slots.type[slot] = type;
    const content = framed.subarray(headerLength, end);
    // `framed` is a scratch buffer: blobs leave their facts, the catalog copies other contents.
    if (type === 3) this.catalog.addBlob(name, content, this.packNumber, this.slots.offset[slot]);
    else this.catalog.add(name, TYPE_NAMES[type], content, this.packNumber, this.slots.offset[slot]);
  }

  /**
   * Resolve an OFS_DELTA as soon as it is complete (its base is earlier in the pack, so already
   * named): the work overlaps the download. Others wait for `resolveRest`.
   */
  private resolveInStream(slot: number, delta: Uint8Array): void {
    if (this.slots.kind[slot] !== OFS_DELTA) return;
    const base = this.slots.at(this.slots.baseOffset[slot]);
    if (base < 0 || this.slots.type[base] === 0) return;
    this.resolve(slot, base, delta, this.bases.content(base, 1));
  }

  /**
   * Apply a delta to its base's content, name and catalog the result. The content returned is
   * in a scratch buffer, valid until the next call: it is not cached, as most results are never
   * a base; one that is will be rebuilt once by `bases` and cached there.
   */
  private resolve(slot: number, base: number, delta: Uint8Array, baseContent: Uint8Array): Uint8Array {
    const offset = this.slots.offset[slot];
    // A delta's result is counted once, from the size its header declares, before it is built.
    const target = deltaTargetSize(delta);
    this.budget.admit(target, offset);
    const type = this.slots.type[base];
    const header = objectHeader(TYPE_NAMES[type], target);
    let framed: Buffer;
    try {
      framed = applyDelta(baseContent, delta, header.length, (size) => (this.results = roomFor(this.results, size)));
    } catch (error) {
      throw new PackIndexError(`delta at ${offset}: ${(error as Error).message}`);
    }
    framed.write(header, 0, 'latin1');
    this.record(slot, type, framed, header.length, framed.byteLength);
    return framed.subarray(header.length);
  }

  /**
   * Deltas not resolved while streaming (REF_DELTA, or a base that was itself waiting): depth
   * first from every named object with unnamed children, so each base is built once.
   */
  private resolveRest(): void {
    const slots = this.slots;
    const named = (slot: number) => slots.type[slot] !== 0;
    let unnamed = 0;
    for (let slot = 0; slot < slots.count; slot++) if (!named(slot)) unnamed++;
    if (unnamed === 0) return;
    this.byOid = new Map();
    for (let slot = 0; slot < slots.count; slot++) if (named(slot)) this.byOid.set(slots.hex(slot), slot);
    const waiting = (slot: number): number[] => {
      const children = [...(this.ofsChildren.get(slots.offset[slot]) ?? [])];
      if (this.refChildren.size > 0) children.push(...(this.refChildren.get(slots.hex(slot)) ?? []));
      return children.filter((c) => !named(c));
    };
    for (let root = 0; root < slots.count; root++) {
      if (!named(root)) continue;
      const children = waiting(root);
      if (children.length === 0) continue;
      const rootContent = this.bases.content(root, 1);
      const stack = children.map((slot) => ({ slot, base: root, content: rootContent, depth: 1 }));
      while (stack.length > 0) {
        const { slot, base, content, depth } = stack.pop()!;
        if (depth > MAX_CHAIN) throw new PackIndexError('delta chain too deep');
        if (named(slot)) continue;
        const result = this.resolve(slot, base, this.bases.delta(slot), content);
        this.byOid.set(slots.hex(slot), slot);
        const next = waiting(slot);
        if (next.length === 0) continue;
        // The result is in the results buffer, which the next delta overwrites: its children get a copy.
        const own = ownBytes(result.byteLength);
        own.set(result);
        for (const child of next) stack.push({ slot: child, base: slot, content: own, depth: depth + 1 });
      }
    }
    for (let slot = 0; slot < slots.count; slot++) if (!named(slot)) throw new PackIndexError('delta base not in the pack (thin pack)');
  }
}

/** Index a whole pack already in memory (no copy of it is made). */
export async function indexPack(pack: Uint8Array, limits: InflateLimits | InflateBudget = {}, catalog?: PackCatalog): Promise<IndexedPack> {
  return new PackIndexer(limits, catalog, pack).finish();
}

function push<K>(map: Map<K, number[]>, key: K, slot: number): void {
  const list = map.get(key);
  if (list) list.push(slot);
  else map.set(key, [slot]);
}
