import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../src/core/util/digest.js';
import { jsonByteLength } from '../../../src/core/util/json-length.js';

const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');

/** A deterministic string with every class of character JSON escapes or encodes apart. */
function mixed(seed: number, length: number): string {
  const pool = ['a', ' ', '"', '\\', '\n', '\t', '\u0001', '\u001f', '\u007f', 'é', '€', '\u2028', '😀', '\ud800', '\udfff', '<', '/'];
  let x = seed;
  let out = '';
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out += pool[x % pool.length];
  }
  return out;
}

describe('jsonByteLength', () => {
  it('equals the UTF-8 length of JSON.stringify for strings of every escape class', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const s = mixed(seed, seed % 40);
      expect(jsonByteLength(s), JSON.stringify(s)).toBe(utf8(JSON.stringify(s)));
    }
  });

  it('counts a surrogate pair as four bytes and a lone surrogate as its escape', () => {
    expect(jsonByteLength('😀')).toBe(6);
    expect(jsonByteLength('\ud800x')).toBe(utf8(JSON.stringify('\ud800x')));
    expect(jsonByteLength('x\udc00')).toBe(utf8(JSON.stringify('x\udc00')));
  });

  it('equals the canonical JSON length of a model request, whatever the key order', () => {
    const request = {
      tools: [{ type: 'function', function: { name: 'read_file', description: 'Read "a" file', parameters: { type: 'object', required: ['path'] } } }],
      messages: [
        { role: 'system', content: mixed(7, 300) },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } }] },
        { role: 'tool', content: 'line 1\nline 2\t"x"', tool_call_id: 'c1', skipped: undefined },
      ],
      numbers: [0, -1.5, 1e21, 3, Number.NaN, true, false, null, undefined],
    };
    expect(jsonByteLength(request)).toBe(utf8(canonicalJson(request)));
    expect(jsonByteLength(request)).toBe(utf8(JSON.stringify(request)));
  });

  it('counts empty containers and omitted members as JSON.stringify writes them', () => {
    for (const value of [{}, [], [undefined], { a: undefined, b: 1 }, { a: () => 1 }, [[], {}], '']) {
      expect(jsonByteLength(value)).toBe(utf8(JSON.stringify(value)));
    }
  });
});
