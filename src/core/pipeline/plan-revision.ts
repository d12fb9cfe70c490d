import { z } from 'zod';
import { AgentError } from '../errors.js';
import type { LedgerEntry } from '../phases/ledger.js';
import { plannedPaths, type Plan } from './phases/planning-phase.js';

/*
 * A revision answers new evidence (the plan missed a file, a planned file is the wrong one). No
 * count bounds them: what a revision may add is bounded by the task scope, the policy's write
 * rules and the run's file limit, and every revision costs a tool call of the phase's budget.
 */
/** Files one revision may add, and drop. */
export const MAX_REVISION_FILES = 20;
/** Characters of a revision's reason, and of each restated step. */
export const MAX_REVISION_TEXT = 500;
/** Restated steps one revision may carry. */
export const MAX_REVISION_STEPS = 20;

/** The ledger entry type of an accepted revision; refused ones are ledgered as TOOL_REFUSED. */
export const PLAN_REVISED = 'PLAN_REVISED';

/** What an accepted revision changed, as the ledger keeps it (`before` and `after` are the segment's files). */
export const PlanRevision = z.object({
  segment: z.string(),
  /** 1-based count of accepted revisions in the attempt. */
  revision: z.number().int().positive(),
  reason: z.string().max(MAX_REVISION_TEXT),
  added: z.array(z.string()),
  dropped: z.array(z.string()),
  steps: z.array(z.string().max(MAX_REVISION_TEXT)).max(MAX_REVISION_STEPS),
  before: z.array(z.string()),
  after: z.array(z.string()),
});
export type PlanRevision = z.infer<typeof PlanRevision>;

export type PlanRevisionReason = 'EMPTY_REVISION' | 'PATH_NOT_EDITABLE' | 'NOT_A_FILE' | 'FILE_TOO_LARGE' | 'FILE_LIMIT_EXCEEDED' | 'DROP_CHANGED_FILE';
export class PlanRevisionError extends AgentError<PlanRevisionReason> {}

/** The accepted revisions of an attempt, in order, from its ledger (so a resumed attempt sees them too). */
export function planRevisions(entries: readonly LedgerEntry[]): PlanRevision[] {
  return entries.filter((e) => e.type === PLAN_REVISED).map((e) => PlanRevision.parse(e.payload));
}

/**
 * Files accepted revisions added. The phase runtime lets a writing phase touch them, as it does
 * the planned files; a dropped file stays writable there (it is still in the plan), and only
 * the revised segment's own list narrows.
 */
export function revisedPaths(entries: readonly LedgerEntry[]): Set<string> {
  return new Set(planRevisions(entries).flatMap((r) => r.added));
}

/** Every file the plan, as revised so far, lets the change touch: what the judge holds the change to. */
export function revisedPlanPaths(plan: Plan, entries: readonly LedgerEntry[]): Set<string> {
  return new Set([...plannedPaths(plan), ...revisedPaths(entries)]);
}
