import { RECIPE_STEPS, type ConstrainDependencyStep } from '../../../../task/recipe-steps.js';
import { bumpKindFor } from '../../bump-dependency-recipe.js';
import { constrainDeclared, parseRangeInput, type RangeInput } from '../../constrain-range.js';
import { constraintSites, mavenPropertySite, type ConstraintSite } from '../../constrain-sites.js';
import { listWords } from '../../list-words.js';
import { lockfilesFor } from '../../lockfiles-to-refresh.js';
import type { Recipe } from '../../recipe.js';
import { matchesWithPending, ownResult, type RecipeMatch } from '../../recipe-match.js';
import { editEachFile, finishRun, type RecipeRun } from '../../recipe-run.js';
import type { FileRecipeResult, PendingMavenProperty, SpanEdit } from '../../recipe-types.js';
import { applySpanEdits } from '../../span-edits.js';
import { NOT_A_PACKAGE } from '../../suggestion.js';
import { parentDefining } from '../bump-dependency/parent-poms.js';

const goNote = (pkg: string) =>
  `${pkg}: Go modules declare no version ranges (go.mod requires a minimum version and the build selects the lowest one every module allows); go.mod is left alone`;

/** The new constraint of each site, or the note that says why it stays. */
function constrainSites(step: ConstrainDependencyStep, input: RangeInput, sites: readonly ConstraintSite[]): { spans: SpanEdit[]; notes: string[] } {
  const out: { spans: SpanEdit[]; notes: string[] } = { spans: [], notes: [] };
  for (const site of sites) {
    const next = constrainDeclared(site.flavour, site.current, input, { label: site.label, allowDowngrade: step.allowDowngrade });
    if ('note' in next) out.notes.push(next.note);
    else out.spans.push({ start: site.start, end: site.end, text: next.text });
  }
  return out;
}

/** One manifest: every declaration of the package gets the constraint; a pom's `${property}` defined elsewhere is pending. */
export function constrainFile(
  step: ConstrainDependencyStep,
  file: { path: string; text: string },
): (FileRecipeResult & { pending: PendingMavenProperty[] }) | undefined {
  const kind = bumpKindFor(file.path, step.package);
  if (!kind) return undefined;
  const found = constraintSites(kind, file.text, step.package);
  if (found.goRequire) return { text: file.text, edits: [], notes: [goNote(step.package)], pending: [] };
  const edits = constrainSites(step, parseRangeInput(step.range), found.sites);
  const result = applySpanEdits(file.text, edits.spans, [...found.notes, ...edits.notes]);
  if (result) return { ...result, pending: found.pending };
  return found.pending.length ? { text: file.text, edits: [], notes: [], pending: found.pending } : undefined;
}

function applyToFile(step: ConstrainDependencyStep, file: { path: string; text: string }): FileRecipeResult | undefined {
  return ownResult(constrainFile(step, file));
}

/** A pom whose version is a property defined in a parent matches at the property's use, as bump-dependency's does. */
function matches(step: ConstrainDependencyStep, file: { path: string; text: string }): RecipeMatch[] {
  return matchesWithPending(constrainFile(step, file), file.text);
}

/** The property in the parent pom that defines it, constrained there (once per parent and property). */
async function constrainParentProperty(step: ConstrainDependencyStep, run: RecipeRun, pom: string, property: string, done: Set<string>): Promise<void> {
  const parent = await parentDefining(run, pom, property);
  if (!parent || done.has(`${parent.path}\n${property}`)) return;
  done.add(`${parent.path}\n${property}`);
  const site = mavenPropertySite(parent.text, property, `${step.package} (\${${property}})`);
  if (!site) return;
  const edits = constrainSites(step, parseRangeInput(step.range), [site]);
  const out = applySpanEdits(parent.text, edits.spans, edits.notes);
  if (out) await run.write(parent.path, out);
}

const isCap = (range: string) => /^\s*<=?\s*v?\d[\w.+-]*\s*$/.test(range);
const isPin = (range: string) => /^\s*==?\s*v?\d[\w.+-]*\s*$/.test(range);

function describe(step: ConstrainDependencyStep): string {
  const version = step.range.replace(/^\s*[<=]+\s*/, '').trim();
  if (isPin(step.range)) return `pin ${step.package} to ${version}`;
  if (isCap(step.range)) return `cap ${step.package} ${step.range.includes('=') ? 'at' : 'below'} ${version}`;
  return `constrain ${step.package} to ${step.range.trim()}`;
}

const PACKAGE = '`?([@\\w][\\w@./:-]*)`?';
const VERSION = '`?v?(\\d+(?:\\.\\d+)*)(?![\\w])`?';
const named = (pkg: string) => !NOT_A_PACKAGE.has(pkg.toLowerCase());

/**
 * A dependency's declared constraint set in every manifest that declares it (cap, pin, widen),
 * in each ecosystem's own syntax; lockfiles are left with the command to refresh them.
 */
export const constrainDependencyRecipe: Recipe<'constrain-dependency'> = {
  name: 'constrain-dependency',
  step: RECIPE_STEPS['constrain-dependency'],
  isCandidate: (step, path) => bumpKindFor(path, step.package) !== undefined,
  applyToFile,
  matches,
  leftAlone: (step, file) => {
    const result = constrainFile(step, file);
    return result && result.edits.length === 0 ? result.notes : [];
  },
  apply: async (step, run) => {
    const pending: { pom: string; property: string }[] = [];
    await editEachFile(run, (file) => {
      const result = constrainFile(step, file);
      for (const { property } of result?.pending ?? []) pending.push({ pom: file.path, property });
      return result;
    });
    const done = new Set<string>();
    for (const one of pending) await constrainParentProperty(step, run, one.pom, one.property, done);
    run.result.lockfilesToRefresh = lockfilesFor([...run.changed.keys()], run.workspace, step.package);
    return finishRun(run);
  },
  // Only manifests are candidates, never history files: nothing to guard.
  editsHistory: true,
  converges: true,
  dependency: (step) => step.package,
  targetTerm: (step) => step.package,
  asWritten: (step) => step,
  wording: {
    step: describe,
    several: (steps) => `constrain ${listWords(steps.map((s) => s.package))}`,
    changeKind: 'dependency constraint change',
  },
  commitType: 'build',
  mapProfile: 'dependency-upgrade',
  suggestions: [
    {
      pattern: new RegExp(`\\bpin\\s+${PACKAGE}\\s+(?:to|at)\\s+${VERSION}`, 'gi'),
      step: (m) => (named(m[1]) ? { recipe: 'constrain-dependency', package: m[1], range: `==${m[2]}` } : undefined),
    },
    {
      pattern: new RegExp(`\\b(?:cap|keep)\\s+${PACKAGE}\\s+(?:below|under)\\s+${VERSION}`, 'gi'),
      step: (m) => (named(m[1]) ? { recipe: 'constrain-dependency', package: m[1], range: `<${m[2]}` } : undefined),
    },
  ],
};
