import { OFS_DELTA, REF_DELTA } from './pack-format.js';
import { regrown } from './typed-arrays.js';

/**
 * What the indexer knows of each object, one slot per object in pack order, in typed arrays:
 * tens of thousands of objects would otherwise be as many long-lived JavaScript objects and id
 * strings (see `PackCatalog`). A slot is filled when its header is read and counted once its
 * zlib stream is complete.
 */
export class ObjectSlots {
  count = 0;
  offset = new Float64Array(0);
  dataAt = new Float64Array(0);
  /** Inflated size declared by the object header (for deltas: of the delta itself). */
  size = new Float64Array(0);
  baseOffset = new Float64Array(0);
  /** CRC-32 of the object's bytes in the pack, taken when it is complete (while the rest downloads). */
  crc = new Uint32Array(0);
  kind = new Uint8Array(0);
  /** Object type code (1 commit, 2 tree, 3 blob, 4 tag) once named; 0 before. */
  type = new Uint8Array(0);
  names = new Uint8Array(0);
  /** REF_DELTA bases by slot (rare: git sends OFS_DELTA when asked). */
  readonly baseOid = new Map<number, string>();

  /** Room for `count` slots: exactly that many when first reserved (the pack header's count), doubling after. */
  reserve(count: number): void {
    if (count <= this.kind.length) return;
    const capacity = Math.max(1024, count, this.kind.length * 2);
    this.offset = regrown(this.offset, Float64Array, capacity);
    this.dataAt = regrown(this.dataAt, Float64Array, capacity);
    this.size = regrown(this.size, Float64Array, capacity);
    this.baseOffset = regrown(this.baseOffset, Float64Array, capacity);
    this.crc = regrown(this.crc, Uint32Array, capacity);
    this.kind = regrown(this.kind, Uint8Array, capacity);
    this.type = regrown(this.type, Uint8Array, capacity);
    this.names = regrown(this.names, Uint8Array, capacity * 20);
  }

  /** The slot of the object starting at `offset`, by binary search (slots are in pack order); -1 when none. */
  at(offset: number): number {
    let lo = 0;
    let hi = this.count - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const start = this.offset[mid];
      if (start === offset) return mid;
      if (start < offset) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  isDelta(slot: number): boolean {
    return this.kind[slot] === OFS_DELTA || this.kind[slot] === REF_DELTA;
  }

  hex(slot: number): string {
    return Buffer.from(this.names.buffer, this.names.byteOffset + slot * 20, 20).toString('hex');
  }
}
