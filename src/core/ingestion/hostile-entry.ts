/**
 * Why a tree entry is refused at ingestion. BAD_MODE: a mode spelling git never writes (git
 * still reads it by its type bits, other readers may not). BAD_ENCODING: a name that is not
 * valid UTF-8; paths are Unicode strings from here on, so it could not reach a commit unchanged.
 */
export type HostileKind = 'DOT_GIT' | 'DOT_DOT' | 'BAD_CHARACTER' | 'BAD_MODE' | 'BAD_ENCODING' | 'CASE_COLLISION' | 'TOO_DEEP' | 'TOO_LONG';

/** Code points HFS+ ignores in names (zero-width joiners, direction marks, the BOM). */
const IGNORABLE = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/;
const IGNORABLE_ALL = new RegExp(IGNORABLE.source, 'g');

/**
 * Classify one tree entry name on its own. `.git` in any case, and the spellings Windows and
 * macOS file systems fold onto it (`.git.`, `.git ` , `git~1`), count as DOT_GIT, as git's
 * own `verify_path` does with core.protectNTFS/protectHFS.
 */
export function hostileNameKind(name: string): HostileKind | undefined {
  if (name === '.' || name === '..') return 'DOT_DOT';
  if (name === '' || /[/\\\u0000]/.test(name)) return 'BAD_CHARACTER';
  // Only a name starting with `.` or `g`/`G`, or holding a code point the file systems ignore,
  // can fold onto `.git` or `git~1` (no other character lower-cases to either): most names stop here.
  const first = name.charCodeAt(0);
  if (first !== 0x2e && first !== 0x67 && first !== 0x47 && !IGNORABLE.test(name)) return undefined;
  const folded = name.toLowerCase().replace(IGNORABLE_ALL, '');
  if (folded === '.git' || /^\.git[. ]+$/.test(folded) || folded === 'git~1') return 'DOT_GIT';
  return undefined;
}
