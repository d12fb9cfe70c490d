import { languageForPath } from '../../syntax/language-for-path.js';
import type { RecipeStep } from '../../task/recipe-steps.js';
import { manifestKindsForPackage } from './bump-dependency-recipe.js';
import { isLockfile, manifestKindForPath } from './manifest-kind.js';

/**
 * The paths a recipe can possibly change, by language or manifest type (content is not read):
 * target selection reports exactly these. Lockfiles are never candidates.
 */
export function recipeCandidates(step: RecipeStep, paths: string[]): string[] {
  const out = paths.filter((path) => {
    if (isLockfile(path)) return false;
    switch (step.recipe) {
      case 'replace':
        return true;
      case 'migrate-import':
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
