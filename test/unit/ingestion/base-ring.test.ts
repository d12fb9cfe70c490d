import { describe, expect, it } from 'vitest';
import { BaseRing } from '../../../src/core/ingestion/base-ring.js';

const bytes = (length: number, fill: number) => Buffer.alloc(length, fill);

describe('BaseRing', () => {
  it('keeps copies, oldest dropped first when the ring comes round to them, never more memory than its bound', () => {
    const ring = new BaseRing(1000);
    const source = bytes(200, 1);
    const kept = ring.set(1, source);
    source.fill(9);
    // A copy: the caller's buffer is free again.
    expect([...new Set(kept)]).toEqual([1]);
    for (let key = 2; key <= 5; key++) ring.set(key, bytes(200, key));
    expect([1, 2, 3, 4, 5].map((key) => ring.get(key)?.[0])).toEqual([1, 2, 3, 4, 5]);
    // 1000 bytes used: the next content goes at the start, over 1 (and only 1).
    ring.set(6, bytes(150, 6));
    expect([1, 2, 3, 4, 5, 6].map((key) => ring.get(key)?.[0])).toEqual([undefined, 2, 3, 4, 5, 6]);
    // Over 2 as well, which it reaches.
    ring.set(7, bytes(100, 7));
    expect([2, 3, 4, 5, 6, 7].map((key) => ring.get(key)?.[0])).toEqual([undefined, 3, 4, 5, 6, 7]);
    for (const key of [3, 4, 5, 6, 7]) expect([...new Set(ring.get(key))], String(key)).toEqual([key]);
  });

  it('does not keep a content over a quarter of its bound, and hands it back as it is', () => {
    const ring = new BaseRing(1000);
    const large = bytes(300, 3);
    expect(ring.set(1, large)).toBe(large);
    expect(ring.get(1)).toBeUndefined();
  });

  it('holds 64 KiB until it is widened, then grows as it fills, up to its bound, keeping what it holds', () => {
    const ring = new BaseRing(1 << 20);
    for (let key = 0; key < 100; key++) ring.set(key, bytes(10_000, key % 250));
    // Six 10 kB contents fit in 64 KiB: the rest were dropped as the ring came round.
    expect(Array.from({ length: 100 }, (_, key) => ring.get(key)).filter(Boolean)).toHaveLength(6);
    for (let widen = 0; widen < 10; widen++) ring.widen();
    for (let key = 0; key < 100; key++) ring.set(key, bytes(10_000, key % 250));
    for (let key = 0; key < 100; key++) expect(ring.get(key)?.[9_999], String(key)).toBe(key % 250);
  });

  it('never hands back wrong bytes, whatever the order of contents, sizes and widenings', () => {
    // A reference model: what each key was set to. The ring may forget a key, never corrupt it.
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const ring = new BaseRing(1 << 20);
    const model = new Map<number, number>();
    for (let step = 0; step < 5000; step++) {
      if (random(50) === 0) ring.widen();
      const key = step;
      const fill = random(256);
      const content = bytes(1 + random(random(10) === 0 ? 200_000 : 20_000), fill);
      const kept = ring.set(key, content);
      expect(kept.byteLength).toBe(content.byteLength);
      model.set(key, fill);
      if (step % 97 === 0) {
        for (const [known, value] of model) {
          const got = ring.get(known);
          if (got)
            expect(
              got.every((b) => b === value),
              `key ${known} at step ${step}`,
            ).toBe(true);
        }
      }
    }
  });
});
