/** The five modes git writes; anything else in a tree is mapped onto one of them (see `canonicalMode`). */
export type CanonicalMode = '040000' | '100644' | '100755' | '120000' | '160000';

/** One entry of a raw tree object. */
export interface RawTreeEntry {
  /** The mode as git reads it (`canonicalMode`), or undefined when it is not octal at all. */
  mode: CanonicalMode | undefined;
  /** The mode exactly as stored (e.g. `40755`, `0100644`). */
  rawMode: string;
  /** The name decoded as UTF-8; `nameValid` says whether that decoding was exact. */
  name: string;
  /** False when the name's bytes are not valid UTF-8 (the decoded name then holds U+FFFD). */
  nameValid: boolean;
  oid: string;
}

const decoder = new TextDecoder('utf-8');
const strict = new TextDecoder('utf-8', { fatal: true });

/**
 * git's `canon_mode`: the file-type bits decide, whatever else the stored mode says. A tree
 * entry's type is read that way by every git command, so the scan must read it the same way:
 * `40755` is a directory, `120777` a symlink, `160644` (or any unknown type) a gitlink, and a
 * regular file is executable when its owner-execute bit is set.
 */
export function canonicalMode(raw: string): CanonicalMode | undefined {
  if (!/^[0-7]{1,7}$/.test(raw)) return undefined;
  const mode = parseInt(raw, 8);
  switch (mode & 0o170000) {
    case 0o100000:
      return mode & 0o100 ? '100755' : '100644';
    case 0o120000:
      return '120000';
    case 0o040000:
      return '040000';
    default:
      return '160000';
  }
}

/** Spellings git itself has written: the canonical ones, `40000` for trees, and the historic `100664`. */
export function isStandardModeSpelling(raw: string): boolean {
  return STANDARD_SPELLINGS.has(raw);
}

const STANDARD_SPELLINGS: ReadonlySet<string> = new Set(['40000', '100644', '100755', '100664', '120000', '160000']);

/**
 * Parse a tree object's content (`<mode> <name>\0<20-byte sha>`...) without validating names,
 * so hostile entries (`.git`, `..`, names with `/` or `\`, odd modes) reach the scanner instead
 * of making a library throw or silently normalise them.
 */
export function parseTreeEntries(content: Uint8Array): RawTreeEntry[] {
  const entries: RawTreeEntry[] = [];
  let at = 0;
  while (at < content.byteLength) {
    const space = content.indexOf(0x20, at);
    const nul = content.indexOf(0, space + 1);
    if (space < 0 || nul < 0 || nul + 21 > content.byteLength) throw new Error('malformed tree object');
    const rawMode = decoder.decode(content.subarray(at, space));
    const nameBytes = content.subarray(space + 1, nul);
    let name: string;
    let nameValid = true;
    try {
      name = strict.decode(nameBytes);
    } catch {
      name = decoder.decode(nameBytes);
      nameValid = false;
    }
    const oid = Buffer.from(content.buffer, content.byteOffset + nul + 1, 20).toString('hex');
    entries.push({ mode: canonicalMode(rawMode), rawMode, name, nameValid, oid });
    at = nul + 21;
  }
  return entries;
}
