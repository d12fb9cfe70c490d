/**
 * Copies of many small byte strings that all live as long as their owner (the contents of a
 * pack's commits, trees and tags), packed into a few large chunks.
 *
 * Each small `Buffer.allocUnsafe` is a slice of a shared 8 KiB pool: one kept slice keeps its
 * whole pool chunk alive, along with whatever short-lived data (inflated blobs, delta results)
 * shared it. Indexing a pack makes tens of thousands of such buffers, and kept trees pinning
 * pool chunks was a third of ingestion's peak memory on a 50k-file repository. Chunks here are
 * reserved uninitialised, so only the bytes written become resident.
 */
export class ByteArena {
  private chunk: Buffer = Buffer.alloc(0);
  private used = 0;

  constructor(private readonly chunkBytes = 256 * 1024) {}

  /** A copy of `bytes` that lives as long as the arena. */
  keep(bytes: Uint8Array): Uint8Array {
    const size = bytes.byteLength;
    // Large contents get their own allocation: a chunk would waste its unused tail on them.
    if (size > this.chunkBytes / 4) {
      const own = Buffer.allocUnsafeSlow(size);
      own.set(bytes);
      return own;
    }
    if (this.used + size > this.chunk.byteLength) {
      this.chunk = Buffer.allocUnsafeSlow(this.chunkBytes);
      this.used = 0;
    }
    const at = this.used;
    this.chunk.set(bytes, at);
    this.used += size;
    return this.chunk.subarray(at, at + size);
  }
}
