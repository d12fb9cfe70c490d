import { createHash } from 'node:crypto';

/** What the `.idx` records of one object. */
export interface IndexedObject {
  oid?: string;
  offset: number;
  /** CRC-32 of the object's bytes in the pack. */
  crc: number;
}

/**
 * Write the version-2 pack index `git index-pack` writes for these objects (every one named):
 * fan-out, sorted names, CRCs, 31-bit offsets with 64-bit ones after them, the pack's
 * checksum (`packTrailer`), then the index's own.
 */
export function writePackIndex(objects: readonly IndexedObject[], packTrailer: Uint8Array): { idx: Buffer; oids: string[] } {
  const count = objects.length;
  // Names as bytes, sorted on their first four bytes as numbers (ties, rare, byte by byte).
  const names = Buffer.allocUnsafe(count * 20);
  objects.forEach((e, i) => names.write(e.oid!, i * 20, 'hex'));
  const order = Array.from({ length: count }, (_, i) => i).sort((a, b) => names.readUInt32BE(a * 20) - names.readUInt32BE(b * 20) || names.compare(names, a * 20, a * 20 + 20, b * 20, b * 20 + 20));
  const sorted = order.map((i) => objects[i]);
  const large = sorted.filter((e) => e.offset >= 0x80000000);
  const size = 8 + 256 * 4 + count * (20 + 4 + 4) + large.length * 8 + 40;
  const idx = Buffer.alloc(size);
  idx.writeUInt32BE(0xff744f63, 0);
  idx.writeUInt32BE(2, 4);
  const fanout = new Uint32Array(256);
  for (const i of order) fanout[names[i * 20]]++;
  let running = 0;
  for (let b = 0; b < 256; b++) {
    running += fanout[b];
    idx.writeUInt32BE(running, 8 + b * 4);
  }
  let p = 8 + 256 * 4;
  for (const i of order) p += names.copy(idx, p, i * 20, i * 20 + 20);
  for (const e of sorted) p = idx.writeUInt32BE(e.crc, p);
  let largeIndex = 0;
  const largeAt = p + count * 4;
  for (const e of sorted) {
    if (e.offset >= 0x80000000) {
      idx.writeUInt32BE((0x80000000 | largeIndex) >>> 0, p);
      idx.writeBigUInt64BE(BigInt(e.offset), largeAt + largeIndex * 8);
      largeIndex++;
    } else idx.writeUInt32BE(e.offset, p);
    p += 4;
  }
  p = largeAt + large.length * 8;
  idx.set(packTrailer, p);
  p += 20;
  createHash('sha1').update(idx.subarray(0, p)).digest().copy(idx, p);
  return { idx, oids: sorted.map((e) => e.oid!) };
}

interface PackIndex {
  oids: string[];
  offsets: number[];
}

/** Parse a version-2 pack index: sorted names, then CRCs, then 31-bit or 64-bit offsets. */
export function parseIndex(idx: Uint8Array): PackIndex {
  const view = new DataView(idx.buffer, idx.byteOffset, idx.byteLength);
  if (view.getUint32(0) !== 0xff744f63 || view.getUint32(4) !== 2) throw new Error('unsupported pack index version');
  const count = view.getUint32(8 + 255 * 4);
  const namesAt = 8 + 256 * 4;
  const offsetsAt = namesAt + count * 20 + count * 4;
  const largeAt = offsetsAt + count * 4;
  const oids: string[] = new Array(count);
  const offsets: number[] = new Array(count);
  const hex = Buffer.from(idx.buffer, idx.byteOffset, idx.byteLength);
  for (let i = 0; i < count; i++) {
    oids[i] = hex.toString('hex', namesAt + i * 20, namesAt + i * 20 + 20);
    const raw = view.getUint32(offsetsAt + i * 4);
    offsets[i] = raw & 0x80000000 ? Number(view.getBigUint64(largeAt + (raw & 0x7fffffff) * 8)) : raw;
  }
  return { oids, offsets };
}
