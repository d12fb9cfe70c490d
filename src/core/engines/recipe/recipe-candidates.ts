import { languageForPath } from '../../syntax/language-for-path.js';
import type { RecipeStep } from '../../task/recipe-steps.js';
import { applyRecipeToFile } from './apply-recipe-to-file.js';
import { applyBumpDependency, manifestKindsForPackage } from './bump-dependency-recipe.js';
import { manifestKindForPath } from './manifest-kind.js';
import type { RecipeContext } from './recipe-types.js';

/**
 * The paths a recipe can possibly change, by language or manifest type (content is not read):
 * target selection reports exactly these. Lockfiles are never candidates.
 */
export function recipeCandidates(step: RecipeStep, paths: string[], isLockfile: (path: string) => boolean): string[] {
  const out = paths.filter((path) => {
    if (isLockfile(path)) return false;
    switch (step.recipe) {
      case 'replace':
        return true;
      case 'migrate-import':
        // With a version the step may also declare the new dependency in the owning build's manifest.
        return languageForPath(path) !== undefined || (step.version !== undefined && manifestKindForPath(path) !== undefined);
      case 'rename-symbol':
        return languageForPath(path) !== undefined;
      case 'bump-dependency': {
        const kind = manifestKindForPath(path);
        return kind !== undefined && manifestKindsForPackage(step.package).includes(kind);
      }
    }
  });
  return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** One place where a recipe step would change a file. */
export interface RecipeMatch {
  /** 1-based line in the current text. */
  line: number;
  /** That line as it is now (trimmed, at most 200 characters). */
  snippet: string;
  detail: string;
}

/**
 * Where a recipe step would change this file, found by the engine itself: the step is applied to
 * the text in memory (nothing is written) and each edited region is a match. A pom whose version
 * is a property defined in a parent pom matches at the property's use, since the engine edits
 * the parent for it. Empty when the recipe leaves the file as it is.
 */
export function recipeMatches(step: RecipeStep, file: { path: string; text: string }, ctx: RecipeContext, isLockfile: (path: string) => boolean): RecipeMatch[] {
  if (isLockfile(file.path)) return [];
  const bump = step.recipe === 'bump-dependency' ? applyBumpDependency(step, file) : undefined;
  const result = step.recipe === 'bump-dependency' ? bump : applyRecipeToFile(step, file, ctx);
  const matches: RecipeMatch[] = (result?.edits ?? []).map((edit) => ({ line: edit.line, snippet: clip(edit.before), detail: `becomes ${clip(edit.after)}` }));
  if (bump) {
    const lines = file.text.split('\n');
    for (const { property } of bump.pending) {
      const index = lines.findIndex((line) => line.includes(`\${${property}}`));
      if (index >= 0) matches.push({ line: index + 1, snippet: clip(lines[index]), detail: `version property \${${property}} is defined in a parent pom` });
    }
  }
  return matches.sort((a, b) => a.line - b.line);
}

function clip(lines: string): string {
  return lines.split('\n')[0].trim().slice(0, 200);
}
