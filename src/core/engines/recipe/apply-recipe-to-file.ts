import type { RecipeStep } from '../../task/recipe-steps.js';
import { applyBumpDependency } from './bump-dependency-recipe.js';
import { realignGoEdit } from './gofmt-realign-edit.js';
import { applyMigrateImport } from './migrate-import-recipe.js';
import type { FileRecipeResult, RecipeContext } from './recipe-types.js';
import { applyRenameSymbol } from './rename-symbol-recipe.js';
import { applyReplace } from './replace-recipe.js';

/**
 * Apply one recipe step to one file's text. Pure: the same step and text give the same result.
 * Returns undefined when the file does not change (a result may still carry notes with no edits).
 * In Go, the alignment of the edited blocks is then brought back to what gofmt would print.
 */
export function applyRecipeToFile(step: RecipeStep, file: { path: string; text: string }, ctx: RecipeContext): FileRecipeResult | undefined {
  const result = applyStep(step, file, ctx);
  return result && result.edits.length > 0 && ctx.syntax.languageFor(file.path) === 'go' ? realignGoEdit(file.text, result, ctx.syntax) : result;
}

function applyStep(step: RecipeStep, file: { path: string; text: string }, ctx: RecipeContext): FileRecipeResult | undefined {
  switch (step.recipe) {
    case 'replace':
      return applyReplace(step, file.text);
    case 'migrate-import':
      return applyMigrateImport(step, file, ctx);
    case 'bump-dependency': {
      const result = applyBumpDependency(step, file);
      if (!result) return undefined;
      const { pending: _pending, ...rest } = result;
      return rest.edits.length || rest.notes.length ? rest : undefined;
    }
    case 'rename-symbol':
      return applyRenameSymbol(step, file, ctx);
  }
}
