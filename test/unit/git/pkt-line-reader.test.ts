import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { FetchPackError, PktLineReader } from '../../../src/app/git/fetch-pack-v2.js';

const pkt = (payload: Buffer | string): Buffer => {
  const body = typeof payload === 'string' ? Buffer.from(payload) : payload;
  return Buffer.concat([Buffer.from((body.length + 4).toString(16).padStart(4, '0')), body]);
};
const band = (n: number, data: Buffer) => pkt(Buffer.concat([Buffer.from([n]), data]));

/** A protocol v2 fetch answer: shallow-info, a delimiter, then a packfile in side-band pieces with progress between. */
function response(pack: Buffer): Buffer {
  const parts = [pkt('shallow-info\n'), pkt('shallow 0123456789012345678901234567890123456789\n'), Buffer.from('0001'), pkt('packfile\n')];
  for (let at = 0, i = 0; at < pack.length; i++) {
    const size = [1, 65515, 7, 300, 20000][i % 5];
    parts.push(band(1, pack.subarray(at, at + size)));
    if (i % 3 === 0) parts.push(band(2, Buffer.from(`progress ${i}\n`)));
    at += size;
  }
  parts.push(Buffer.from('0000'));
  return Buffer.concat(parts);
}

function read(raw: Buffer, piece: number): { pack: Buffer; payloads: string[]; pieces: number } {
  let section = '';
  const data: Buffer[] = [];
  const payloads: string[] = [];
  const reader = new PktLineReader(
    () => section === 'packfile',
    (p) => void data.push(Buffer.from(p)),
    (payload) => {
      const text = payload.toString('latin1');
      payloads.push(text);
      if (text === 'packfile\n') section = 'packfile';
    },
  );
  for (let at = 0; at < raw.length; at += piece) reader.push(raw.subarray(at, at + piece));
  reader.end();
  return { pack: Buffer.concat(data), payloads, pieces: data.length };
}

describe('PktLineReader', () => {
  const pack = randomBytes(150_000);
  const raw = response(pack);

  it('hands packfile data over in the pieces that arrive and every other payload whole, however the bytes are cut', () => {
    for (const piece of [1, 2, 3, 5, 7, 4096, 65_536, raw.length]) {
      const { pack: got, payloads } = read(raw, piece);
      expect(got.equals(pack), `pieces of ${piece}`).toBe(true);
      expect(payloads.slice(0, 3), `pieces of ${piece}`).toEqual(['shallow-info\n', 'shallow 0123456789012345678901234567890123456789\n', 'packfile\n']);
      expect(
        payloads.slice(3).every((p) => /^\x02progress \d+\n$/.test(p)),
        `pieces of ${piece}`,
      ).toBe(true);
    }
    // Whole chunks: each side-band payload arrives as one piece, not split or joined.
    let bandOne = 0;
    for (let at = 0, i = 0; at < pack.length; i++, bandOne++) at += [1, 65515, 7, 300, 20000][i % 5];
    expect(read(raw, raw.length).pieces).toBe(bandOne);
  });

  it('refuses a response cut inside a pkt-line and a length that is not hex', () => {
    expect(() => read(raw.subarray(0, raw.length - 10), 4096)).toThrow(FetchPackError);
    expect(() => read(Buffer.concat([pkt('packfile\n'), Buffer.from('00zz')]), 3)).toThrow(/malformed pkt-line/);
  });
});
