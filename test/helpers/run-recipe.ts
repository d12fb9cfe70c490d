import { applyRecipe } from '../../src/core/engines/recipe/apply-recipe.js';
import { recipeCandidates } from '../../src/core/engines/recipe/recipe-candidates.js';
import { compileGlobs } from '../../src/core/paths/glob.js';
import type { TreeSyntaxService } from '../../src/core/syntax/create-syntax-service.js';
import { RecipeStep } from '../../src/core/task/recipe-steps.js';
import { createMemoryRepo } from './memory-repo.js';
import { defaultPathRules } from '../../src/core/paths/path-rules.js';

/**
 * Run one recipe step on in-memory files as the planning phase does: the step's candidates among
 * the files in scope (`scope`, else the step's own `paths`, else everything) that the policy lets
 * it edit, then the engine. Returns the result, the text of any file afterwards, and what changed.
 */
export async function runRecipeStep(
  syntax: TreeSyntaxService,
  files: Record<string, string>,
  stepInput: Record<string, unknown>,
  options: { scope?: string[]; isEditable?: (path: string) => boolean } = {},
) {
  const repo = await createMemoryRepo(files);
  const step = RecipeStep.parse(stepInput);
  const globs = options.scope ?? step.paths;
  const inScope = globs ? compileGlobs(globs) : () => true;
  const isEditable = options.isEditable ?? (() => true);
  const paths = recipeCandidates(
    step,
    repo.workspace.paths().filter((p) => inScope(p) && isEditable(p)),
    defaultPathRules().isLockfile,
  );
  const result = await applyRecipe(step, repo.workspace, { paths, syntax, isEditable, rules: defaultPathRules() });
  return { result, paths, files, text: (path: string) => repo.workspace.readText(path), changed: result.changedFiles.map((f) => f.path) };
}
