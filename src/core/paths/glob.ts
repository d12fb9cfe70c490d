import picomatch from 'picomatch';
import { normalizeRepoPath } from '../util/repo-path.js';

// The one glob dialect of policies, task scopes and default path lists, decided once:
// - `*`, `**`, `?`, `[...]` and `{a,b}` are glob syntax; nothing else is. `+`, `@`, `!`, `|`, `(` and
//   `)` are literal, so `packages/@scope/pkg` and `src/a+b` name those directories (no extglob).
// - A pattern with no glob syntax is a path: it matches itself and everything under it.
//   `dir/` (trailing slash) means the same, and `./dir` is `dir`.
// - Dot files and dot directories match like any other name.
// - Case-sensitive, like git. `*.md` matches at the root only; `**/*.md` at any depth, and a
//   leading `**/` also matches at the root (`**/go.sum` matches `go.sum`).
const PICOMATCH_OPTIONS = { dot: true, noextglob: true, nonegate: true } as const;

const GLOB_SYNTAX = /[*?[\]{}]/;
const LITERAL_IN_GLOB = /[()+@!|]/g;

/** True when the pattern has glob syntax; otherwise it is a plain path. */
export function isGlobPattern(pattern: string): boolean {
  return GLOB_SYNTAX.test(pattern);
}

/** Strip surrounding blanks, leading `./` and trailing slashes from a user-written pattern. */
export function cleanPattern(pattern: string): string {
  return pattern
    .trim()
    .replace(/^(\.\/)+/, '')
    .replace(/\/+$/, '');
}

/** The literal directory part of a pattern (before its first glob segment); '' when it starts with one. */
export function patternBase(pattern: string): string {
  const clean = cleanPattern(pattern);
  if (!isGlobPattern(clean)) return clean;
  const segments = clean.split('/');
  const first = segments.findIndex((s) => isGlobPattern(s));
  return segments.slice(0, first).join('/');
}

/** A path split once, shared by every matcher that asks about it. */
export interface PathParts {
  path: string;
  /** The last segment. */
  base: string;
  /** `/path/`, so a directory test is one `includes`. */
  slashed: string;
}

export function pathParts(path: string): PathParts {
  return { path, base: path.slice(path.lastIndexOf('/') + 1), slashed: `/${path}/` };
}

export interface GlobSet {
  (path: string): boolean;
  /** The same test over a path already split by `pathParts`. */
  parts(parts: PathParts): boolean;
}

/** `a/{b,c}/d` -> `a/b/d`, `a/c/d`; undefined for nested or unbalanced braces (left to picomatch). */
function expandBraces(pattern: string): string[] | undefined {
  const open = pattern.indexOf('{');
  if (open < 0) return pattern.includes('}') ? undefined : [pattern];
  const close = pattern.indexOf('}', open);
  if (close < 0 || pattern.slice(open + 1, close).includes('{')) return undefined;
  const out: string[] = [];
  for (const option of pattern.slice(open + 1, close).split(',')) {
    const rest = expandBraces(`${pattern.slice(0, open)}${option}${pattern.slice(close + 1)}`);
    if (!rest) return undefined;
    out.push(...rest);
  }
  return out;
}

/**
 * The shapes default lists and policies are made of, answered without a regular expression:
 * a plain path (and what is under it), an exact path, a directory name at any depth, a file name
 * at any depth with at most one `*`. Anything else is a picomatch regular expression.
 */
interface Plan {
  under: string[];
  exact: Set<string>;
  dirs: string[];
  names: Set<string>;
  affixes: { pre: string; suf: string }[];
  baseRegexes: RegExp[];
  regexes: RegExp[];
}

function picomatchRe(pattern: string): RegExp {
  // Glob characters are kept; the punctuation picomatch would read as extglob or negation is escaped.
  return picomatch.makeRe(
    pattern.replace(LITERAL_IN_GLOB, (c) => `\\${c}`),
    PICOMATCH_OPTIONS,
  );
}

function planOne(plan: Plan, pattern: string): void {
  if (!GLOB_SYNTAX.test(pattern)) {
    plan.exact.add(pattern);
    return;
  }
  if (pattern.endsWith('/**') && !GLOB_SYNTAX.test(pattern.slice(0, -3))) {
    plan.under.push(pattern.slice(0, -3));
    return;
  }
  if (pattern.startsWith('**/')) {
    const rest = pattern.slice(3);
    if (rest.endsWith('/**') && !GLOB_SYNTAX.test(rest.slice(0, -3))) {
      plan.dirs.push(`/${rest.slice(0, -3)}/`);
      return;
    }
    if (!rest.includes('/') && !rest.startsWith('**')) {
      const star = rest.indexOf('*');
      const tail = rest.slice(star + 1);
      if (star < 0) plan.names.add(rest);
      else if (!GLOB_SYNTAX.test(rest.slice(0, star)) && !GLOB_SYNTAX.test(tail)) plan.affixes.push({ pre: rest.slice(0, star), suf: tail });
      else plan.baseRegexes.push(picomatchRe(rest));
      return;
    }
  }
  plan.regexes.push(picomatchRe(pattern));
}

/**
 * Compile a list of patterns once into one matcher. `nocase` is only for the always-forbidden
 * paths, which must also hold on case-insensitive checkouts.
 */
export function compileGlobs(patterns: readonly string[], options: { nocase?: boolean } = {}): GlobSet {
  const plan: Plan = { under: [], exact: new Set(), dirs: [], names: new Set(), affixes: [], baseRegexes: [], regexes: [] };
  for (const raw of patterns) {
    const clean = cleanPattern(options.nocase ? raw.toLowerCase() : raw);
    if (clean === '') continue;
    if (!isGlobPattern(clean)) {
      plan.under.push(clean);
      continue;
    }
    const expanded = expandBraces(clean);
    if (expanded) for (const one of expanded) planOne(plan, one);
    else plan.regexes.push(picomatchRe(clean));
  }
  const { under, exact, dirs, names, affixes, baseRegexes, regexes } = plan;
  const test = ({ path, base, slashed }: PathParts): boolean => {
    if (exact.has(path) || names.has(base)) return true;
    for (const u of under) if (path === u || (path.startsWith(u) && path.charCodeAt(u.length) === 47)) return true;
    for (const d of dirs) if (slashed.includes(d)) return true;
    for (const { pre, suf } of affixes) if (base.length >= pre.length + suf.length && base.startsWith(pre) && base.endsWith(suf)) return true;
    for (const re of baseRegexes) if (re.test(base)) return true;
    for (const re of regexes) if (re.test(path)) return true;
    return false;
  };
  const matcher = (options.nocase ? (path: string) => test(pathParts(path.toLowerCase())) : (path: string) => test(pathParts(path))) as GlobSet;
  matcher.parts = options.nocase ? (parts) => test(pathParts(parts.path.toLowerCase())) : test;
  return matcher;
}

/**
 * True when `path` matches any pattern. The path is normalised first and refused (PathError)
 * when it could escape the workspace: such a path must never reach a yes/no decision.
 */
export function matchesAny(patterns: readonly string[], path: string): boolean {
  return compileGlobs(patterns)(normalizeRepoPath(path));
}
