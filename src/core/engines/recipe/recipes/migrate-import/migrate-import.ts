import { languageForPath } from '../../../../syntax/language-for-path.js';
import { RECIPE_STEPS, type MigrateImportStep } from '../../../../task/recipe-steps.js';
import { lockfilesFor } from '../../lockfiles-to-refresh.js';
import { manifestKindFor } from '../../../../manifests/manifest-kinds.js';
import { followThrough } from '../../manifests/follow-through.js';
import { goModuleOf } from '../../manifests/follow-go.js';
import { nearest } from '../../manifests/follow-types.js';
import { applyMigrateImport } from '../../migrate-import-recipe.js';
import type { Recipe } from '../../recipe.js';
import { editMatches } from '../../recipe-match.js';
import { MODULE } from '../../suggestion.js';
import { editEachFile, finishRun, type RecipeRun } from '../../recipe-run.js';
import { applySpanEdits } from '../../span-edits.js';

const applyToFile = applyMigrateImport;

/** The builds owning the changed files declare what the new imports need (edits with `version`, notes otherwise). */
async function declareDependencies(step: MigrateImportStep, run: RecipeRun): Promise<void> {
  const cache = new Map<string, Promise<string | undefined>>();
  const { options, inScope } = run;
  const follow = await followThrough(step, [...run.changed.keys()], {
    paths: run.workspace.paths(),
    read: (path) => {
      if (!cache.has(path))
        cache.set(
          path,
          run.read(path, false).then((r) => ('text' in r ? r.text : undefined)),
        );
      return cache.get(path)!;
    },
    cannotEdit: (path) =>
      !options.isEditable(path) ? 'the policy does not let recipes edit it' : !inScope.has(path) ? "it is outside the step's scope" : undefined,
  });
  for (const note of follow.notes) run.notes.add(note);
  for (const edit of follow.edits) {
    const readable = await run.read(edit.path);
    const out = 'text' in readable ? applySpanEdits(readable.text, 'spans' in edit ? edit.spans : edit.then(readable.text)) : undefined;
    if (out) await run.write(edit.path, out);
  }
  // Every module whose Go files changed imports has a go.sum to refresh (a nested module's too),
  // whether or not its go.mod was edited; other ecosystems lock what their edited manifests declare.
  const paths = new Set(run.workspace.paths());
  const goModules = [...run.changed.keys()].filter((p) => p.endsWith('.go')).flatMap((p) => nearest(p, 'go.mod', paths) ?? []);
  const manifests = [...new Set([...follow.edits.map((e) => e.path).filter((path) => run.changed.has(path)), ...goModules])].sort();
  const dependency = follow.dependency ?? (goModules.length > 0 ? goModuleOf(step.to) : undefined);
  if (dependency) run.result.lockfilesToRefresh = lockfilesFor(manifests, run.workspace, dependency);
}

/** Imports moved from one package or module to another; with a version, the new dependency is declared too. */
export const migrateImportRecipe: Recipe<'migrate-import'> = {
  name: 'migrate-import',
  step: RECIPE_STEPS['migrate-import'],
  // With a version the step may also declare the new dependency in the owning build's manifest.
  isCandidate: (step, path) => languageForPath(path) !== undefined || (step.version !== undefined && manifestKindFor(path) !== undefined),
  applyToFile,
  matches: (step, file, ctx) => editMatches(applyToFile(step, file, ctx)),
  leftAlone: () => [],
  apply: async (step, run) => {
    await editEachFile(run, run.editFile);
    if (run.changed.size) await declareDependencies(step, run);
    return finishRun(run);
  },
  editsHistory: false,
  converges: true,
  dependency: () => undefined,
  targetTerm: (step) => step.from,
  asWritten: (step) => step,
  wording: {
    step: (step) => `move imports from ${step.from} to ${step.to}`,
    several: () => undefined,
    changeKind: 'mechanical import change',
  },
  commitType: 'refactor',
  mapProfile: 'import-migration',
  suggestions: [
    {
      pattern: new RegExp(`\\bmigrate\\s+(?:the\\s+)?(?:imports?\\s+)?(?:from\\s+)?\`?(${MODULE})\`?\\s+to\\s+\`?(${MODULE})\`?`, 'gi'),
      step: (m) => ({ recipe: 'migrate-import', from: m[1], to: m[2] }),
    },
  ],
};
