import { createHash } from 'node:crypto';
import { crc32, inflateSync } from 'node:zlib';
import { applyDelta } from './pack-catalog.js';

const TYPE_NAMES: Record<number, string> = { 1: 'commit', 2: 'tree', 3: 'blob', 4: 'tag' };
const OFS_DELTA = 6;
const REF_DELTA = 7;

export class PackIndexError extends Error {}

interface Entry {
  offset: number;
  end: number;
  kind: number;
  data: Uint8Array | undefined;
  baseOffset?: number;
  baseOid?: string;
  oid?: string;
  type?: number;
}

/**
 * Index a version-2 pack in one pass with native zlib and SHA-1 (what `git index-pack` does):
 * every object is inflated once, deltas are resolved against their bases, and the version-2
 * `.idx` is written. A thin pack (a delta whose base is not in the pack) is refused.
 */
export function indexPack(pack: Uint8Array): { idx: Uint8Array; oids: string[]; packSha: string } {
  const view = new DataView(pack.buffer, pack.byteOffset, pack.byteLength);
  if (pack.byteLength < 32 || view.getUint32(0) !== 0x5041434b) throw new PackIndexError('not a pack');
  const version = view.getUint32(4);
  if (version !== 2 && version !== 3) throw new PackIndexError(`unsupported pack version ${version}`);
  const count = view.getUint32(8);
  const trailer = pack.byteLength - 20;
  const packSha = hex(pack.subarray(trailer));
  if (hex(createHash('sha1').update(pack.subarray(0, trailer)).digest()) !== packSha) throw new PackIndexError('pack checksum mismatch');

  const entries: Entry[] = [];
  const byOffset = new Map<number, Entry>();
  let at = 12;
  for (let i = 0; i < count; i++) {
    const start = at;
    let byte = pack[at++];
    const kind = (byte >> 4) & 7;
    while (byte & 0x80) byte = pack[at++];
    const entry: Entry = { offset: start, end: 0, kind, data: undefined };
    if (kind === OFS_DELTA) {
      byte = pack[at++];
      let rel = byte & 0x7f;
      while (byte & 0x80) {
        byte = pack[at++];
        rel = ((rel + 1) << 7) | (byte & 0x7f);
      }
      entry.baseOffset = start - rel;
    } else if (kind === REF_DELTA) {
      entry.baseOid = hex(pack.subarray(at, at + 20));
      at += 20;
    } else if (!TYPE_NAMES[kind]) throw new PackIndexError(`unknown object type ${kind} at ${start}`);
    if (at >= trailer) throw new PackIndexError('truncated pack');
    const inflated = inflateSync(pack.subarray(at, trailer), { info: true }) as unknown as { buffer: Buffer; engine: { bytesWritten: number } };
    entry.data = inflated.buffer;
    at += inflated.engine.bytesWritten;
    entry.end = at;
    entries.push(entry);
    byOffset.set(start, entry);
  }
  if (at !== trailer) throw new PackIndexError('pack has trailing data');

  const byOid = new Map<string, Entry>();
  for (const entry of entries) {
    if (entry.kind !== OFS_DELTA && entry.kind !== REF_DELTA) {
      entry.type = entry.kind;
      entry.oid = objectId(entry.kind, entry.data!);
      byOid.set(entry.oid, entry);
    }
  }
  // Resolve deltas (iteratively: a base may itself be a delta, in any order for ref deltas).
  const resolve = (entry: Entry, depth: number): void => {
    if (entry.oid) return;
    if (depth > 10_000) throw new PackIndexError('delta chain too deep');
    const base = entry.kind === OFS_DELTA ? byOffset.get(entry.baseOffset!) : byOid.get(entry.baseOid!);
    if (!base) throw new PackIndexError('delta base not in the pack (thin pack)');
    resolve(base, depth + 1);
    entry.data = applyDelta(base.data!, entry.data!);
    entry.type = base.type;
    entry.oid = objectId(entry.type!, entry.data);
    byOid.set(entry.oid, entry);
  };
  for (const entry of entries) resolve(entry, 0);

  const sorted = [...entries].sort((a, b) => (a.oid! < b.oid! ? -1 : a.oid! > b.oid! ? 1 : 0));
  const large = sorted.filter((e) => e.offset >= 0x80000000);
  const size = 8 + 256 * 4 + count * (20 + 4 + 4) + large.length * 8 + 40;
  const idx = new Uint8Array(size);
  const out = new DataView(idx.buffer);
  out.setUint32(0, 0xff744f63);
  out.setUint32(4, 2);
  const fanout = new Uint32Array(256);
  for (const e of sorted) fanout[parseInt(e.oid!.slice(0, 2), 16)]++;
  let running = 0;
  for (let b = 0; b < 256; b++) {
    running += fanout[b];
    out.setUint32(8 + b * 4, running);
  }
  let p = 8 + 256 * 4;
  for (const e of sorted) {
    idx.set(Buffer.from(e.oid!, 'hex'), p);
    p += 20;
  }
  for (const e of sorted) {
    out.setUint32(p, crc32(pack.subarray(e.offset, e.end)) >>> 0);
    p += 4;
  }
  let largeIndex = 0;
  const largeAt = p + count * 4;
  for (const e of sorted) {
    if (e.offset >= 0x80000000) {
      out.setUint32(p, (0x80000000 | largeIndex) >>> 0);
      out.setBigUint64(largeAt + largeIndex * 8, BigInt(e.offset));
      largeIndex++;
    } else out.setUint32(p, e.offset);
    p += 4;
  }
  p = largeAt + large.length * 8;
  idx.set(pack.subarray(trailer), p);
  p += 20;
  idx.set(createHash('sha1').update(idx.subarray(0, p)).digest(), p);
  return { idx, oids: sorted.map((e) => e.oid!), packSha };
}

function objectId(kind: number, data: Uint8Array): string {
  return createHash('sha1').update(`${TYPE_NAMES[kind]} ${data.byteLength}\0`).update(data).digest('hex');
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}
