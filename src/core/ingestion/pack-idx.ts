import { createHash } from 'node:crypto';

/** What the `.idx` records of a pack's objects, one slot each: names as 20 bytes, CRC-32s, offsets. */
export interface IndexedObjects {
  count: number;
  names: Uint8Array;
  crc: ArrayLike<number>;
  offset: ArrayLike<number>;
}

/**
 * Write the version-2 pack index `git index-pack` writes for these objects (every one named):
 * fan-out, sorted names, CRCs, 31-bit offsets with 64-bit ones after them, the pack's
 * checksum (`packTrailer`), then the index's own.
 */
export function writePackIndex(objects: IndexedObjects, packTrailer: Uint8Array): { idx: Buffer } {
  const { count, names } = objects;
  const order = sortedOrder(names, count);
  let large = 0;
  for (let i = 0; i < count; i++) if (objects.offset[i] >= 0x80000000) large++;
  const size = 8 + 256 * 4 + count * (20 + 4 + 4) + large * 8 + 40;
  const idx = Buffer.alloc(size);
  const view = new DataView(idx.buffer, idx.byteOffset, idx.byteLength);
  view.setUint32(0, 0xff744f63);
  view.setUint32(4, 2);
  const namesAt = 8 + 256 * 4;
  const crcsAt = namesAt + count * 20;
  const offsetsAt = crcsAt + count * 4;
  const largeAt = offsetsAt + count * 4;
  const fanout = new Uint32Array(256);
  let largeIndex = 0;
  for (let i = 0; i < count; i++) {
    const from = order[i];
    const at = namesAt + i * 20;
    for (let k = 0; k < 20; k++) idx[at + k] = names[from * 20 + k];
    fanout[names[from * 20]]++;
    view.setUint32(crcsAt + i * 4, objects.crc[from]);
    const offset = objects.offset[from];
    if (offset >= 0x80000000) {
      view.setUint32(offsetsAt + i * 4, (0x80000000 | largeIndex) >>> 0);
      view.setBigUint64(largeAt + largeIndex * 8, BigInt(offset));
      largeIndex++;
    } else view.setUint32(offsetsAt + i * 4, offset);
  }
  let running = 0;
  for (let b = 0; b < 256; b++) view.setUint32(8 + b * 4, (running += fanout[b]));
  let p = largeAt + large * 8;
  idx.set(packTrailer, p);
  p += 20;
  createHash('sha1').update(idx.subarray(0, p)).digest().copy(idx, p);
  return { idx };
}

/** Positions 0..count-1 ordered by their 20-byte names in `names`, as `git index-pack` sorts them. */
function sortedOrder(names: Uint8Array, count: number): Uint32Array {
  const order = new Uint32Array(count);
  const prefix = (i: number) => ((names[i * 20] << 24) | (names[i * 20 + 1] << 16) | (names[i * 20 + 2] << 8) | names[i * 20 + 3]) >>> 0;
  const compareNames = (a: number, b: number): number => {
    for (let k = 0; k < 20; k++) {
      const d = names[a * 20 + k] - names[b * 20 + k];
      if (d !== 0) return d;
    }
    return 0;
  };
  if (count >= 1 << 21) {
    for (let i = 0; i < count; i++) order[i] = i;
    return order.sort(compareNames);
  }
  // Each key is the name's first four bytes and its position, exact in a double (32 + 21 bits):
  // a native numeric sort, no comparator call per step.
  const keys = new Float64Array(count);
  for (let i = 0; i < count; i++) keys[i] = prefix(i) * 2097152 + i;
  keys.sort();
  for (let i = 0; i < count; i++) order[i] = keys[i] % 2097152;
  // Names sharing their first four bytes (rare) are ordered on the rest.
  for (let i = 1; i < count; i++) {
    if (prefix(order[i]) !== prefix(order[i - 1])) continue;
    let j = i;
    while (j < count && prefix(order[j]) === prefix(order[i - 1])) j++;
    order.subarray(i - 1, j).sort(compareNames);
    i = j - 1;
  }
  return order;
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
