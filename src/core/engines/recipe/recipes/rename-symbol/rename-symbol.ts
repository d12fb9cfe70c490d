import { languageForPath } from '../../../../syntax/language-for-path.js';
import { compileGlobs } from '../../../../paths/glob.js';
import { RECIPE_STEPS, type RenameSymbolStep } from '../../../../task/recipe-steps.js';
import type { Recipe } from '../../recipe.js';
import type { RecipeRun } from '../../recipe-run.js';
import { editMatches } from '../../recipe-match.js';
import { IDENT } from '../../suggestion.js';
import { applyRenameSymbol, renameInWorkspace } from '../../rename-symbol-recipe.js';

const applyToFile = applyRenameSymbol;

/**
 * Source files a scope leaves out (the step's paths, the task's, the run's `--paths`): read for
 * uses the rename leaves behind. An unscoped rename reads none.
 */
function outsideScope(step: RenameSymbolStep, run: RecipeRun): string[] {
  const inStep = step.paths ? compileGlobs(step.paths) : () => true;
  const inTask = run.options.rules.inTaskScope ?? (() => true);
  return run.workspace.paths().filter((path) => (!inStep(path) || !inTask(path)) && languageForPath(path) !== undefined && !run.options.rules.isLockfile(path));
}

/** Whether the step may create `path` (a moved file): the step's and the task's scopes and the policy allow it. */
function canCreate(step: RenameSymbolStep, run: RecipeRun, path: string): boolean {
  const inStep = step.paths ? compileGlobs(step.paths)(path) : true;
  return inStep && (run.options.rules.inTaskScope?.(path) ?? true) && run.options.isEditable(path);
}

/** An identifier renamed through the syntax tree; the whole workspace is planned at once (a clash anywhere refuses it). */
export const renameSymbolRecipe: Recipe<'rename-symbol'> = {
  name: 'rename-symbol',
  step: RECIPE_STEPS['rename-symbol'],
  isCandidate: (_step, path) => languageForPath(path) !== undefined,
  applyToFile,
  matches: (step, file, ctx) => editMatches(applyToFile(step, file, ctx)),
  leftAlone: () => [],
  apply: (step, run) =>
    renameInWorkspace(
      step,
      run.candidates.filter((path) => !run.leaveAlone(path)),
      run.workspace,
      run.options.syntax,
      (path, forEditing) => run.read(path, forEditing),
      outsideScope(step, run),
      (path) => canCreate(step, run, path),
    ),
  editsHistory: false,
  converges: true,
  dependency: () => undefined,
  targetTerm: (step) => step.from,
  asWritten: (step) => step,
  wording: {
    step: (step) => `rename ${step.kind ? `${step.kind} ` : ''}${step.from} to ${step.to}`,
    several: () => undefined,
    changeKind: 'mechanical rename',
  },
  commitType: 'refactor',
  mapProfile: 'symbol-change',
  suggestions: [
    {
      pattern: new RegExp(
        `\\brename\\s+(?:the\\s+)?(?:(class|interface|function|method|field|variable|type)\\s+)?\`?(${IDENT})\`?\\s+(?:to|into|as)\\s+\`?(${IDENT})\`?`,
        'gi',
      ),
      step: (m) => ({ recipe: 'rename-symbol', from: m[2], to: m[3], ...(m[1] ? { kind: m[1].toLowerCase() } : {}) }),
    },
  ],
};
