import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseIndex, writePackIndex } from '../../../src/core/ingestion/pack-idx.js';

/** Object names that share their first four bytes in runs, plus ordinary ones, in no order. */
function names(): string[] {
  const out: string[] = [];
  for (let i = 0; i < 300; i++) out.push(createHash('sha1').update(`object ${i}`).digest('hex'));
  for (let run = 0; run < 5; run++) {
    const prefix = out[run * 7].slice(0, 8);
    for (let k = 0; k < 6; k++) out.push(prefix + createHash('sha1').update(`tie ${run} ${k}`).digest('hex').slice(8));
  }
  out.push('00'.repeat(20), 'ff'.repeat(20), `abcdef01${'0'.repeat(32)}`, `abcdef01${'0'.repeat(31)}1`);
  return out.reverse();
}

describe('writePackIndex', () => {
  const oids = names();
  const objects = oids.map((oid, i) => ({ oid, offset: i === 3 ? 0x1_2345_6789 : 12 + i * 97, crc: (i * 2654435761) >>> 0 }));
  const trailer = createHash('sha1').update('pack').digest();
  const { idx } = writePackIndex(
    { count: oids.length, names: Buffer.from(oids.join(''), 'hex'), crc: objects.map((o) => o.crc), offset: objects.map((o) => o.offset) },
    trailer,
  );
  const sorted = parseIndex(idx).oids;

  it('lists names in byte order, ties on the first four bytes included', () => {
    const expected = [...oids].sort();
    expect(sorted).toEqual(expected);
    const namesAt = 8 + 256 * 4;
    const written = Array.from({ length: oids.length }, (_, i) => idx.toString('hex', namesAt + i * 20, namesAt + i * 20 + 20));
    expect(written).toEqual(expected);
  });

  it('writes a fan-out that counts names by first byte, and each name keeps its CRC and offset (64-bit ones too)', () => {
    for (let b = 0; b < 256; b++) expect(idx.readUInt32BE(8 + b * 4), `fan-out ${b}`).toBe(oids.filter((o) => parseInt(o.slice(0, 2), 16) <= b).length);
    const parsed = parseIndex(idx);
    const crcsAt = 8 + 256 * 4 + oids.length * 20;
    for (const [i, oid] of parsed.oids.entries()) {
      const object = objects.find((o) => o.oid === oid)!;
      expect(parsed.offsets[i]).toBe(object.offset);
      expect(idx.readUInt32BE(crcsAt + i * 4)).toBe(object.crc);
    }
  });

  it('ends with the pack checksum and its own', () => {
    const end = idx.byteLength;
    expect(idx.subarray(end - 40, end - 20).equals(trailer)).toBe(true);
    expect(
      idx.subarray(end - 20).equals(
        createHash('sha1')
          .update(idx.subarray(0, end - 20))
          .digest(),
      ),
    ).toBe(true);
  });
});
