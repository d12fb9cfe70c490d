import { applyFormatterParity } from '../../engines/recipe/formatters/formatter-parity.js';
import { maxEditableBytes } from '../../policy/agent-policy.js';
import { z } from 'zod';
import { BudgetUsage, Exhaustion } from '../../budget/budget.js';
import { applyRecipe } from '../../engines/recipe/apply-recipe.js';
import type { PhaseContext, PhaseHandler, PhaseOutcome } from '../../phases/orchestrator.js';
import type { TaskContract } from '../../task/task-contract.js';
import { runModelSegment } from '../model-segment.js';
import { viewsFor, type PipelineEnv } from '../pipeline-env.js';
import { guardScope, stopForScope } from '../scope-check.js';
import { taskOf } from './intake-phase.js';
import { DependencyUpdateSchema } from '../../phases/run-report-schema.js';
import { planOf, type Segment } from './planning-phase.js';

export const SegmentResult = z.object({
  id: z.string(),
  engine: z.enum(['recipe', 'llm']),
  changedFiles: z.array(z.object({ path: z.string(), edits: z.number().int() })),
  skipped: z.array(z.object({ path: z.string(), reason: z.string() })),
  notes: z.array(z.string()),
  lockfilesToRefresh: z.array(z.object({ lockfile: z.string(), command: z.string() })),
  /** Dependency versions a bump moved, with the update kind the ecosystem's version order gives. */
  updates: z.array(DependencyUpdateSchema).optional(),
  /** Files the segment moved (a renamed public Java class to the file of its new name). */
  moves: z.array(z.object({ from: z.string(), to: z.string() })).optional(),
  /** Why the segment's change is incomplete (uses of a renamed name left outside its scope). */
  incomplete: z.array(z.string()).optional(),
  patchKey: z.string().optional(),
  model: z
    .object({
      calls: z.number().int(),
      tokens: z.number().int(),
      status: z.string(),
      reason: z.string().optional(),
      summary: z.string(),
      usage: BudgetUsage.optional(),
      exhausted: Exhaustion.optional(),
    })
    .optional(),
});
export type SegmentResult = z.infer<typeof SegmentResult>;

export const ChangeOutput = z.object({ segments: z.array(SegmentResult) });
export type ChangeOutput = z.infer<typeof ChangeOutput>;

export function changeOf(outputs: Readonly<Record<string, unknown>>): ChangeOutput {
  return ChangeOutput.parse(outputs.mechanical_change);
}

/**
 * Mechanical change: each segment in order (a recipe step, or the model within the targets),
 * each recorded as one patch of the patch stack, with the scope guard after every segment and
 * the cancel marker checked between them.
 */
export function changePhase(env: PipelineEnv): PhaseHandler {
  return {
    name: 'mechanical_change',
    async run(context) {
      const task = taskOf(context.outputs);
      const plan = planOf(context.outputs);
      const results: SegmentResult[] = [];
      for (const segment of plan.segments) {
        if (await context.cancelled()) {
          return { output: { segments: results }, summary: 'cancelled between segments', stop: { state: 'CANCELLED', reason: 'CANCELLED' } };
        }
        const result = segment.engine === 'recipe' ? await recipeSegment(env, context, task, segment) : await modelSegment(env, context, task, segment);
        result.patchKey = await context.recordSegment(segment.id);
        results.push(result);
        await context.ledger.append({
          actor: 'engine',
          phase: 'mechanical_change',
          type: 'SEGMENT_APPLIED',
          payload: { segment: segment.id, changed: result.changedFiles.length, skipped: result.skipped.length },
          evidenceRefs: result.patchKey ? [result.patchKey] : [],
        });
        if (result.model && result.model.status === 'BUDGET_EXCEEDED') {
          const done = {
            segmentsApplied: results.length - 1,
            filesChanged: context.workspace
              .changes()
              .map((c) => c.path)
              .sort(),
          };
          const details = { ...(result.model.exhausted ? { exhausted: result.model.exhausted } : {}), done };
          return {
            output: { segments: results },
            summary: `model budget exhausted in ${segment.id}`,
            stop: { state: 'BUDGET_EXCEEDED', reason: 'MODEL_BUDGET_EXCEEDED', details },
          };
        }
        // A model that failed (provider error, refusal, loop) leaves its change half done: nothing of it is published.
        if (result.model && result.model.status === 'FAILED') {
          const reason = result.model.reason ?? 'MODEL_ERROR';
          return {
            output: { segments: results },
            summary: `model failed in ${segment.id}: ${reason}`,
            stop: { state: 'FAILED', reason, details: { segment: segment.id, summary: result.model.summary } },
          };
        }
        const verdict = await guardScope(env, context, task, context.workspace);
        const stop = await stopForScope(env, context, verdict, { segments: results });
        if (stop) return stop;
      }
      const output: ChangeOutput = { segments: results };
      const changed = results.reduce((n, r) => n + r.changedFiles.length, 0);
      if (context.workspace.changes().length === 0) {
        const outcome: PhaseOutcome = {
          output,
          summary: 'no file changed',
          stop: { state: 'FAILED', reason: 'NO_CHANGES', details: { segments: results.map((r) => ({ id: r.id, skipped: r.skipped.length, notes: r.notes })) } },
        };
        return outcome;
      }
      return { output, summary: `${plan.segments.length} segment(s) applied, ${changed} file edit(s)`, decisions: results.flatMap((r) => r.notes) };
    },
  };
}

/** A model segment; a change it completed comes out as the project's formatter would leave it, as a recipe's does. */
async function modelSegment(env: PipelineEnv, context: PhaseContext, task: TaskContract, segment: Segment): Promise<SegmentResult> {
  const result = await runModelSegment(env, context, task, segment);
  if (result.model && result.model.status !== 'DONE') return result;
  const changed = result.changedFiles.map((f) => f.path);
  const notes = await applyFormatterParity({ workspace: context.workspace, loadWasm: env.syntax.loadWasm }, changed);
  return notes.length > 0 ? { ...result, notes: [...result.notes, ...notes] } : result;
}

async function recipeSegment(env: PipelineEnv, context: PhaseContext, task: TaskContract, segment: Segment): Promise<SegmentResult> {
  if (!segment.step) throw new Error(`segment ${segment.id} has no recipe step`);
  await context.runtime.use('recipe_apply', { segment: segment.id });
  const views = viewsFor(env, task);
  const result = await applyRecipe(segment.step, context.workspace, {
    paths: segment.paths,
    syntax: env.syntax,
    isEditable: (path) => views.rules.isEditable(path),
    maxFileBytes: maxEditableBytes(env.policy),
    taskPaths: task.paths,
    editHistory: env.policy.editRules.historyFiles.default === 'edited',
    rules: views.rules,
  });
  return {
    id: segment.id,
    engine: 'recipe',
    changedFiles: result.changedFiles.map((f) => ({ path: f.path, edits: f.edits.length })),
    skipped: result.skipped.map((s) => ({ path: s.path, reason: s.reason })),
    notes: result.notes,
    lockfilesToRefresh: result.lockfilesToRefresh,
    ...(result.updates?.length ? { updates: result.updates } : {}),
    ...(result.moves?.length ? { moves: result.moves } : {}),
    ...(result.incomplete?.length ? { incomplete: result.incomplete } : {}),
  };
}
