import type { RecipeName } from '../task/recipe-steps.js';

/**
 * A recipe step as read from prose: the recipe and its parameters, not yet checked against the
 * task block schema (grounding against the repository does that). `constrain-dependency` is
 * read here even where the schema does not name it yet.
 */
export interface CandidateStep {
  recipe: RecipeName | 'constrain-dependency';
  [param: string]: unknown;
}

/** Where in the issue a reading was found. */
export type ProseSource = 'title' | 'body' | 'table' | 'list';

/** Who wrote the words, judged by their shape (a bot's fixed wording, or anything else). */
export type WordingSource = 'dependabot' | 'renovate' | 'person';

/**
 * One way the issue asks for a recipe step. `plain` when every parameter is written out;
 * `inferred` when one is filled in by reading (a major-only version such as `v9`, bare identifiers
 * without code marks).
 */
export interface ProseReading {
  step: CandidateStep;
  source: ProseSource;
  /** The words it was read from, clipped. */
  text: string;
  /** The version the words say the dependency comes from (a bump's or a constraint's old value). */
  from?: string;
  confidence: 'plain' | 'inferred';
  wordingSource?: WordingSource;
  /**
   * The package is a GitHub Actions reference: `named` when the words say so (Renovate's
   * "… action to v4", a table's `action` type), `likely` for an `owner/name` a Dependabot title
   * bumps (Composer packages look the same). Grounding refuses these unless a recipe edits workflows.
   */
  action?: 'named' | 'likely';
}

/** Words that ask for something the reader could not turn into a step, and why. */
export interface UnreadProse {
  text: string;
  why: string;
}

export interface ProseReadings {
  readings: ProseReading[];
  unread: UnreadProse[];
  /**
   * Items of a person's list that ask for a change no reading covers ("test with 36", "avoid
   * requiring JDK 21"): the steps read are then not the whole request, and nothing runs.
   */
  beyond: UnreadProse[];
}
