/**
 * The words of one sentence, and what a word can be (a package name, a version, a range). Every
 * test here is a single pass over a word of bounded length: no pattern backtracks.
 */

/** One word of a sentence; a code span (`new Integer(x)`) is one word however many spaces it holds. */
export interface Word {
  /** The word without code marks, surrounding quotes and trailing punctuation. */
  text: string;
  /** It was written in backticks. */
  code: boolean;
  /** It was written in matching quotes (`'blacklist'`, `“main”`): a literal, as a code span is. */
  quoted?: boolean;
  /** A comma, semicolon or colon followed it: a new clause may start after it. */
  pause?: boolean;
}

/** Longer words are not names or versions; they are read as plain words. */
const MAX_WORD = 200;
/** A sentence holds at most this many words; the rest is not read. */
const MAX_WORDS = 80;

const LEADING = `("'“‘[*_`;
const TRAILING = `)"'”’]*_,.;:!?`;

/** The word without the quotes, brackets and punctuation around it (a scan, not a pattern). */
function trimWord(raw: string): string {
  let start = 0;
  let end = raw.length;
  while (start < end && LEADING.includes(raw[start])) start++;
  while (end > start && TRAILING.includes(raw[end - 1])) end--;
  return raw.slice(start, end);
}

const QUOTE_PAIRS: Record<string, string> = { "'": "'", '"': '"', '“': '”', '‘': '’' };

/** A single word between matching quotes, whatever punctuation follows the closing one. */
function isQuoted(raw: string): boolean {
  let end = raw.length;
  while (end > 0 && ',.;:!?)'.includes(raw[end - 1])) end--;
  const close = QUOTE_PAIRS[raw[0]];
  return close !== undefined && end > 2 && raw[end - 1] === close;
}

/** Split a sentence into words, keeping each code span whole. */
export function words(sentence: string): Word[] {
  const out: Word[] = [];
  let i = 0;
  while (i < sentence.length && out.length < MAX_WORDS) {
    const ch = sentence[i];
    if (ch === ' ' || ch === '\t' || ch === '\n') {
      i++;
      continue;
    }
    const close = ch === '`' ? sentence.indexOf('`', i + 1) : -1;
    if (close > i + 1) {
      const start = i + 1;
      i = close + 1;
      // A trailing comma or full stop after the span belongs to the sentence, not the word.
      const after = i;
      while (i < sentence.length && ',.;:!?)'.includes(sentence[i])) i++;
      out.push({ text: sentence.slice(start, close).trim(), code: true, pause: /[,;:]/.test(sentence.slice(after, i)) });
      continue;
    }
    let end = i;
    while (end < sentence.length && !' \t\n`'.includes(sentence[end])) end++;
    if (end === i) end = i + 1;
    const raw = sentence.slice(i, end);
    i = end;
    const text = trimWord(raw);
    if (text !== '') out.push({ text, code: false, pause: /[,;:]$/.test(raw), ...(isQuoted(raw) ? { quoted: true } : {}) });
  }
  return out;
}

const PACKAGE = /^@?[A-Za-z0-9][\w.-]*(?:[/:][\w.-]+){0,8}$/;
const VERSION = /^v?\d[\w.+-]*$/;
const RANGE_START = /^(?:\^|~>|~=|~|>=|<=|==|!=|>|<|=)/;
const RANGE = /^[\^~<>=!][\w.+*,^~<>=! -]*$/;
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const URL = /^https?:\/\/[^\s<>`"]+$/;

/** Words that stand where a package would but name none ("update the dependencies"). */
const NOT_A_PACKAGE = new Set([
  'a',
  'all',
  'an',
  'any',
  'dependencies',
  'dependency',
  'deps',
  'every',
  'everything',
  'it',
  'latest',
  'libraries',
  'library',
  'modules',
  'our',
  'package',
  'packages',
  'stuff',
  'that',
  'the',
  'them',
  'these',
  'this',
  'those',
  'to',
  'version',
  'versions',
  'from',
  'and',
  'with',
  'newest',
  'new',
  'current',
  'some',
  'several',
]);

/** A name a manifest could declare: npm (scoped too), Maven `group:artifact`, Go module path, Python, crate, action. */
export function isPackageName(text: string): boolean {
  if (text.length > MAX_WORD || !PACKAGE.test(text) || !/[A-Za-z]/.test(text)) return false;
  if (VERSION.test(text)) return false;
  return !NOT_A_PACKAGE.has(text.toLowerCase());
}

/** A plain version (`4.17.21`, `v3`, `2.0.0-rc.1`), not a range. */
export function isVersion(text: string): boolean {
  return text.length <= 64 && VERSION.test(text);
}

/** A version without its `v` prefix (the bump recipes put it back where the ecosystem writes one). */
export function bareVersion(text: string): string {
  return /^v\d/.test(text) ? text.slice(1) : text;
}

/** Only a major (`v9`, `4`): the words do not say which release. */
export function isMajorOnly(text: string): boolean {
  return /^v?\d+$/.test(text);
}

/** A version range as a manifest writes it: `^2.0.0`, `~=1.3`, `>=1.0,<2`, `<3`. */
export function isRange(text: string): boolean {
  return text.length <= 64 && RANGE_START.test(text) && RANGE.test(text) && /\d/.test(text);
}

export function isIdentifier(text: string): boolean {
  return text.length <= MAX_WORD && IDENTIFIER.test(text);
}

export function isUrl(text: string): boolean {
  return text.length <= 2000 && URL.test(text);
}

/** An import path or package a migration names: a dot or slash in it (`javax.persistence`, `github.com/x/y`). */
export function isModulePath(text: string): boolean {
  return isPackageName(text) && /[./]/.test(text) && !text.endsWith('.');
}

/**
 * An `owner/name` reference as GitHub Actions write them (`actions/checkout`, `gradle/actions`):
 * no npm scope, no host in the first segment (a Go module path has one).
 */
export function looksLikeAction(text: string): boolean {
  const parts = text.split('/');
  return !text.startsWith('@') && !text.includes(':') && parts.length >= 2 && parts.length <= 4 && !parts[0].includes('.');
}

/** The text a reading came from, clipped so a report stays short. */
export function clip(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Lower-case text of a word, for matching keywords. */
export const lower = (word: Word | undefined): string => (word && !word.code ? word.text.toLowerCase() : '');
