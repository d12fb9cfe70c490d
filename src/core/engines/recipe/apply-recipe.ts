import type { RecipeStep } from '../../task/recipe-steps.js';
import type { Workspace } from '../../workspace/workspace.js';
import { applyRecipeToFile } from './apply-recipe-to-file.js';
import { historyGuard } from './history-files.js';
import { recipeCandidates } from './recipe-candidates.js';
import { createRecipeRun, type ApplyRecipeOptions } from './recipe-run.js';
import type { ApplyRecipeResult } from './recipe-types.js';
import { recipeFor } from './registry.js';

export type { ApplyRecipeOptions } from './recipe-run.js';
export { lockfilesFor } from './lockfiles-to-refresh.js';

/**
 * Apply a recipe step to the workspace: reads and writes go through `workspace`, only
 * candidates that are editable text change, and bytes outside the edited spans are kept.
 * Lockfiles are never edited; a recipe that changes a dependency reports the lockfiles to refresh.
 */
export async function applyRecipe(step: RecipeStep, workspace: Workspace, options: ApplyRecipeOptions): Promise<ApplyRecipeResult> {
  const run = createRecipeRun(workspace, options, {
    candidates: recipeCandidates(step, options.paths, options.rules.isLockfile),
    leaveAlone: options.editHistory ? () => false : historyGuard(step, options.taskPaths, options.rules.isHistory),
    editFile: (file) => applyRecipeToFile(step, file, { syntax: options.syntax }),
  });
  return recipeFor(step).apply(step, run);
}
