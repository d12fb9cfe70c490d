import { z } from 'zod';
import { PathGlobs, RecipeStep } from './recipe-steps.js';

/** The keys of the ```agent block (DESIGN §6); unknown keys are errors. */
export const TaskBlock = z.strictObject({
  mode: z.enum(['draft_pr', 'analysis']).optional(),
  base: z.string().min(1).optional(),
  paths: PathGlobs.optional(),
  steps: z.array(RecipeStep).optional(),
  budgets: z
    .strictObject({
      maxFiles: z.number().int().positive().optional(),
      maxLines: z.number().int().positive().optional(),
      maxModelCalls: z.number().int().nonnegative().optional(),
    })
    .optional(),
});
export type TaskBlock = z.infer<typeof TaskBlock>;

/** Terms the target search looks for, each with where it came from. */
export const SearchTerm = z.object({
  term: z.string(),
  kind: z.enum(['recipe-parameter', 'symbol', 'package', 'quoted-identifier', 'path']),
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
