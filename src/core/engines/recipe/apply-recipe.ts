import type { RecipeStep } from '../../task/recipe-steps.js';
import type { Workspace } from '../../workspace/workspace.js';
import { applyRecipeToFile } from './apply-recipe-to-file.js';
import { applyFormatterParity } from './formatters/formatter-parity.js';
import { historyGuard } from './history-files.js';
import { declaredJavaImportLayout } from './import-placement/declared-layout.js';
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
  const candidates = recipeCandidates(step, options.paths, options.rules.isLockfile);
  // Imports go where the project's formatter puts them, when its build declares one (Java).
  const layout = step.recipe === 'migrate-import' && candidates.some((p) => p.endsWith('.java')) ? await declaredJavaImportLayout(workspace) : undefined;
  const run = createRecipeRun(workspace, options, {
    candidates,
    leaveAlone: options.editHistory ? () => false : historyGuard(step, options.taskPaths, options.rules.isHistory),
    editFile: (file) => applyRecipeToFile(step, file, { syntax: options.syntax, importLayout: (language) => (language === 'java' ? layout : undefined) }),
  });
  const result = await recipeFor(step).apply(step, run);
  if (layout && result.changedFiles.some((f) => f.path.endsWith('.java')))
    result.notes.push(`Java imports placed as ${layout.name} orders them (declared in ${layout.source})`);
  // Where the project declares a formatter, the changed files come out as it would leave them.
  const changed = result.changedFiles.map((f) => f.path);
  result.notes.push(...(await applyFormatterParity({ workspace, loadWasm: options.syntax.loadWasm }, changed)));
  return result;
}
