import type { RecipeStep } from '../../task/recipe-steps.js';
import type { FileRecipeResult, RecipeContext } from './recipe-types.js';
import { recipeFor } from './registry.js';

/**
 * Apply one recipe step to one file's text. Pure: the same step and text give the same result.
 * Returns undefined when the file does not change (a result may still carry notes with no edits).
 * In Go, the alignment of the edited blocks is then brought back to what gofmt would print.
 */
export function applyRecipeToFile(step: RecipeStep, file: { path: string; text: string }, ctx: RecipeContext): FileRecipeResult | undefined {
  return recipeFor(step).applyToFile(step, file, ctx);
}
