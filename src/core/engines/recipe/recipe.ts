import type { RecipeName, RecipeStepEntry, StepOf } from '../../task/recipe-steps.js';
import type { CommitType } from '../../text/commit-types.js';
import type { RecipeMatch } from './recipe-match.js';
import type { RecipeRun } from './recipe-run.js';
import type { RecipeSuggestion } from './suggestion.js';
import type { ApplyRecipeResult, FileRecipeResult, RecipeContext } from './recipe-types.js';

/**
 * The map projections a task can ask for, most specific first: a task with steps of several
 * profiles gets the first. `general` is the map without a focus.
 */
export const MAP_PROFILES = ['dependency-upgrade', 'import-migration', 'symbol-change', 'general'] as const;
export type MapProfile = (typeof MAP_PROFILES)[number];

/** How a recipe's change reads in the PR title and body, the commit subject and the run report. */
export interface RecipeWording<S> {
  /** One step as a reviewer reads it (`bump lodash from 4.17.20 to 4.17.21`). */
  step(step: S): string;
  /** Several steps of this recipe in one subject (`bump a, b and c`); undefined: counted instead. */
  several(steps: readonly S[]): string | undefined;
  /** The kind of edit, for the risk section (`mechanical rename`). */
  changeKind: string;
}

/**
 * Everything that differs from one recipe to another (docs/architecture.md, `engines/`).
 * A recipe is a folder under `recipes/` exporting one of these, plus its step schema in
 * core/task/recipe-steps.ts; the registry lists it in one line.
 */
export interface Recipe<N extends RecipeName = RecipeName> {
  name: N;
  /** The step schema and its search parameters (core/task owns them: the task block is parsed there). */
  step: RecipeStepEntry<N>;
  /** Could the step change this path, by language or manifest kind (content is not read)? Lockfiles are ruled out before. */
  isCandidate(step: StepOf<N>, path: string): boolean;
  /** The step's edit of one file: pure; undefined when the file does not change (a result may carry notes only). */
  applyToFile(step: StepOf<N>, file: { path: string; text: string }, ctx: RecipeContext): FileRecipeResult | undefined;
  /** Where the step would change a file, without writing (target selection). */
  matches(step: StepOf<N>, file: { path: string; text: string }, ctx: RecipeContext): RecipeMatch[];
  /** Why a candidate file with no match is left as it is (a declaration at another version than `from`): target selection explains an empty selection with it. */
  leftAlone(step: StepOf<N>, file: { path: string; text: string }): string[];
  /** The step over the workspace: the edits, then the follow-through (manifests to declare, parent poms, lockfiles to refresh). */
  apply(step: StepOf<N>, run: RecipeRun): Promise<ApplyRecipeResult>;
  /** Whether the step may change history files (changelogs) without the task naming them. */
  editsHistory: boolean;
  /** Applying the step again to its own output changes nothing (the judge re-applies it to find what is left). */
  converges: boolean;
  /** The dependency the step changes in manifests, when it is about one (its lockfiles need a refresh). */
  dependency(step: StepOf<N>): string | undefined;
  /** The term target selection files the step's matches under. */
  targetTerm(step: StepOf<N>): string;
  /** The step as a maintainer would write it: options the parser fills in with their defaults left out. */
  asWritten(step: StepOf<N>): Partial<StepOf<N>>;
  wording: RecipeWording<StepOf<N>>;
  /** The conventional commit type; `by-paths` for a change typed by the files it touched (docs, ci, test, source). */
  commitType: CommitType | 'by-paths';
  /** The map projection the step's task needs. */
  mapProfile: MapProfile;
  /** How a task without steps may name this recipe in its words (the analysis report suggests the step). */
  suggestions: readonly RecipeSuggestion[];
}
