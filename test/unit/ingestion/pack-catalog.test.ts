import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hexToName, PackCatalog } from '../../../src/core/ingestion/pack-catalog.js';

const oidOf = (i: number) => createHash('sha1').update(`object ${i}`).digest('hex');

describe('PackCatalog', () => {
  it('finds each of many objects by id, hex or bytes, through its table growing many times over', () => {
    const catalog = new PackCatalog();
    const n = 20_000;
    for (let i = 0; i < n; i++) {
      if (i % 3 === 0) catalog.add(oidOf(i), 'tree', Buffer.from(`tree ${i}`), 0, 12 + i);
      else catalog.addBlob(Buffer.from(oidOf(i), 'hex'), Buffer.from(i % 3 === 1 ? `text ${i}` : `bin\0${i}`), 0, 12 + i);
    }
    expect(catalog.size).toBe(n);
    for (let i = 0; i < n; i++) {
      const entry = catalog.get(oidOf(i));
      if (i % 3 === 0) expect(entry, `object ${i}`).toEqual({ type: 'tree', size: `tree ${i}`.length, content: Buffer.from(`tree ${i}`) });
      else expect(entry, `object ${i}`).toEqual({ type: 'blob', size: (i % 3 === 1 ? `text ${i}` : `bin\0${i}`).length, binary: i % 3 === 2 });
    }
    expect(catalog.has(oidOf(n))).toBe(false);
    expect(catalog.get(oidOf(n + 1))).toBeUndefined();
  });

  it('keeps the first record of an id, the content of commits and trees, and the head of a blob that looks like an LFS pointer', () => {
    const catalog = new PackCatalog();
    catalog.add(oidOf(1), 'commit', Buffer.from('first'), 0, 12);
    catalog.add(oidOf(1), 'commit', Buffer.from('second'), 1, 99);
    expect(catalog.size).toBe(1);
    expect(Buffer.from(catalog.read(oidOf(1))!.content).toString()).toBe('first');
    const pointer = Buffer.from('version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 12\n');
    catalog.addBlob(oidOf(2), pointer, 0, 40);
    expect(Buffer.from(catalog.get(oidOf(2))!.head!).equals(pointer)).toBe(true);
    const name = new Uint8Array(20);
    expect(hexToName(oidOf(1), name)).toBe(true);
    expect(Buffer.from(catalog.contentByName(name)!).toString()).toBe('first');
  });

  it('refuses to record an id that is not 40 hex digits, and finds nothing under one', () => {
    const catalog = new PackCatalog();
    expect(() => catalog.add('xyz', 'tree', Buffer.alloc(0), 0, 12)).toThrow(/not an object id/);
    expect(() => catalog.addBlob('g'.repeat(40), Buffer.alloc(0), 0, 12)).toThrow(/not an object id/);
    expect(() => catalog.addBlob(`${'a'.repeat(39)}\u00e1`, Buffer.alloc(0), 0, 12)).toThrow(/not an object id/);
    expect(catalog.get('not an id')).toBeUndefined();
    expect(catalog.size).toBe(0);
  });
});
