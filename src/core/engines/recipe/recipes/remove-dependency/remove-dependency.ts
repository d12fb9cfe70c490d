import { RECIPE_STEPS, type RemoveDependencyStep } from '../../../../task/recipe-steps.js';
import type { TextBump } from '../../bump-gradle.js';
import { listWords } from '../../list-words.js';
import { lockfilesFor } from '../../lockfiles-to-refresh.js';
import { manifestKindFor } from '../../../../manifests/manifest-kinds.js';
import type { ManifestKind } from '../../../../manifests/manifest-schema.js';
import type { Recipe } from '../../recipe.js';
import { editMatches } from '../../recipe-match.js';
import { editEachFile, finishRun } from '../../recipe-run.js';
import type { FileRecipeResult } from '../../recipe-types.js';
import { applySpanEdits } from '../../span-edits.js';
import { NOT_A_PACKAGE } from '../../suggestion.js';
import { removeGoMod, removeNpm, removeRequirements } from './remove-declarations.js';

/** The manifests a declaration is removed from, by kind. */
const REMOVERS: Partial<Record<ManifestKind, (text: string, step: RemoveDependencyStep) => TextBump>> = {
  'package.json': removeNpm,
  requirements: removeRequirements,
  'go.mod': removeGoMod,
};

function applyToFile(step: RemoveDependencyStep, file: { path: string; text: string }): FileRecipeResult | undefined {
  const kind = manifestKindFor(file.path);
  const remove = kind && REMOVERS[kind];
  if (!remove) return undefined;
  const removal = remove(file.text, step);
  const result = applySpanEdits(file.text, removal.spans, removal.notes);
  return result ?? (removal.notes.length ? { text: file.text, edits: [], notes: removal.notes } : undefined);
}

/**
 * A dependency dropped from every manifest that declares it. The code that imports it is not
 * touched: the task removes those uses (or the build says where they are).
 */
export const removeDependencyRecipe: Recipe<'remove-dependency'> = {
  name: 'remove-dependency',
  step: RECIPE_STEPS['remove-dependency'],
  isCandidate: (_step, path) => {
    const kind = manifestKindFor(path);
    return kind !== undefined && REMOVERS[kind] !== undefined;
  },
  applyToFile,
  matches: (step, file) => editMatches(applyToFile(step, file)),
  leftAlone: () => [],
  apply: async (step, run) => {
    await editEachFile(run, (file) => applyToFile(step, file));
    const changed = [...run.changed.keys()];
    if (changed.length) {
      run.result.lockfilesToRefresh = lockfilesFor(changed, run.workspace, step.package);
      run.notes.add(`remove-dependency edits manifests only: code that still imports ${step.package} must change too`);
    }
    return finishRun(run);
  },
  // Only manifests are candidates, never history files: nothing to guard.
  editsHistory: true,
  converges: true,
  dependency: (step) => step.package,
  targetTerm: (step) => step.package,
  asWritten: (step) => step,
  wording: {
    step: (step) => `remove ${step.package}`,
    several: (steps) => `remove ${listWords(steps.map((s) => s.package))}`,
    changeKind: 'dependency removal',
  },
  commitType: 'build',
  mapProfile: 'dependency-upgrade',
  suggestions: [
    {
      pattern: /\b(?:remove|drop)\s+(?:the\s+)?(?:unused\s+)?(?:dependency|package)\s+(?:on\s+)?`?([@\w][\w@./-]*)`?/gi,
      step: (m) => {
        const pkg = m[1].replace(/\.$/, '');
        return NOT_A_PACKAGE.has(pkg.toLowerCase()) ? undefined : { recipe: 'remove-dependency', package: pkg };
      },
    },
  ],
};
