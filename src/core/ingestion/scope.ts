import { cleanPattern, compileGlobs, patternBase } from '../paths/glob.js';
import { forbiddenMatcher } from '../paths/path-rules.js';

export interface ScopeResult {
  patterns: string[];
  /** Files the scope selects (all files when there is no scope). */
  matched: string[];
  /** Scope entries that select nothing. */
  missing: string[];
  /** Scope entries that name a forbidden or invalid path. */
  forbidden: string[];
}

/**
 * Apply the task's `paths` to the file list. A scope entry is forbidden when its literal base
 * is forbidden, when it tries to leave the repository, or when everything it selects is.
 */
export function resolveScope(paths: string[] | undefined, files: string[], forbiddenPaths: readonly string[]): ScopeResult {
  const isForbidden = forbiddenMatcher(forbiddenPaths);
  if (!paths || paths.length === 0) return { patterns: [], matched: files, missing: [], forbidden: [] };
  const missing: string[] = [];
  const forbidden: string[] = [];
  const selected = new Set<string>();
  for (const raw of paths) {
    const pattern = cleanPattern(raw);
    const base = patternBase(pattern);
    if (pattern === '' || pattern.startsWith('/') || pattern.split('/').includes('..') || pattern.includes('\\') || /(^|\/)\.git(\/|$)/i.test(pattern)) {
      forbidden.push(raw);
      continue;
    }
    const match = compileGlobs([pattern]);
    const hits = files.filter(match);
    if ((base !== '' && isForbidden(base)) || (hits.length > 0 && hits.every(isForbidden))) {
      forbidden.push(raw);
      continue;
    }
    if (hits.length === 0) missing.push(raw);
    for (const hit of hits) if (!isForbidden(hit)) selected.add(hit);
  }
  return { patterns: paths.map(cleanPattern), matched: files.filter((f) => selected.has(f)), missing, forbidden };
}
