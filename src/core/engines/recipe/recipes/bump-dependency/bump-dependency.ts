import { RECIPE_STEPS, type BumpDependencyStep } from '../../../../task/recipe-steps.js';
import { applyBumpDependency, bumpKindFor, bumpMismatches } from '../../bump-dependency-recipe.js';
import { listWords } from '../../list-words.js';
import { lockfilesFor } from '../../lockfiles-to-refresh.js';
import { compiledRequirements, pinsLeft } from '../../manifests/pins-left.js';
import type { Recipe } from '../../recipe.js';
import { matchesWithPending, ownResult, type RecipeMatch } from '../../recipe-match.js';
import { editEachFile, finishRun, type RecipeRun } from '../../recipe-run.js';
import type { FileRecipeResult, PendingMavenProperty } from '../../recipe-types.js';
import { NOT_A_PACKAGE } from '../../suggestion.js';
import { resolveParentProperty } from './parent-poms.js';

const applyToFile = (step: BumpDependencyStep, file: { path: string; text: string }): FileRecipeResult | undefined =>
  ownResult(applyBumpDependency(step, file));

/** A pom whose version is a property defined in a parent pom matches at the property's use: the parent is edited for it. */
function matches(step: BumpDependencyStep, file: { path: string; text: string }): RecipeMatch[] {
  return matchesWithPending(applyBumpDependency(step, file), file.text);
}

/** After the manifests: parent poms holding version properties, the lockfiles to refresh, and what still pins the package. */
async function followThrough(step: BumpDependencyStep, run: RecipeRun, pending: { pom: string; pending: PendingMavenProperty }[]): Promise<void> {
  for (const one of pending) await resolveParentProperty(run, one.pom, one.pending, step);
  const changed = [...run.changed.keys()];
  run.result.lockfilesToRefresh = lockfilesFor(changed, run.workspace, step.package);
  const skipped = new Map(run.result.skipped.map((s) => [s.path, s.reason] as const));
  const { isEditable, maxFileBytes, rules } = run.options;
  const left = await pinsLeft(step, run.workspace, {
    inScope: run.inScope,
    changed: new Set(changed),
    skipped,
    isEditable,
    maxFileBytes,
    isLockfile: rules.isLockfile,
  });
  for (const note of left) run.notes.add(note);
  for (const note of compiledRequirements(changed, new Set(run.workspace.paths()))) run.notes.add(note);
}

/** One dependency's version changed in every manifest that declares it; lockfiles are left with the command to refresh them. */
export const bumpDependencyRecipe: Recipe<'bump-dependency'> = {
  name: 'bump-dependency',
  step: RECIPE_STEPS['bump-dependency'],
  isCandidate: (step, path) => bumpKindFor(path, step.package) !== undefined,
  applyToFile,
  matches,
  leftAlone: bumpMismatches,
  apply: async (step, run) => {
    const pending: { pom: string; pending: PendingMavenProperty }[] = [];
    await editEachFile(run, (file) => {
      const bump = applyBumpDependency(step, file);
      for (const one of bump?.pending ?? []) pending.push({ pom: file.path, pending: one });
      return bump;
    });
    await followThrough(step, run, pending);
    return finishRun(run);
  },
  // Only manifests are candidates, never history files: nothing to guard.
  editsHistory: true,
  converges: true,
  dependency: (step) => step.package,
  targetTerm: (step) => step.package,
  asWritten: (step) => step,
  wording: {
    step: (step) => `bump ${step.package}${step.from ? ` from ${step.from}` : ''} to ${step.to}`,
    several: (steps) => `bump ${listWords(steps.map((s) => s.package))}`,
    changeKind: 'dependency version change',
  },
  commitType: 'build',
  mapProfile: 'dependency-upgrade',
  suggestions: [
    {
      pattern: /\b(?:bump|upgrade|update)\s+`?([@\w][\w@./:-]*)`?\s+(?:from\s+`?v?[\w.^~+-]+`?\s+)?to\s+`?v?(\d[\w.+-]*)`?/gi,
      step: (m) => (NOT_A_PACKAGE.has(m[1].toLowerCase()) ? undefined : { recipe: 'bump-dependency', package: m[1], to: m[2].replace(/\.$/, '') }),
    },
  ],
};
