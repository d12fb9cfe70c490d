import picomatch from 'picomatch';

const GLOB_CHARS = /[*?[\]{}()!+@]/;

/** True when the pattern has glob syntax; a plain path means itself and everything under it. */
export function isGlob(pattern: string): boolean {
  return GLOB_CHARS.test(pattern);
}

/** Strip `./` and trailing slashes from a user-written path pattern. */
export function cleanPattern(pattern: string): string {
  return pattern.trim().replace(/^(\.\/)+/, '').replace(/\/+$/, '');
}

/**
 * A matcher for repository paths: globs through picomatch (dot files included), plain paths as
 * a prefix at a segment boundary (`src` matches `src` and `src/a.ts`, never `srcx`).
 */
export function pathMatcher(patterns: string[]): (path: string) => boolean {
  const tests = patterns.map(cleanPattern).filter((p) => p !== '').map((pattern) => {
    if (!isGlob(pattern)) return (path: string) => path === pattern || path.startsWith(`${pattern}/`);
    const glob = picomatch(pattern, { dot: true });
    return (path: string) => glob(path);
  });
  return (path) => tests.some((test) => test(path));
}

/** The literal directory part of a pattern (before the first glob segment). */
export function patternBase(pattern: string): string {
  const clean = cleanPattern(pattern);
  if (!isGlob(clean)) return clean;
  return picomatch.scan(clean).base;
}
