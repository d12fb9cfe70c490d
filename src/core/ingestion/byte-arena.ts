/**
 * Copies of many small byte strings that all live as long as their owner (the contents of a
 * pack's commits, trees and tags), packed into a few large chunks and named by a number.
 *
 * Each small `Buffer.allocUnsafe` is a slice of a shared 8 KiB pool: one kept slice keeps its
 * whole pool chunk alive, along with whatever short-lived data (inflated blobs, delta results)
 * shared it. Indexing a pack makes tens of thousands of such buffers, and kept trees pinning
 * pool chunks was a third of ingestion's peak memory on a 50k-file repository. A kept view is
 * an object of its own too (about 100 bytes, a tree's worth of names for small trees): the
 * owner keeps the number `keep` returns, in a typed array, and asks for a view when it reads.
 * Chunks are reserved uninitialised, so only the bytes written become resident.
 */
export class ByteArena {
  private readonly chunks: Buffer[] = [];
  private used = 0;
  /** Contents too large for a chunk, each in its own allocation. */
  private readonly large: Buffer[] = [];

  constructor(private readonly chunkBytes = 256 * 1024) {}

  /** Copy `bytes` in; the number returned names them for `view`. */
  keep(bytes: Uint8Array): number {
    const size = bytes.byteLength;
    // A chunk would waste its unused tail on large contents.
    if (size > this.chunkBytes / 4) {
      const own = Buffer.allocUnsafeSlow(size);
      own.set(bytes);
      this.large.push(own);
      return -this.large.length;
    }
    let chunk = this.chunks[this.chunks.length - 1];
    if (!chunk || this.used + size > this.chunkBytes) {
      chunk = Buffer.allocUnsafeSlow(this.chunkBytes);
      this.chunks.push(chunk);
      this.used = 0;
    }
    const at = this.used;
    chunk.set(bytes, at);
    this.used += size;
    return (this.chunks.length - 1) * this.chunkBytes + at;
  }

  /** The `length` bytes kept under `handle`. */
  view(handle: number, length: number): Uint8Array {
    if (handle < 0) return this.large[-handle - 1];
    const chunk = this.chunks[Math.floor(handle / this.chunkBytes)];
    const at = handle % this.chunkBytes;
    return chunk.subarray(at, at + length);
  }
}
