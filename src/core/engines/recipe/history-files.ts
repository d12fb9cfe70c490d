import { compileGlobs } from '../../paths/glob.js';
import type { RecipeStep } from '../../task/recipe-steps.js';
import { recipeFor } from './registry.js';

const PROBE = 'zz-probe';

/** `path` with one segment replaced by a neutral name (the file name keeps its extension). */
function probes(path: string): string[] {
  const segments = path.split('/');
  return segments.map((segment, i) => {
    const dot = segment.lastIndexOf('.');
    const swapped = i === segments.length - 1 && dot > 0 ? `${PROBE}${segment.slice(dot)}` : PROBE;
    return [...segments.slice(0, i), swapped, ...segments.slice(i + 1)].join('/');
  });
}

/**
 * Which history files (changelogs, release notes: the `history` path class) a recipe step
 * leaves alone. Past entries name old symbols on purpose, so they are not rewritten unless the
 * task or the step names them in its `paths`: a glob names a history file when it matches it
 * but matches no ordinary file in its place (`CHANGELOG.md` or `**\/CHANGELOG*` do; `docs/**`
 * or `**\/*.md` do not).
 */
export function historyGuard(step: RecipeStep, taskPaths: readonly string[] = [], isHistory: (path: string) => boolean): (path: string) => boolean {
  if (recipeFor(step).editsHistory) return () => false;
  const globs = [...taskPaths, ...(step.paths ?? [])].map((glob) => compileGlobs([glob]));
  const named = (path: string) => globs.some((glob) => glob(path) && probes(path).every((probe) => isHistory(probe) || !glob(probe)));
  return (path) => isHistory(path) && !named(path);
}
