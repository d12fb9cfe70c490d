import { describe, expect, it } from 'vitest';
import { shortenAtWord } from '../../../src/core/util/shorten.js';

describe('shortenAtWord', () => {
  it.each([
    ['fits as it is', 20, 'fits as it is'],
    ['  spaces   fold  ', 20, 'spaces fold'],
    ['migrate imports from org.example.legacy.persistence to org.example.modern.persistence', 40, 'migrate imports from…'],
    ['cut after a comma, not before it', 20, 'cut after a comma…'],
    ['averyveryverylongsingleword', 10, 'averyvery…'],
    ['exactly ten', 11, 'exactly ten'],
  ])('%j at %i -> %j', (text, max, expected) => {
    const out = shortenAtWord(text, max);
    expect(out).toBe(expected);
    expect(out.length).toBeLessThanOrEqual(max);
  });
});
