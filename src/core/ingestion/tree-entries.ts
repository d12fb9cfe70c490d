/** One entry of a raw tree object, exactly as stored. */
export interface RawTreeEntry {
  mode: string;
  /** The name decoded as UTF-8 (invalid sequences become U+FFFD). */
  name: string;
  oid: string;
}

const decoder = new TextDecoder('utf-8');

/**
 * Parse a tree object's content (`<mode> <name>\0<20-byte sha>`...) without validating names,
 * so hostile entries (`.git`, `..`, names with `/` or `\`) reach the scanner instead of making
 * a library throw or silently normalise them.
 */
export function parseTreeEntries(content: Uint8Array): RawTreeEntry[] {
  const entries: RawTreeEntry[] = [];
  let at = 0;
  while (at < content.byteLength) {
    const space = content.indexOf(0x20, at);
    const nul = content.indexOf(0, space + 1);
    if (space < 0 || nul < 0 || nul + 21 > content.byteLength) throw new Error('malformed tree object');
    const mode = decoder.decode(content.subarray(at, space));
    const name = decoder.decode(content.subarray(space + 1, nul));
    const oid = Buffer.from(content.buffer, content.byteOffset + nul + 1, 20).toString('hex');
    entries.push({ mode: mode.length === 5 ? `0${mode}` : mode, name, oid });
    at = nul + 21;
  }
  return entries;
}
