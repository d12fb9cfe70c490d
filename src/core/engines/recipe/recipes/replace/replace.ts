import { RECIPE_STEPS, type ReplaceStep } from '../../../../task/recipe-steps.js';
import type { Recipe } from '../../recipe.js';
import { editMatches } from '../../recipe-match.js';
import { applyFileByFile } from '../../recipe-run.js';
import { applyReplace } from '../../replace-recipe.js';

function quote(text: string): string {
  return `"${text.replace(/\s+/g, ' ')}"`;
}

const applyToFile = (step: ReplaceStep, file: { path: string; text: string }) => applyReplace(step, file.text);

/** A literal or pattern replaced in any text file. Not convergent: `a` -> `aa` matches again. */
export const replaceRecipe: Recipe<'replace'> = {
  name: 'replace',
  step: RECIPE_STEPS.replace,
  isCandidate: () => true,
  applyToFile,
  matches: (step, file) => editMatches(applyToFile(step, file)),
  leftAlone: () => [],
  apply: (_step, run) => applyFileByFile(run),
  editsHistory: false,
  converges: false,
  dependency: () => undefined,
  targetTerm: (step) => step.find,
  // Defaults the parser fills in again are left out.
  asWritten: (step) => ({
    ...step,
    ...(step.regex ? {} : { regex: undefined }),
    ...(step.flags ? {} : { flags: undefined }),
    ...(step.wordBoundary === 'auto' ? { wordBoundary: undefined } : {}),
  }),
  wording: {
    step: (step) => `replace ${step.regex ? 'the pattern ' : ''}${quote(step.find)} with ${quote(step.replace)}`,
    several: () => undefined,
    changeKind: 'mechanical text replacement',
  },
  commitType: 'by-paths',
  mapProfile: 'general',
  suggestions: [{ pattern: /\breplace\s+`([^`\n]+)`\s+(?:with|by)\s+`([^`\n]*)`/gi, step: (m) => ({ recipe: 'replace', find: m[1], replace: m[2] }) }],
};
