import { z } from 'zod';

/**
 * Why a glob cannot be a repository-relative pattern, or undefined when it can. Globs are
 * matched against normalised paths, so a pattern that is absolute, climbs with `..`, holds NUL
 * or a backslash could never match and only hides a mistake. A leading `!` is refused too: in a
 * list, negation silently turns "allow x" into "allow everything but x".
 */
export function globProblem(glob: string): string | undefined {
  if (glob.includes('\u0000')) return 'a glob may not contain NUL';
  if (glob.includes('\\')) return 'use forward slashes in globs';
  if (glob.startsWith('/') || /^[A-Za-z]:/.test(glob)) return 'globs are relative to the repository root; remove the leading slash';
  if (glob.split('/').includes('..')) return 'a glob may not contain ".." segments';
  if (glob.startsWith('!')) return 'negated globs are not supported; list the paths you mean instead';
  if (glob.trim() === '') return 'a glob may not be blank';
  return unclosedProblem(glob);
}

/**
 * A `[` or `{` that never closes, or a `}` that closes nothing: the glob engine would read the
 * bracket as a literal character and the pattern would quietly match nothing the author meant.
 */
function unclosedProblem(glob: string): string | undefined {
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '[') {
      // A class closes at the first `]` after at least one character (`[]]` is a class of `]`).
      const close = glob.indexOf(']', i + 2);
      if (close < 0) return `"[" at position ${i + 1} is never closed: end the character class with "]"`;
      i = close;
    } else if (c === '{') braces++;
    else if (c === '}' && --braces < 0) return `"}" at position ${i + 1} closes no "{"`;
  }
  return braces > 0 ? `"{" is never closed: end the alternatives with "}", as in "**/*.{ts,tsx}"` : undefined;
}

/** One repository-relative glob, in the dialect of `src/core/paths/glob.ts`; a plain directory means `dir/**`. */
export const RepoGlob = z
  .string()
  .min(1)
  .max(1024)
  .superRefine((glob, ctx) => {
    const problem = globProblem(glob);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
