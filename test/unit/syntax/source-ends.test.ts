import { describe, expect, it } from 'vitest';
import { identifierEnd, receiverEnd } from '../../../src/core/syntax/source-ends.js';

describe('identifierEnd', () => {
  it('ends an ASCII identifier at the first character that cannot continue it', () => {
    expect(identifierEnd('a.trim()', 2, true)).toBe(6);
    expect(identifierEnd('x = run_2(y)', 4, false)).toBe(9);
    expect(identifierEnd('go', 0, false)).toBe(2);
  });

  it('takes `$` only where the language allows it', () => {
    expect(identifierEnd('$jq.ajax', 0, true)).toBe(3);
    expect(identifierEnd('a$b', 0, true)).toBe(3);
    expect(identifierEnd('a$b', 0, false)).toBe(1);
    expect(identifierEnd('$jq', 0, false)).toBe(-1);
  });

  it('leaves to the engine what the source alone does not settle', () => {
    // Non-ASCII letters and `\u` escapes may continue an identifier; digits, `#` and quotes do not start one.
    expect(identifierEnd('größe()', 0, true)).toBe(-1);
    expect(identifierEnd('a\\u0062()', 0, true)).toBe(-1);
    expect(identifierEnd('1.5', 0, true)).toBe(-1);
    expect(identifierEnd('#secret()', 0, true)).toBe(-1);
    expect(identifierEnd("'quoted'", 0, true)).toBe(-1);
  });
});

describe('receiverEnd', () => {
  const end = (source: string, name: string) => receiverEnd(source, 0, source.lastIndexOf(name));

  it('ends the receiver at the dot right before the name', () => {
    expect(end('items.map(f)', 'map')).toBe(5);
    expect(end('a.b.c()', 'c')).toBe(3);
    expect(end('el!.focus()', 'focus')).toBe(3);
    expect(end('1..toString()', 'toString')).toBe(2);
    expect(end('this.#secret()', '#secret')).toBe(4);
  });

  it('leaves to the engine a dot after a space, a comment, `?` or a regular expression, and a name after a space', () => {
    expect(end('items\n  .map(f)', 'map')).toBe(-1);
    expect(end('items /* why */.at(0)', 'at')).toBe(-1);
    expect(end('items?.map(f)', 'map')).toBe(-1);
    expect(end('/re/.test(s)', 'test')).toBe(-1);
    expect(end('a. b()', 'b')).toBe(-1);
    expect(end('a\u00a0.b()', 'b')).toBe(-1);
    expect(end('List.<String>of()', 'of')).toBe(-1);
  });

  it('never gives an empty receiver', () => {
    expect(receiverEnd('.b', 0, 1)).toBe(-1);
  });
});
