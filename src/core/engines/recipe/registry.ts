import type { RecipeName, StepOf } from '../../task/recipe-steps.js';
import type { Recipe } from './recipe.js';
import { bumpDependencyRecipe } from './recipes/bump-dependency/bump-dependency.js';
import { constrainDependencyRecipe } from './recipes/constrain-dependency/constrain-dependency.js';
import { migrateImportRecipe } from './recipes/migrate-import/migrate-import.js';
import { removeDependencyRecipe } from './recipes/remove-dependency/remove-dependency.js';
import { renameSymbolRecipe } from './recipes/rename-symbol/rename-symbol.js';
import { replaceRecipe } from './recipes/replace/replace.js';

/**
 * Every recipe, by name: one line each. Adding a recipe is its folder under `recipes/`, its
 * step schema in core/task/recipe-steps.ts and a line here (docs/architecture.md, `engines/`).
 */
export const RECIPES: { readonly [N in RecipeName]: Recipe<N> } = {
  replace: replaceRecipe,
  'migrate-import': migrateImportRecipe,
  'bump-dependency': bumpDependencyRecipe,
  'rename-symbol': renameSymbolRecipe,
  'remove-dependency': removeDependencyRecipe,
  'constrain-dependency': constrainDependencyRecipe,
};

/** The recipe of a step, typed for that step (the union narrows to one recipe at the call). */
export function recipeFor<N extends RecipeName>(step: StepOf<N>): Recipe<N> {
  return RECIPES[step.recipe as N] as Recipe<N>;
}

/** Every registered recipe, in registry order. */
export function allRecipes(): Recipe[] {
  return Object.values(RECIPES) as Recipe[];
}
