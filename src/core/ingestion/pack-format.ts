// Git's pack format: object type codes and the header that precedes each object's zlib stream.

/** Git object types as they appear in a pack. */
export type ObjectType = 'commit' | 'tree' | 'blob' | 'tag';

/** Object types by their code in a pack's object headers (and deltas, 6 and 7). */
export const PACK_OBJECT_TYPES: Record<number, ObjectType> = { 1: 'commit', 2: 'tree', 3: 'blob', 4: 'tag' };
export const OFS_DELTA = 6;
export const REF_DELTA = 7;
/**
 * One pack object's header at `offset`: type, declared inflated size (of the delta itself for
 * deltas), the delta base (an offset for OFS_DELTA, an object id for REF_DELTA), and where its
 * zlib stream starts. The one parser of pack object headers (the catalog and the indexer).
 */
export function readObjectHeader(
  pack: Uint8Array,
  offset: number,
): { offset: number; kind: number; size: number; dataAt: number; baseOffset?: number; baseOid?: string } {
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
