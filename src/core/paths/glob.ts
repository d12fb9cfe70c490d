import picomatch from 'picomatch';
import { normalizeRepoPath } from '../util/repo-path.js';

// The one glob dialect of policies, task scopes and default path lists, decided once:
// - `*`, `**`, `?`, `[...]` and `{a,b}` are glob syntax; nothing else is. `+`, `@`, `!`, `(` and
//   `)` are literal, so `packages/@scope/pkg` and `src/a+b` name those directories (no extglob).
// - A pattern with no glob syntax is a path: it matches itself and everything under it.
//   `dir/` (trailing slash) means the same, and `./dir` is `dir`.
// - Dot files and dot directories match like any other name.
// - Case-sensitive, like git. `*.md` matches at the root only; `**/*.md` at any depth, and a
//   leading `**/` also matches at the root (`**/go.sum` matches `go.sum`).
const PICOMATCH_OPTIONS = { dot: true, noextglob: true, nonegate: true } as const;

const GLOB_SYNTAX = /[*?[\]{}]/;
const LITERAL_IN_GLOB = /[()+@!]/g;

export type PathMatcher = (path: string) => boolean;

/** True when the pattern has glob syntax; otherwise it is a plain path. */
export function isGlobPattern(pattern: string): boolean {
  return GLOB_SYNTAX.test(pattern);
}

/** Strip surrounding blanks, leading `./` and trailing slashes from a user-written pattern. */
export function cleanPattern(pattern: string): string {
  return pattern.trim().replace(/^(\.\/)+/, '').replace(/\/+$/, '');
}

/** The literal directory part of a pattern (before its first glob segment); '' when it starts with one. */
export function patternBase(pattern: string): string {
  const clean = cleanPattern(pattern);
  if (!isGlobPattern(clean)) return clean;
  const segments = clean.split('/');
  const first = segments.findIndex((s) => isGlobPattern(s));
  return segments.slice(0, first).join('/');
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** One pattern as the source of an anchored regular expression. */
function patternSource(pattern: string): string | undefined {
  const clean = cleanPattern(pattern);
  if (clean === '') return undefined;
  if (!isGlobPattern(clean)) return `^${escapeRegex(clean)}(?:\\/.*)?$`;
  // Glob characters are kept; the punctuation picomatch would read as extglob or negation is escaped.
  return picomatch.makeRe(clean.replace(LITERAL_IN_GLOB, (c) => `\\${c}`), PICOMATCH_OPTIONS).source;
}

/**
 * Compile a list of patterns into one matcher: a single regular expression, so a 100k-path
 * pass costs one test per path and list. `nocase` is only for the always-forbidden paths, which
 * must also hold on case-insensitive checkouts.
 */
export function compileGlobs(patterns: readonly string[], options: { nocase?: boolean } = {}): PathMatcher {
  const sources = patterns.map(patternSource).filter((s): s is string => s !== undefined);
  if (sources.length === 0) return () => false;
  const re = new RegExp(sources.map((s) => `(?:${s})`).join('|'), options.nocase ? 'i' : '');
  return (path) => re.test(path);
}

/**
 * True when `path` matches any pattern. The path is normalised first and refused (PathError)
 * when it could escape the workspace: such a path must never reach a yes/no decision.
 */
export function matchesAny(patterns: readonly string[], path: string): boolean {
  return compileGlobs(patterns)(normalizeRepoPath(path));
}
