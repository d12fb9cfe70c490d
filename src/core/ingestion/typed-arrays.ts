/**
 * Typed arrays for per-object records. `new Float64Array(n)` zero-fills, which touches every page
 * of the capacity reserved ahead (on a small machine, touching fresh memory is a large part of
 * what ingestion costs); these are backed by uninitialised memory, so only the slots written
 * become resident. Callers write every slot before they read it.
 */
type Ctor<T> = { new (buffer: ArrayBuffer, byteOffset: number, length: number): T; BYTES_PER_ELEMENT: number };

function uninitialised<T extends ArrayBufferView>(type: Ctor<T>, length: number): T {
  const bytes = Buffer.allocUnsafeSlow(length * type.BYTES_PER_ELEMENT);
  return new type(bytes.buffer as ArrayBuffer, bytes.byteOffset, length);
}

/** `from`'s elements at the start of a new uninitialised array of `length`. */
export function regrown<T extends Uint8Array | Uint16Array | Uint32Array | Float64Array>(from: T, type: Ctor<T>, length: number): T {
  const to = uninitialised(type, length);
  to.set(from as never);
  return to;
}

/** How many records to reserve for a pack that declares `count` objects: never more than a bound a hostile header cannot push. */
export function reservedRecords(count: number): number {
  return Math.max(1024, Math.min(count, 1 << 20));
}

/** `buffer` when it holds `size` bytes, else a larger one (at least double, so growth costs O(size)); contents are not kept. */
export function roomFor(buffer: Buffer, size: number): Buffer {
  return buffer.byteLength >= size ? buffer : Buffer.allocUnsafe(Math.max(size, buffer.byteLength * 2));
}

/**
 * Memory of its own for content that outlives the call (a delta base too large for the ring, a
 * base of the deltas resolved at the end): not a slice of the shared small-buffer pool, whose
 * chunks one kept slice would keep alive with all else in them.
 */
export function ownBytes(size: number): Buffer {
  return Buffer.allocUnsafeSlow(size);
}
