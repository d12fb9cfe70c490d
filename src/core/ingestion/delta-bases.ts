import { BaseRing } from './base-ring.js';
import { applyDelta } from './git-delta.js';
import { InflateSizeError } from './inflate-budget.js';
import type { ObjectInflater } from './object-inflater.js';
import type { ObjectSlots } from './object-slots.js';
import { type PackCatalog } from './pack-catalog.js';
import { OFS_DELTA } from './pack-format.js';
import { ownBytes, roomFor } from './typed-arrays.js';

export class PackIndexError extends Error {}

/** The longest delta chain followed to a base. */
export const MAX_CHAIN = 10_000;

/**
 * The most inflated delta bases kept while indexing, by bytes (`BaseRing`, which only widens
 * towards it when bases it dropped are needed again). A fixed 8 MiB cache added 12 MB to the
 * peak memory of ingesting a generated 50k-file repository, for no time saved.
 */
const BASE_CACHE_BYTES = 2 * 1024 * 1024;

/** What the indexer lends (`PackIndexer`): read at each call, as it replaces its pack buffer when it grows. */
export interface IndexedObjects {
  readonly slots: ObjectSlots;
  readonly catalog: PackCatalog;
  readonly inflater: ObjectInflater;
  /** The pack so far and how many of its bytes are in. */
  readonly buffer: Buffer;
  readonly length: number;
  /** Named objects by id, once deltas by id (REF_DELTA) are resolved. */
  readonly byOid?: Map<string, number>;
}

/**
 * The contents of the indexer's delta bases and the instructions of its deltas, built into
 * reused buffers so that resolving makes no per-object garbage: `deltas` takes a delta
 * inflated again, `building` a base being built; only bases asked for again are kept, in the
 * ring.
 */
export class DeltaBases {
  private readonly ring = new BaseRing(BASE_CACHE_BYTES);
  /** The offsets of every base ever kept in the ring. */
  private readonly kept = new Set<number>();
  private building: Buffer = Buffer.alloc(0);
  private deltas: Buffer = Buffer.alloc(0);

  constructor(private readonly objects: IndexedObjects) {}

  /**
   * A named object's content as a delta base: kept (commit, tree, tag), cached, or inflated (and
   * its chain applied) again, then cached. Valid until the next call.
   */
  content(slot: number, depth: number): Uint8Array {
    const { slots, catalog } = this.objects;
    const kept = catalog.contentByName(slots.names, slot * 20);
    if (kept) return kept;
    const offset = slots.offset[slot];
    const cached = this.ring.get(offset);
    if (cached) return cached;
    if (depth > MAX_CHAIN) throw new PackIndexError('delta chain too deep');
    // Built again after the ring dropped it: a wider ring would have saved that.
    if (this.kept.has(offset)) this.ring.widen();
    else this.kept.add(offset);
    let content: Buffer;
    if (!slots.isDelta(slot)) content = this.inflate(slot, this.roomToBuild(slots.size[slot] + 1));
    else {
      const base = slots.kind[slot] === OFS_DELTA ? slots.at(slots.baseOffset[slot]) : (this.objects.byOid?.get(slots.baseOid.get(slot)!) ?? -1);
      if (base < 0 || slots.type[base] === 0) throw new PackIndexError('delta base not in the pack (thin pack)');
      // The base first: its chain is done with the delta and building buffers when this delta
      // goes there; what it returns is in the ring (or, too large for it, its own memory).
      const baseContent = this.content(base, depth + 1);
      content = applyDelta(baseContent, this.delta(slot), 0, (size) => this.roomToBuild(size));
    }
    return this.ring.set(offset, content);
  }

  /** A delta's instructions, in the delta buffer (valid until the next call). */
  delta(slot: number): Buffer {
    return this.inflate(slot, (this.deltas = roomFor(this.deltas, this.objects.slots.size[slot] + 1)));
  }

  /** Drop every buffer: indexing is over. */
  clear(): void {
    this.ring.clear();
    this.kept.clear();
    this.building = this.deltas = Buffer.alloc(0);
  }

  /** The building buffer, or for a base too large for the ring (which keeps no copy) memory of its own. */
  private roomToBuild(size: number): Buffer {
    if (size > BASE_CACHE_BYTES / 4) return ownBytes(size);
    return (this.building = roomFor(this.building, size));
  }

  /** Inflate an object's stream into `into` (its size plus one byte of room); its content is returned as a view. */
  private inflate(slot: number, into: Buffer): Buffer {
    const { slots, inflater, buffer, length } = this.objects;
    const size = slots.size[slot];
    try {
      inflater.inflateInto(buffer, slots.dataAt[slot], length, size, into, 0);
      return into.subarray(0, size);
    } catch (error) {
      throw error instanceof InflateSizeError ? new PackIndexError(`object at ${slots.offset[slot]}: ${error.message}`) : error;
    }
  }
}
