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
 * Scope entries that reach into a submodule: their literal base is a gitlink's path or lies
 * under it. A wider entry (`libs/**` around `libs/vendored`) does not: the gitlink stays as it is.
 */
export function submodulesInScope(paths: readonly string[], submodules: readonly string[]): { pattern: string; submodule: string }[] {
  const out: { pattern: string; submodule: string }[] = [];
  for (const raw of paths) {
    const base = patternBase(cleanPattern(raw));
    const submodule = submodules.find((s) => base === s || base.startsWith(`${s}/`));
    if (submodule !== undefined) out.push({ pattern: raw, submodule });
  }
  return out;
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
