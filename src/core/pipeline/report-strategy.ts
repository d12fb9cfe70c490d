import type { LedgerEntry } from '../phases/ledger.js';
import type { RunReportInput } from '../phases/run-report-schema.js';
import { describeStep } from '../publish/pr-text.js';
import type { RecipeStep } from '../task/recipe-steps.js';
import type { ChangeOutput } from './phases/change-phase.js';
import type { Plan, Segment } from './phases/planning-phase.js';
import { planRevisions, type PlanRevision } from './plan-revision.js';

// The run report's strategy: what the plan said it would do, and what its model segments did.

/** The strategy as the reviewer reads it: the engine, each step in words, and why the planner chose it. */
export function strategyOf(plan: Plan | undefined, change: ChangeOutput | undefined, ledger: readonly LedgerEntry[]): RunReportInput['strategy'] {
  const revisions = planRevisions(ledger);
  return {
    engine: plan ? (plan.strategy === 'analysis' ? 'none' : plan.strategy) : 'none',
    steps: (plan?.segments ?? []).map((s) => (s.step ? stepInWords(s.step) : modelStepInWords(s, change, revisions))),
    notes: plan ? [plan.reason] : [],
  };
}

/**
 * A model segment in words: the files it changed (what it wrote, not what it was offered), of the
 * files its plan held in the end (after the model's revisions).
 */
function modelStepInWords(segment: Segment, change: ChangeOutput | undefined, revisions: readonly PlanRevision[]): string {
  const revised = revisions.filter((r) => r.segment === segment.id);
  const planned = revised.at(-1)?.after ?? segment.paths;
  const plan = `${files(planned.length)} in the plan${revised.length > 0 ? ` as revised ${revised.length}×` : ''}`;
  const done = change?.segments.find((c) => c.id === segment.id);
  return done ? `the model changed ${files(done.changedFiles.length)} (${plan})` : `the model changes the planned files (${plan})`;
}

function files(n: number): string {
  return `${n} ${n === 1 ? 'file' : 'files'}`;
}

/** A step as the reviewer reads it: the recipe and what it does, with its own path scope. */
export function stepInWords(step: RecipeStep): string {
  return `${step.recipe}: ${describeStep(step)}${step.paths ? ` (in ${step.paths.join(', ')})` : ''}`;
}
