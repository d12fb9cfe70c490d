import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { InflateBudget, InflateSizeError, STREAM_OBJECT_BYTES, inflateExact, inflateStreaming, type InflateLimits } from './inflate-budget.js';
import { applyDelta, deltaTargetSize, readObjectHeader } from './pack-catalog.js';

const TYPE_NAMES: Record<number, string> = { 1: 'commit', 2: 'tree', 3: 'blob', 4: 'tag' };
const OFS_DELTA = 6;
const REF_DELTA = 7;

export class PackIndexError extends Error {}

interface Entry {
  offset: number;
  /** Where the zlib stream starts. */
  dataAt: number;
  end: number;
  kind: number;
  /** Inflated size declared by the object header (for deltas: of the delta itself). */
  size: number;
  baseOffset?: number;
  baseOid?: string;
  oid?: string;
  type?: number;
  /** A delta whose result size is already counted in the budget. */
  admitted?: boolean;
}

/**
 * Index a version-2 pack with native zlib and SHA-1 (what `git index-pack` does) and write the
 * version-2 `.idx`. Memory stays near the largest delta chain, not the repository: the first
 * pass hashes whole objects and keeps only offsets; deltas are then resolved with their bases
 * inflated again on demand and kept only while a later delta still needs them. A thin pack (a
 * delta whose base is not in the pack) is refused. Inflated sizes are bounded by `limits`
 * from each object's declared size before it is inflated; a large object is hashed as a
 * stream, so a pack of compressed zeros costs time proportional to the limit, not memory.
 */
export async function indexPack(pack: Uint8Array, limits: InflateLimits = {}): Promise<{ idx: Uint8Array; oids: string[]; packSha: string }> {
  const budget = new InflateBudget(limits);
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
    const header = readObjectHeader(pack, start);
    const { kind, size } = header;
    at = header.dataAt;
    const entry: Entry = { offset: start, dataAt: 0, end: 0, kind, size, baseOffset: header.baseOffset, baseOid: header.baseOid };
    if (kind !== OFS_DELTA && kind !== REF_DELTA && !TYPE_NAMES[kind]) throw new PackIndexError(`unknown object type ${kind} at ${start}`);
    if (at >= trailer) throw new PackIndexError('truncated pack');
    entry.dataAt = at;
    const isDelta = kind === OFS_DELTA || kind === REF_DELTA;
    // Deltas count once resolved (their target size); their own instructions only per object.
    if (isDelta) budget.object(size, `offset ${start}`);
    else budget.admit(size, `offset ${start}`);
    let consumed: number;
    if (!isDelta && size > STREAM_OBJECT_BYTES) {
      const hash = createHash('sha1').update(`${TYPE_NAMES[kind]} ${size}\0`);
      consumed = (await guard(inflateStreaming(pack.subarray(at, trailer), size, (chunk) => void hash.update(chunk)))).consumed!;
      entry.type = kind;
      entry.oid = hash.digest('hex');
    } else {
      const inflated = inflateAt(pack, at, trailer, size);
      if (!isDelta) {
        entry.type = kind;
        entry.oid = objectId(kind, inflated.data);
      }
      consumed = inflated.consumed;
    }
    at += consumed;
    entry.end = at;
    entries.push(entry);
    byOffset.set(start, entry);
  }
  if (at !== trailer) throw new PackIndexError('pack has trailing data');

  const byOid = new Map<string, Entry>();
  for (const entry of entries) if (entry.oid) byOid.set(entry.oid, entry);
  // How many deltas still need each base; a base's bytes are kept only while that is above zero.
  const pending = new Map<Entry, number>();
  const baseOf = (entry: Entry): Entry => {
    const base = entry.kind === OFS_DELTA ? byOffset.get(entry.baseOffset!) : byOid.get(entry.baseOid!);
    if (!base) throw new PackIndexError('delta base not in the pack (thin pack)');
    return base;
  };
  for (const entry of entries) if (entry.kind === OFS_DELTA) pending.set(byOffset.get(entry.baseOffset!)!, (pending.get(byOffset.get(entry.baseOffset!)!) ?? 0) + 1);
  const hasRefDeltas = entries.some((e) => e.kind === REF_DELTA);
  const cache = new Map<Entry, Uint8Array>();
  const contentOf = (entry: Entry, depth: number): Uint8Array => {
    const cached = cache.get(entry);
    if (cached) return cached;
    if (depth > 10_000) throw new PackIndexError('delta chain too deep');
    const raw = inflateAt(pack, entry.dataAt, trailer, entry.size).data;
    let data: Uint8Array = raw;
    if (entry.kind === OFS_DELTA || entry.kind === REF_DELTA) {
      const base = baseOf(entry);
      // A delta's result is counted once, from the size its header declares, before it is built.
      const target = deltaTargetSize(raw);
      if (entry.admitted) budget.object(target, `offset ${entry.offset}`);
      else budget.admit(target, `offset ${entry.offset}`);
      entry.admitted = true;
      data = applyDelta(contentOf(base, depth + 1), raw);
      entry.type = base.type;
      release(base);
    }
    if (hasRefDeltas || (pending.get(entry) ?? 0) > 0) cache.set(entry, data);
    return data;
  };
  const release = (base: Entry): void => {
    const left = (pending.get(base) ?? 0) - 1;
    pending.set(base, left);
    if (left <= 0 && !hasRefDeltas) cache.delete(base);
  };
  for (const entry of entries) {
    if (entry.oid) continue;
    const data = contentOf(entry, 0);
    if (entry.type === undefined) throw new PackIndexError('delta without a resolvable type');
    entry.oid = objectId(entry.type, data);
    byOid.set(entry.oid, entry);
  }

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

/** Inflate the zlib stream at `at` to its declared size; `consumed` is how many compressed bytes it took. */
function inflateAt(pack: Uint8Array, at: number, end: number, size: number): { data: Uint8Array; consumed: number } {
  try {
    return inflateExact(pack.subarray(at, end), size);
  } catch (error) {
    throw error instanceof InflateSizeError ? new PackIndexError(`object at ${at}: ${error.message}`) : error;
  }
}

async function guard<T>(promise: Promise<T>): Promise<T> {
  try {
    return await promise;
  } catch (error) {
    throw error instanceof InflateSizeError ? new PackIndexError(error.message) : error;
  }
}

function objectId(kind: number, data: Uint8Array): string {
  return createHash('sha1').update(`${TYPE_NAMES[kind]} ${data.byteLength}\0`).update(data).digest('hex');
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}
