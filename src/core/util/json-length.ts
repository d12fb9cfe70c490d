/**
 * The UTF-8 byte length of `JSON.stringify(value)` for plain JSON data (strings, numbers,
 * booleans, null, arrays and plain objects), counted without building the text: a model
 * request's size is checked on every call, and a 40 KB string per check is garbage the
 * collector must then sweep. Key order does not change the length, so this is also the
 * length of the canonical (key-sorted) form.
 */
export function jsonByteLength(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return stringLength(value);
    case 'number':
      return Number.isFinite(value) ? String(value).length : 4;
    case 'boolean':
      return value ? 4 : 5;
    case 'object':
      if (value === null) return 4;
      return Array.isArray(value) ? arrayLength(value) : objectLength(value as Record<string, unknown>);
    default:
      return 0;
  }
}

/** Whether JSON.stringify leaves a property out of an object (`undefined`, functions, symbols). */
const omitted = (v: unknown) => v === undefined || typeof v === 'function' || typeof v === 'symbol';

function arrayLength(items: readonly unknown[]): number {
  let n = 2 + Math.max(0, items.length - 1);
  for (const item of items) n += omitted(item) ? 4 : jsonByteLength(item);
  return n;
}

function objectLength(object: Record<string, unknown>): number {
  let n = 2;
  let members = 0;
  for (const key of Object.keys(object)) {
    const v = object[key];
    if (omitted(v)) continue;
    n += stringLength(key) + 1 + jsonByteLength(v);
    members += 1;
  }
  return n + Math.max(0, members - 1);
}

/** A string's quoted, escaped form in UTF-8 bytes (lone surrogates are escaped as \uXXXX, as JSON.stringify does). */
function stringLength(s: string): number {
  let n = 2;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += c < 0x20 ? (c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 2 : 6) : c === 34 || c === 92 ? 2 : 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      const next = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
      if (next >= 0xdc00 && next <= 0xdfff) {
        n += 4;
        i += 1;
      } else n += 6;
    } else n += c >= 0xdc00 && c <= 0xdfff ? 6 : 3;
  }
  return n;
}
