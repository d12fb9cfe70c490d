/**
 * Where a captured node ends, read from the source instead of asked of the engine (one call into
 * wasm per node, the largest share of the work done in JavaScript for a file with many calls).
 * Only for trees without errors: error recovery can leave skipped text inside a node. Each
 * function answers -1 when the source alone does not settle it; the caller then asks the engine.
 */

const isLetter = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90);

/**
 * The end of the identifier token at `start`: the run of ASCII letters, digits, `_` (and `$` where
 * the language allows it), unless a non-ASCII character or a `\` escape could continue it.
 */
export function identifierEnd(source: string, start: number, dollar: boolean): number {
  const first = source.charCodeAt(start);
  if (!(isLetter(first) || first === 95 || (dollar && first === 36))) return -1;
  let i = start + 1;
  for (; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (isLetter(c) || (c >= 48 && c <= 57) || c === 95 || (dollar && c === 36)) continue;
    if (c >= 128 || c === 92) return -1;
    break;
  }
  return i;
}

/**
 * The end of a call's receiver, the object of the member access whose name starts at `nameStart`:
 * just before the `.` that directly precedes the name, when the character before that dot is the
 * receiver's own (not a space, a comment's end, nor the `?` of `?.`).
 */
export function receiverEnd(source: string, receiverStart: number, nameStart: number): number {
  const dot = nameStart - 1;
  if (dot <= receiverStart || source.charCodeAt(dot) !== 46) return -1;
  const last = source.charCodeAt(dot - 1);
  if (last <= 32 || last >= 128 || last === 47 || last === 63) return -1;
  return dot;
}
