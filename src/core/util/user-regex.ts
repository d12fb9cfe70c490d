import { RE2JS, RE2JSException } from 're2js';
import { AgentError } from '../errors.js';

/**
 * Regular expressions that come from a task or a policy run on RE2 (linear time in the input):
 * a pattern like `(a+)+$` cannot stall a run. Constructs RE2 cannot run in linear time are
 * refused with a reason that names them.
 */
export const USER_REGEX_REASONS = [
  'REGEX_BACKREFERENCE',
  'REGEX_LOOKAHEAD',
  'REGEX_LOOKBEHIND',
  'REGEX_FLAG_UNSUPPORTED',
  'REGEX_TOO_COMPLEX',
  'REGEX_INVALID',
] as const;
export type UserRegexReason = (typeof USER_REGEX_REASONS)[number];
export class UserRegexError extends AgentError<UserRegexReason> {}

/** Longest pattern and largest compiled program accepted. */
export const MAX_USER_REGEX_LENGTH = 2_000;
export const MAX_USER_REGEX_PROGRAM = 1_000;
/**
 * Locating matches (and groups) costs up to input length times program size (about 30 ns per
 * unit here): above this product a search that does match is refused rather than left to run
 * for seconds. Whether there is any match at all is decided by a DFA in one fast pass.
 */
export const MAX_USER_REGEX_WORK = 100_000_000;

export interface UserRegexMatch {
  index: number;
  end: number;
  /** `[0]` is the whole match; an unmatched group is undefined. */
  groups: (string | undefined)[];
}

export interface UserRegex {
  /** Whether the pattern matches anywhere in `text`. */
  test(text: string): boolean;
  /** The first match starting at or after `from` (the text before `from` still counts for `^` and `\b`). */
  exec(text: string, from?: number): UserRegexMatch | undefined;
  /** Every non-overlapping match, left to right; an empty match steps over one code point. */
  matchAll(text: string): Generator<UserRegexMatch>;
}

/** The first construct RE2 refuses to run in linear time, outside character classes. */
function unsupportedConstruct(source: string): { reason: UserRegexReason; construct: string } | undefined {
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') {
      const next = source[i + 1] ?? '';
      if (!inClass && /[1-9]/.test(next)) return { reason: 'REGEX_BACKREFERENCE', construct: `\\${next}` };
      if (!inClass && next === 'k' && source[i + 2] === '<') return { reason: 'REGEX_BACKREFERENCE', construct: '\\k<name>' };
      i++;
    } else if (inClass) {
      if (c === ']') inClass = false;
    } else if (c === '[') inClass = true;
    else if (c === '(' && source[i + 1] === '?') {
      const head = source.slice(i, i + 4);
      if (head.startsWith('(?=') || head.startsWith('(?!')) return { reason: 'REGEX_LOOKAHEAD', construct: head.slice(0, 3) };
      if (head === '(?<=' || head === '(?<!') return { reason: 'REGEX_LOOKBEHIND', construct: head };
    }
  }
  return undefined;
}

function flagBits(flags: string): number {
  let bits = 0;
  for (const f of flags) {
    if (f === 'i') bits |= RE2JS.CASE_INSENSITIVE;
    else if (f === 'm') bits |= RE2JS.MULTILINE;
    else if (f === 's') bits |= RE2JS.DOTALL;
    // RE2 always matches by code point, which is what `u` asks for; `g` is implied by matchAll.
    else if (f !== 'u' && f !== 'g') throw new UserRegexError('REGEX_FLAG_UNSUPPORTED', `regex flag "${f}" is not supported (use i, m, s, u)`, { flag: f });
  }
  return bits;
}

/**
 * Compile a JavaScript-syntax pattern with flags `i`, `m`, `s`, `u` (and `g`, implied) for RE2.
 * Throws `UserRegexError` naming the construct when the pattern cannot run in linear time.
 * With `literal` the source is matched as plain text (still honouring `i`).
 */
export function compileUserRegex(source: string, flags = '', options: { literal?: boolean } = {}): UserRegex {
  const bits = flagBits(flags);
  if (options.literal) return wrap(RE2JS.compile(RE2JS.quote(source), bits), false);
  if (source.length > MAX_USER_REGEX_LENGTH)
    throw new UserRegexError('REGEX_TOO_COMPLEX', `regex is ${source.length} characters long, more than ${MAX_USER_REGEX_LENGTH}`, { length: source.length });
  const unsupported = unsupportedConstruct(source);
  if (unsupported) {
    const name = unsupported.reason === 'REGEX_BACKREFERENCE' ? 'backreferences' : unsupported.reason === 'REGEX_LOOKAHEAD' ? 'lookahead' : 'lookbehind';
    throw new UserRegexError(unsupported.reason, `regex uses ${unsupported.construct}: ${name} cannot run in linear time and are not supported`, {
      construct: unsupported.construct,
    });
  }
  let re: RE2JS;
  try {
    re = RE2JS.compile(RE2JS.translateRegExp(source), bits);
  } catch (error) {
    const detail = error instanceof RE2JSException ? error.message : String(error);
    throw new UserRegexError('REGEX_INVALID', `regex is not valid: ${detail}`, {}, { cause: error });
  }
  if (re.programSize() > MAX_USER_REGEX_PROGRAM)
    throw new UserRegexError('REGEX_TOO_COMPLEX', `regex compiles to ${re.programSize()} instructions, more than ${MAX_USER_REGEX_PROGRAM}`, {
      programSize: re.programSize(),
    });
  return wrap(re, true);
}

/** `bounded`: apply the matching budget (a literal is searched by prefix, so it needs none). */
function wrap(re: RE2JS, bounded: boolean): UserRegex {
  const count = re.groupCount();
  const size = re.programSize();
  const budget = (text: string): void => {
    if (bounded && text.length * size > MAX_USER_REGEX_WORK) {
      throw new UserRegexError(
        'REGEX_TOO_COMPLEX',
        `regex of ${size} instructions on ${text.length} characters exceeds the matching budget; simplify the pattern or narrow the paths`,
        { programSize: size, length: text.length },
      );
    }
  };
  const exec = (text: string, from = 0): UserRegexMatch | undefined => {
    if (from === 0 && !re.test(text)) return undefined;
    budget(text);
    const m = re.matcher(text);
    if (from > text.length || !m.find(from)) return undefined;
    const groups: (string | undefined)[] = [];
    for (let g = 0; g <= count; g++) groups.push(m.group(g) ?? undefined);
    return { index: m.start(), end: m.end(), groups };
  };
  return {
    test: (text) => re.test(text),
    exec,
    *matchAll(text) {
      if (!re.test(text)) return;
      budget(text);
      const m = re.matcher(text);
      let at = 0;
      while (at <= text.length && m.find(at)) {
        const groups: (string | undefined)[] = [];
        for (let g = 0; g <= count; g++) groups.push(m.group(g) ?? undefined);
        const match = { index: m.start(), end: m.end(), groups };
        yield match;
        at = match.end > match.index ? match.end : match.end + (text.codePointAt(match.end)! > 0xffff ? 2 : 1);
      }
    },
  };
}

/** Why a pattern would be refused, or undefined when it compiles: for validating a task or policy up front. */
export function userRegexProblem(source: string, flags = ''): UserRegexError | undefined {
  try {
    compileUserRegex(source, flags);
    return undefined;
  } catch (error) {
    if (error instanceof UserRegexError) return error;
    throw error;
  }
}

/** `$$`, `$&` and `$1`..`$99` in a replacement, as String.prototype.replace reads them. */
export function expandReplacement(template: string, match: UserRegexMatch): string {
  const groups = match.groups;
  return template.replace(/\$(\$|&|\d{1,2})/g, (whole, ref: string) => {
    if (ref === '$') return '$';
    if (ref === '&') return groups[0] ?? '';
    const n = Number(ref);
    if (n >= 1 && n < groups.length) return groups[n] ?? '';
    if (ref.length === 2 && Number(ref[0]) >= 1 && Number(ref[0]) < groups.length) return (groups[Number(ref[0])] ?? '') + ref[1];
    return whole;
  });
}
