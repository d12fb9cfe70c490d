import type { FsLike } from '../ports.js';
import { InflateBudget, STREAM_OBJECT_BYTES, inflateExact, inflateStreaming, type InflateLimits } from './inflate-budget.js';

/** Git object types as they appear in a pack. */
export type ObjectType = 'commit' | 'tree' | 'blob' | 'tag';

/** What the scan needs to know about one object without keeping blob contents around. */
export interface CatalogEntry {
  type: ObjectType;
  size: number;
  /** Full content for commits, trees and tags; blobs keep none. */
  content?: Uint8Array;
  /** Blobs: a NUL byte in the first 8000 bytes (git's own binary heuristic). */
  binary?: boolean;
  /** Blobs: the first bytes (up to 1 KiB), enough for LFS pointers and symlink targets. */
  head?: Uint8Array;
  /** Blobs a blob:none fetch left out: size unknown (0), content fetched only when read. */
  absent?: boolean;
}

const TYPES: Record<number, ObjectType> = { 1: 'commit', 2: 'tree', 3: 'blob', 4: 'tag' };
const OFS_DELTA = 6;
const REF_DELTA = 7;
const BINARY_PROBE = 8000;
const HEAD_BYTES = 1024;

/**
 * Read every object of every pack in `gitdir` once, in pack order, resolving deltas with a
 * reference-counted base cache. isomorphic-git resolves each packed object separately (a whole
 * delta chain per read, plus a loose-object probe that throws): for tens of thousands of files
 * that is the difference between seconds and a fraction of one. Objects outside packs are not
 * listed; callers fall back to isomorphic-git for them. Inflated sizes are bounded by `limits`
 * before anything is inflated, and a large blob nothing depends on is only probed (its first
 * bytes), never inflated whole.
 */
export async function readPackCatalog(fs: FsLike, gitdir: string, limits: InflateLimits = {}): Promise<Map<string, CatalogEntry>> {
  const catalog = new Map<string, CatalogEntry>();
  const budget = new InflateBudget(limits);
  const packDir = `${gitdir}/objects/pack`;
  let names: string[];
  try {
    names = await fs.promises.readdir(packDir);
  } catch {
    return catalog;
  }
  for (const name of names.filter((n) => n.endsWith('.idx')).sort()) {
    const idx = toBytes(await fs.promises.readFile(`${packDir}/${name}`));
    const pack = toBytes(await fs.promises.readFile(`${packDir}/${name.replace(/\.idx$/, '.pack')}`));
    await catalogPack(pack, parseIndex(idx), catalog, budget);
  }
  return catalog;
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

interface RawHeader {
  offset: number;
  end: number;
  kind: number;
  /** Inflated size of the object data (for deltas: of the delta itself). */
  size: number;
  dataAt: number;
  baseOffset?: number;
  baseOid?: string;
}

async function catalogPack(pack: Uint8Array, index: PackIndex, catalog: Map<string, CatalogEntry>, budget: InflateBudget): Promise<void> {
  const order = index.offsets.map((offset, i) => ({ offset, oid: index.oids[i] })).sort((a, b) => a.offset - b.offset);
  const byOid = new Map(index.oids.map((oid, i) => [oid, index.offsets[i]]));
  const oidAt = new Map(order.map((o) => [o.offset, o.oid]));
  const packEnd = pack.byteLength - 20;
  const headers = new Map<number, RawHeader>();
  const refs = new Map<number, number>();
  for (let i = 0; i < order.length; i++) {
    const header = readHeader(pack, order[i].offset, i + 1 < order.length ? order[i + 1].offset : packEnd);
    if (header.kind === REF_DELTA && header.baseOid !== undefined) header.baseOffset = byOid.get(header.baseOid);
    headers.set(header.offset, header);
    if (header.baseOffset !== undefined) refs.set(header.baseOffset, (refs.get(header.baseOffset) ?? 0) + 1);
    if (header.kind === OFS_DELTA || header.kind === REF_DELTA) budget.object(header.size, `offset ${header.offset}`);
    else budget.admit(header.size, `offset ${header.offset}`);
  }
  const admitted = new Set<number>();
  const kept = new Map<number, { type: ObjectType; content: Uint8Array }>();
  const resolve = (offset: number): { type: ObjectType; content: Uint8Array } => {
    const cached = kept.get(offset);
    if (cached) return cached;
    const header = headers.get(offset);
    if (!header) throw new Error(`pack has no object at offset ${offset}`);
    const data = inflateExact(pack.subarray(header.dataAt, header.end), header.size).data;
    let value: { type: ObjectType; content: Uint8Array };
    if (header.kind === OFS_DELTA || header.kind === REF_DELTA) {
      if (header.baseOffset === undefined) throw new Error(`delta base outside the pack: ${header.baseOid ?? header.offset}`);
      const target = deltaTargetSize(data);
      if (admitted.has(offset)) budget.object(target, `offset ${offset}`);
      else budget.admit(target, `offset ${offset}`);
      admitted.add(offset);
      const base = resolve(header.baseOffset);
      release(header.baseOffset);
      value = { type: base.type, content: applyDelta(base.content, data) };
    } else {
      const type = TYPES[header.kind];
      if (!type) throw new Error(`unknown pack object type ${header.kind}`);
      value = { type, content: data };
    }
    if ((refs.get(offset) ?? 0) > 0) kept.set(offset, value);
    return value;
  };
  const release = (offset: number): void => {
    const left = (refs.get(offset) ?? 0) - 1;
    refs.set(offset, left);
    if (left <= 0) kept.delete(offset);
  };
  for (const { offset } of order) {
    const oid = oidAt.get(offset);
    if (!oid || catalog.has(oid)) continue;
    const header = headers.get(offset)!;
    if (TYPES[header.kind] === 'blob' && header.size > STREAM_OBJECT_BYTES && (refs.get(offset) ?? 0) <= 0) {
      catalog.set(oid, { type: 'blob', size: header.size, ...(await probeBlob(pack.subarray(header.dataAt, header.end), header.size)) });
      continue;
    }
    const { type, content } = resolve(offset);
    if (type === 'blob') {
      const probe = content.subarray(0, BINARY_PROBE);
      catalog.set(oid, { type, size: content.byteLength, binary: probe.includes(0), head: Uint8Array.prototype.slice.call(content, 0, HEAD_BYTES) });
    } else catalog.set(oid, { type, size: content.byteLength, content });
  }
}

/** The first bytes of a large blob, inflated as a stream that stops once it has enough. */
async function probeBlob(data: Uint8Array, size: number): Promise<{ binary: boolean; head: Uint8Array }> {
  const want = Math.max(BINARY_PROBE, HEAD_BYTES);
  const chunks: Buffer[] = [];
  let have = 0;
  await inflateStreaming(data, size, (chunk) => {
    chunks.push(chunk);
    have += chunk.byteLength;
    return have < want;
  });
  const first = Buffer.concat(chunks).subarray(0, want);
  return { binary: first.subarray(0, BINARY_PROBE).includes(0), head: Uint8Array.prototype.slice.call(first, 0, HEAD_BYTES) };
}

function readHeader(pack: Uint8Array, offset: number, end: number): RawHeader {
  return { ...readObjectHeader(pack, offset), end };
}

/**
 * One pack object's header at `offset`: type, declared inflated size (of the delta itself for
 * deltas), the delta base (an offset for OFS_DELTA, an object id for REF_DELTA), and where its
 * zlib stream starts. The one parser of pack object headers (the catalog and the indexer).
 */
export function readObjectHeader(pack: Uint8Array, offset: number): { offset: number; kind: number; size: number; dataAt: number; baseOffset?: number; baseOid?: string } {
  let at = offset;
  let byte = pack[at++];
  const kind = (byte >> 4) & 7;
  let size = byte & 15;
  let scale = 16;
  while (byte & 0x80) {
    byte = pack[at++];
    size += (byte & 0x7f) * scale;
    scale *= 128;
  }
  const header: { offset: number; kind: number; size: number; dataAt: number; baseOffset?: number; baseOid?: string } = { offset, kind, size, dataAt: at };
  if (kind === OFS_DELTA) {
    byte = pack[at++];
    let distance = byte & 0x7f;
    while (byte & 0x80) {
      byte = pack[at++];
      distance = (distance + 1) * 128 + (byte & 0x7f);
    }
    header.baseOffset = offset - distance;
  } else if (kind === REF_DELTA) {
    header.baseOid = Buffer.from(pack.buffer, pack.byteOffset + at, 20).toString('hex');
    at += 20;
  }
  header.dataAt = at;
  return header;
}

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

/** Apply a git delta (copy/insert instructions) to `base`. */
export function applyDelta(base: Uint8Array, delta: Uint8Array): Uint8Array {
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
  const out = new Uint8Array(varint());
  let written = 0;
  while (at < delta.byteLength) {
    const op = delta[at++];
    if (op & 0x80) {
      let offset = 0;
      let size = 0;
      if (op & 0x01) offset |= delta[at++];
      if (op & 0x02) offset |= delta[at++] << 8;
      if (op & 0x04) offset |= delta[at++] << 16;
      if (op & 0x08) offset += delta[at++] * 0x1000000;
      if (op & 0x10) size |= delta[at++];
      if (op & 0x20) size |= delta[at++] << 8;
      if (op & 0x40) size |= delta[at++] << 16;
      if (size === 0) size = 0x10000;
      out.set(base.subarray(offset, offset + size), written);
      written += size;
    } else if (op > 0) {
      out.set(delta.subarray(at, at + op), written);
      at += op;
      written += op;
    } else throw new Error('invalid delta opcode 0');
  }
  if (written !== out.byteLength) throw new Error('delta result size mismatch');
  return out;
}

function toBytes(data: Uint8Array | string): Uint8Array {
  return typeof data === 'string' ? new TextEncoder().encode(data) : data;
}
