/** Git's delta format (copy and insert instructions against a base), as packs carry it. */

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

/**
 * Apply a git delta (copy/insert instructions) to `base`. The buffer returned holds `room` bytes
 * then the result, exactly; it is a view of the buffer `into` gives for that size (a reused
 * scratch buffer will do), by default a new one.
 */
export function applyDelta(base: Uint8Array, delta: Uint8Array, room = 0, into: (size: number) => Buffer = Buffer.allocUnsafe): Buffer {
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
  const end = room + varint();
  const provided = into(end);
  if (provided.byteLength < end) throw new RangeError('delta output buffer too small');
  const out = provided.byteLength === end ? provided : provided.subarray(0, end);
  let written = room;
  while (at < delta.byteLength) {
    const op = delta[at++];
    if (op & 0x80) {
      const offset = copyOffset(op, delta, at);
      at += FIELD_BYTES[op & 0x0f];
      const size = copySize(op, delta, at);
      at += FIELD_BYTES[(op >> 4) & 0x07];
      // Checked, not clamped: a short copy would leave uninitialised bytes in the result.
      if (offset + size > base.byteLength || written + size > out.byteLength || at > delta.byteLength)
        throw new Error('delta copies outside its base or result');
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

/** How many bytes a copy instruction's offset (or size) takes, by the 4 (or 3) bits of its opcode that say which are present. */
const FIELD_BYTES = Uint8Array.from({ length: 16 }, (_, bits) => (bits & 1) + ((bits >> 1) & 1) + ((bits >> 2) & 1) + ((bits >> 3) & 1));

/** A copy instruction's offset: the bytes its opcode's low 4 bits say are present, little-endian, from `at`. */
function copyOffset(op: number, delta: Uint8Array, at: number): number {
  let offset = 0;
  if (op & 0x01) offset |= delta[at++];
  if (op & 0x02) offset |= delta[at++] << 8;
  if (op & 0x04) offset |= delta[at++] << 16;
  if (op & 0x08) offset += delta[at++] * 0x1000000;
  return offset;
}

/** A copy instruction's size (bits 4 to 6 of its opcode), from `at`, just past its offset; 0 means 64 KiB. */
function copySize(op: number, delta: Uint8Array, at: number): number {
  let size = 0;
  if (op & 0x10) size |= delta[at++];
  if (op & 0x20) size |= delta[at++] << 8;
  if (op & 0x40) size |= delta[at++] << 16;
  return size === 0 ? 0x10000 : size;
}

/** Short copies byte by byte: most delta instructions move a few bytes, and a view costs more. */
function copyBytes(from: Uint8Array, at: number, size: number, to: Uint8Array, into: number): void {
  if (size > 64) to.set(from.subarray(at, at + size), into);
  else for (let i = 0; i < size; i++) to[into + i] = from[at + i];
}
