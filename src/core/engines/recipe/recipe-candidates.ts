import type { RecipeStep } from '../../task/recipe-steps.js';
import type { RecipeMatch } from './recipe-match.js';
import type { RecipeContext } from './recipe-types.js';
import { recipeFor } from './registry.js';

export type { RecipeMatch } from './recipe-match.js';

/**
 * The paths a recipe can possibly change, by language or manifest type (content is not read):
 * target selection reports exactly these. Lockfiles are never candidates.
 */
export function recipeCandidates(step: RecipeStep, paths: string[], isLockfile: (path: string) => boolean): string[] {
  const recipe = recipeFor(step);
  // The recipe's own test first: it is a suffix check, the lockfile rules are globs.
  const out = paths.filter((path) => recipe.isCandidate(step, path) && !isLockfile(path));
  return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Where a recipe step would change this file, found by the engine itself: the step is applied to
 * the text in memory (nothing is written) and each edited region is a match. A pom whose version
 * is a property defined in a parent pom matches at the property's use, since the engine edits
 * the parent for it. Empty when the recipe leaves the file as it is.
 */
export function recipeMatches(
  step: RecipeStep,
  file: { path: string; text: string },
  ctx: RecipeContext,
  isLockfile: (path: string) => boolean,
): RecipeMatch[] {
  if (isLockfile(file.path)) return [];
  return recipeFor(step)
    .matches(step, file, ctx)
    .sort((a, b) => a.line - b.line);
}

/** Why the step leaves a candidate file with no match as it is (empty when it has nothing to say). */
export function recipeLeftAlone(step: RecipeStep, file: { path: string; text: string }): string[] {
  return recipeFor(step).leftAlone(step, file);
}

/** What a step would do over some files, found without writing anything. */
export interface DryRun {
  /** Files the step would change, with where (candidates read in path order). */
  files: { path: string; matches: RecipeMatch[] }[];
  /** Candidates it leaves as they are, with why (a declaration at another version than `from`). */
  leftAlone: { path: string; why: string }[];
  /** Candidates read. */
  searched: number;
}

/**
 * The step applied in memory to each of its candidates among `paths` (`read` gives a file's text,
 * undefined for one that is not readable text): target selection and the grounding of steps read
 * from an issue's prose both ask the engine this way.
 */
export async function dryRunStep(
  step: RecipeStep,
  paths: string[],
  read: (path: string) => Promise<string | undefined>,
  ctx: RecipeContext,
  isLockfile: (path: string) => boolean,
): Promise<DryRun> {
  const out: DryRun = { files: [], leftAlone: [], searched: 0 };
  for (const path of recipeCandidates(step, paths, isLockfile)) {
    const text = await read(path);
    out.searched++;
    if (text === undefined) continue;
    const matches = recipeMatches(step, { path, text }, ctx, isLockfile);
    if (matches.length > 0) out.files.push({ path, matches });
    else for (const why of recipeLeftAlone(step, { path, text })) out.leftAlone.push({ path, why });
  }
  return out;
}
