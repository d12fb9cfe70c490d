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
  const bytes = Buffer.from(content.buffer, content.byteOffset, content.byteLength);
  let at = 0;
  while (at < bytes.byteLength) {
    const space = bytes.indexOf(0x20, at);
    const nul = bytes.indexOf(0, space + 1);
    if (space < 0 || nul < 0 || nul + 21 > bytes.byteLength) throw new Error('malformed tree object');
    // Modes and most names are ASCII, where latin1 reads each byte as the same character
    // (and costs far less than a UTF-8 decoder call per entry); anything else is decoded.
    const rawMode = isAscii(bytes, at, space) ? bytes.toString('latin1', at, space) : decoder.decode(bytes.subarray(at, space));
    let name: string;
    let nameValid = true;
    if (isAscii(bytes, space + 1, nul)) name = bytes.toString('latin1', space + 1, nul);
    else {
      const nameBytes = bytes.subarray(space + 1, nul);
      try {
        name = strict.decode(nameBytes);
      } catch {
        name = decoder.decode(nameBytes);
        nameValid = false;
      }
    }
    const oid = bytes.toString('hex', nul + 1, nul + 21);
    entries.push({ mode: modeOf(rawMode), rawMode, name, nameValid, oid });
    at = nul + 21;
  }
  return entries;
}

function isAscii(bytes: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (bytes[i] > 0x7f) return false;
  return true;
}

/** `canonicalMode` of the few spellings a repository uses, each parsed once. */
const modes = new Map<string, CanonicalMode | undefined>();
function modeOf(raw: string): CanonicalMode | undefined {
  if (modes.has(raw)) return modes.get(raw);
  const mode = canonicalMode(raw);
  if (modes.size < 64) modes.set(raw, mode);
  return mode;
}
