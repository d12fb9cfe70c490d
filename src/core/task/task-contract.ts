import { z } from 'zod';
import { PathGlobs, RecipeStep } from './recipe-steps.js';

/** Most recipe steps one task may give; phase step budgets are bounded by it. */
export const MAX_TASK_STEPS = 50;

/** The keys of the ```agent block; unknown keys are errors. */
export const TaskBlock = z
  .strictObject({
    mode: z.enum(['draft_pr', 'analysis']).optional().describe('draft_pr (default) opens a draft PR; analysis only reports. `/agent analyze` forces analysis.'),
    base: z.string().min(1).max(255).optional().describe("Base ref to start from; default: the repository's default branch."),
    paths: PathGlobs.optional().describe(
      'Scope of the change: globs relative to the repository root; a plain directory means dir/**; absent = whole repository.',
    ),
    steps: z.array(RecipeStep).max(MAX_TASK_STEPS).optional().describe('Deterministic recipes applied in order.'),
    budgets: z
      .strictObject({
        maxFiles: z.number().int().positive().optional().describe('Most files to change; capped by the policy.'),
        maxLines: z.number().int().positive().optional().describe('Most changed lines; capped by the policy.'),
        maxModelCalls: z.number().int().nonnegative().optional().describe('Most model calls; 0 means recipes only.'),
      })
      .optional()
      .describe('Optional limits for this task, never above the policy.'),
  })
  .meta({ title: 'draftsman ```agent task block', description: 'The YAML inside the first ```agent fenced block of the triggering comment or issue body.' });
export type TaskBlock = z.infer<typeof TaskBlock>;

/** Terms the target search looks for, each with where it came from. */
export const SearchTerm = z.object({
  term: z.string(),
  /** literal: quoted text searched verbatim (a message, a flag, a rule id); stack-frame: a file path from a stack trace. */
  kind: z.enum(['recipe-parameter', 'symbol', 'package', 'quoted-identifier', 'path', 'literal', 'stack-frame']),
  source: z.string(),
});
export type SearchTerm = z.infer<typeof SearchTerm>;

/** The parsed task: what the run is asked to do, derived only from the request snapshot. */
export const TaskContract = z.object({
  schemaVersion: z.literal(1),
  title: z.string(),
  objective: z.string(),
  mode: z.enum(['draft_pr', 'analysis']),
  base: z.string().optional(),
  paths: z.array(z.string()).optional(),
  steps: z.array(RecipeStep),
  budgets: z.object({
    maxFiles: z.number().int().positive().optional(),
    maxLines: z.number().int().positive().optional(),
    maxModelCalls: z.number().int().nonnegative().optional(),
  }),
  searchTerms: z.array(SearchTerm),
  /** specific: has steps or named symbols; exploratory: neither. */
  kind: z.enum(['specific', 'exploratory']),
  /** Where the block came from: the comment, the issue body, the CLI, or none. */
  blockSource: z.enum(['comment', 'issue', 'cli', 'none']),
  /** sha256 of the canonical task; the CLI's task identity. */
  digest: z.string(),
});
export type TaskContract = z.infer<typeof TaskContract>;
