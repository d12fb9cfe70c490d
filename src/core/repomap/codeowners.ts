import picomatch from 'picomatch';
import type { OwnershipRule } from './repo-map-schema.js';

/** Where GitHub looks for CODEOWNERS, in order; the first one that exists is used. */
export const CODEOWNERS_LOCATIONS = ['.github/CODEOWNERS', 'CODEOWNERS', 'docs/CODEOWNERS'] as const;

export function parseCodeowners(text: string, source: string): OwnershipRule[] {
  const rules: OwnershipRule[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.replace(/(^|\s)#.*$/, '').trim();
    if (!line || line.startsWith('[')) return;
    const [pattern, ...owners] = line.split(/\s+/);
    rules.push({ pattern, owners, source, line: i + 1 });
  });
  return rules;
}

/**
 * A CODEOWNERS pattern as a matcher, gitignore-style as GitHub documents it: a leading or
 * inner `/` anchors at the root, otherwise the pattern matches at any depth; a trailing `/`
 * or a directory name covers everything below; `docs/*` covers direct children only.
 */
export function codeownersMatcher(pattern: string): (path: string) => boolean {
  let p = pattern;
  const anchored = p.startsWith('/') || p.slice(0, -1).includes('/');
  p = p.replace(/^\//, '');
  const dirOnly = p.endsWith('/');
  p = p.replace(/\/$/, '');
  if (p === '*') return () => true;
  const base = anchored ? p : `**/${p}`;
  const globs = dirOnly ? [`${base}/**`] : p.endsWith('/*') ? [base] : [base, `${base}/**`];
  return picomatch(globs, { dot: true });
}

/** The owners of a path: GitHub's rule, the last matching line wins (an empty owner list means unowned). */
export function ownersFor(rules: readonly OwnershipRule[], path: string): { owners: string[]; rule?: OwnershipRule } {
  for (let i = rules.length - 1; i >= 0; i--) {
    if (codeownersMatcher(rules[i].pattern)(path)) return { owners: rules[i].owners, rule: rules[i] };
  }
  return { owners: [] };
}
