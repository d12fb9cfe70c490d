/**
 * The indexer's cache of delta bases: contents copied into one ring of memory, oldest first out,
 * keyed by pack offset. A content returned by `get` or `set` stays valid until the next `set`.
 *
 * A cache of separately allocated buffers costs more than its bound: every dropped base is
 * garbage until the next collection, and a download allocates too little else to cause one, so
 * on a 50k-object pack the dropped bases (6,000 of them, 6 MB) were all still resident when
 * indexing ended, whatever the bound. Here the memory is the ring, reserved as it fills and
 * reused. The ring starts small and is widened (`widen`) only when a base it dropped is asked
 * for again: in many packs each base serves deltas that follow it closely and is never needed
 * after, and a ring that only ever fills would be resident memory for nothing.
 */
export class BaseRing {
  private ring: Buffer = Buffer.alloc(0);
  private at = 0;
  /** The ring's size for now: doubled by `widen`, up to `maxBytes`. */
  private limit: number;
  /** Offsets kept, oldest first from `head`, with where each content is in the ring. */
  private readonly order: number[] = [];
  private head = 0;
  private readonly where = new Map<number, { start: number; length: number }>();

  constructor(private readonly maxBytes: number) {
    this.limit = Math.min(64 * 1024, maxBytes);
  }

  get(key: number): Uint8Array | undefined {
    const found = this.where.get(key);
    return found ? this.ring.subarray(found.start, found.start + found.length) : undefined;
  }

  /**
   * Keep a copy of `content` under `key` and return it; contents over a quarter of the bound
   * are not kept (`content` itself is returned).
   */
  set(key: number, content: Uint8Array): Uint8Array {
    const length = content.byteLength;
    if (length > this.maxBytes / 4) return content;
    const known = this.get(key);
    if (known) return known;
    while (length > this.limit) this.widen();
    // The ring grows (doubling) up to its limit as it fills.
    if (this.at + length > this.ring.byteLength && this.ring.byteLength < this.limit) {
      const grown = Buffer.allocUnsafeSlow(Math.min(this.limit, Math.max(64 * 1024, this.ring.byteLength * 2, this.at + length)));
      // All of it: after a wrap, the oldest contents lie past `at`.
      this.ring.copy(grown, 0, 0, this.ring.byteLength);
      this.ring = grown;
    }
    if (this.at + length > this.ring.byteLength) {
      // Back to the start. What is left of the last round past `at` is the oldest: dropped now,
      // or it would stand first in line while newer contents at the start were overwritten.
      while (this.head < this.order.length && this.where.get(this.order[this.head])!.start >= this.at) this.drop();
      this.at = 0;
    }
    const start = this.at;
    const end = start + length;
    // Drop, oldest first, what the new content overwrites: contents lie in the ring in the order
    // they came, so those it overlaps are the oldest.
    while (this.head < this.order.length) {
      const kept = this.where.get(this.order[this.head])!;
      if (kept.start >= end || kept.start + kept.length <= start) break;
      this.drop();
    }
    if (this.head > 1024 && this.head * 2 > this.order.length) {
      this.order.splice(0, this.head);
      this.head = 0;
    }
    this.ring.set(content, start);
    this.at = end;
    this.order.push(key);
    this.where.set(key, { start, length });
    return this.ring.subarray(start, end);
  }

  private drop(): void {
    this.where.delete(this.order[this.head]);
    this.head++;
  }

  /** A dropped base was needed again: let the ring hold more (up to its bound). */
  widen(): void {
    this.limit = Math.min(this.maxBytes, this.limit * 2);
  }

  clear(): void {
    this.ring = Buffer.alloc(0);
    this.at = 0;
    this.order.length = 0;
    this.head = 0;
    this.where.clear();
  }
}
