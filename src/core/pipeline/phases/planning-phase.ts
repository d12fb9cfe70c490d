import { z } from 'zod';
import { recipeCandidates } from '../../engines/recipe/recipe-candidates.js';
import { possibleMoveTargets } from '../../engines/recipe/rename-file-move.js';
import type { PhaseContext, PhaseHandler } from '../../phases/orchestrator.js';
import { compileGlobs } from '../../paths/glob.js';
import { writeDenial, type WritePolicy } from '../../paths/write-rules.js';
import { maxEditableBytes } from '../../policy/agent-policy.js';
import { RecipeStep } from '../../task/recipe-steps.js';
import { annotatedPaths, CiCluster, ciClusters } from '../ci-clusters.js';
import { topLevelModule } from '../parse-clusters.js';
import { editablePaths, viewsFor, type PipelineEnv } from '../pipeline-env.js';
import { inferredOf } from '../inferred-steps.js';
import { stopAtPlanGate } from '../plan-gate-stop.js';
import { discoveryOf } from './discovery-phase.js';
import { requestedTaskOf, taskOf } from './intake-phase.js';

export const Segment = z.object({
  id: z.string(),
  engine: z.enum(['recipe', 'llm']),
  step: RecipeStep.optional(),
  /** Files the segment may change: for a recipe, exactly the files it can change. */
  paths: z.array(z.string()),
  /** For a repair segment: what is broken, as the checks say it (the model is told). */
  problems: z.array(z.string()).optional(),
});
export type Segment = z.infer<typeof Segment>;

export const Plan = z.object({
  strategy: z.enum(['recipe', 'llm', 'analysis']),
  reason: z.string(),
  segments: z.array(Segment),
  /** CI failures of a repair follow-up, clustered: the repair phase works on these after the change. */
  repairs: z.array(CiCluster).default([]),
});
export type Plan = z.infer<typeof Plan>;

/** Every file the plan lets a writing phase touch: the segments' files and the CI repair clusters' files. */
export function plannedPaths(plan: Plan): Set<string> {
  return new Set([...plan.segments.flatMap((s) => s.paths), ...plan.repairs.flatMap((c) => c.files.map((f) => f.path))]);
}

export function planOf(outputs: Readonly<Record<string, unknown>>): Plan {
  return Plan.parse(outputs.planning);
}

/**
 * Planning: one segment per recipe step, scoped to the files that step can change inside the
 * task and step scopes; one model segment when there are no steps and a model is configured;
 * otherwise analysis (no changes), and the report says so.
 */
export function planningPhase(env: PipelineEnv): PhaseHandler {
  return {
    name: 'planning',
    async run(context) {
      const task = taskOf(context.outputs);
      const discovery = discoveryOf(context.outputs);
      const views = viewsFor(env, task);
      const editable = editablePaths(context.workspace, views.rules);
      const tooLarge = new Set<string>();
      const limit = maxEditableBytes(env.policy);
      // A file over the policy's size limit is never edited, whichever segment would reach it.
      const withinSize = async (paths: string[]): Promise<string[]> => {
        const out: string[] = [];
        for (const p of paths) {
          if ((await context.workspace.read(p)).length > limit) tooLarge.add(p);
          else out.push(p);
        }
        return out;
      };
      let plan: Plan;
      let proseNotGrounded = false;
      if (task.mode === 'analysis') {
        plan = { strategy: 'analysis', reason: 'the task asks for analysis only', segments: [], repairs: [] };
      } else if (task.steps.length > 0) {
        const segments: Segment[] = [];
        for (const [index, step] of task.steps.entries()) {
          const stepScope = step.paths ? compileGlobs(step.paths) : () => true;
          const paths = await withinSize(
            recipeCandidates(
              step,
              editable.filter((p) => stepScope(p)),
              views.rules.isLockfile,
            ),
          );
          // A rename may move a file to the type's new name: the change phase may write that file too.
          const moves = step.recipe === 'rename-symbol' ? possibleMoveTargets(step, paths).filter((p) => !context.workspace.entry(p) && stepScope(p)) : [];
          segments.push({ id: `step-${index + 1}-${step.recipe}`, engine: 'recipe', step, paths: [...paths, ...moves] });
        }
        plan = { strategy: 'recipe', reason: recipeReason(context.outputs, segments.length), segments, repairs: [] };
      } else if (env.model) {
        const targets = await withinSize(discovery.targets.filter((t) => t.allowedToEdit).map((t) => t.path));
        plan = {
          strategy: 'llm',
          reason: 'no recipe steps: the model makes the change within the selected targets',
          segments: [{ id: 'model-change', engine: 'llm', paths: targets }],
          repairs: [],
        };
      } else {
        proseNotGrounded = proseUnconfirmed(context.outputs);
        plan = {
          strategy: 'analysis',
          reason: proseNotGrounded
            ? "the issue's words name a change the repository does not confirm, and no model is configured: nothing runs on a guess"
            : 'the task has no steps and no model is configured: analysis only',
          segments: [],
          repairs: [],
        };
      }
      const ci = plan.strategy !== 'analysis' && env.model ? await ciRepairs(env, context, views.rules) : undefined;
      if (ci) plan.repairs = ci.clusters;
      await context.ledger.append({
        actor: 'orchestrator',
        phase: 'planning',
        type: 'PLAN_MADE',
        payload: {
          strategy: plan.strategy,
          segments: plan.segments.map((s) => ({ id: s.id, files: s.paths.length })),
          repairs: plan.repairs.map((c) => ({ id: c.id, files: c.files.length })),
        },
      });
      const decisions = [plan.reason];
      if (ci && (ci.clusters.length > 0 || ci.skipped.length > 0)) {
        const files = ci.clusters.reduce((n, c) => n + c.files.length, 0);
        decisions.push(
          `CI failures: ${files} annotated file(s) in ${ci.clusters.length} repair cluster(s)${ci.skipped.length > 0 ? `; not repaired: ${ci.skipped.map((x) => `${x.path} (${x.why})`).join(', ')}` : ''}`,
        );
      }
      if (tooLarge.size > 0)
        decisions.push(`not edited, over the ${env.policy.ingestion.maxFileSizeMb} MB file size limit: ${[...tooLarge].sort().join(', ')}`);
      if (plan.strategy === 'analysis') {
        return {
          output: plan,
          summary: plan.reason,
          decisions,
          stop: { state: 'COMPLETED', reason: proseNotGrounded ? 'PROSE_NOT_GROUNDED' : 'ANALYSIS_ONLY' },
        };
      }
      const gated = await stopAtPlanGate(env, context, task, plan, plannedPaths(plan));
      if (gated) return { ...gated, decisions };
      return { output: plan, summary: `${plan.segments.length} segment(s), strategy ${plan.strategy}`, decisions };
    },
  };
}

/** Why recipe steps run: written in the task block, or read from the issue's words and grounded. */
function recipeReason(outputs: Readonly<Record<string, unknown>>, count: number): string {
  const read = inferredOf(outputs)?.mode === 'run' && requestedTaskOf(outputs).steps.length === 0;
  return read
    ? `${count} recipe step(s) read from the issue's words and confirmed by the repository; no model is asked`
    : `${count} deterministic recipe step(s); no model is asked`;
}

/** The issue's words asked for something (read or not) that the repository did not confirm, and the policy runs what prose asks. */
function proseUnconfirmed(outputs: Readonly<Record<string, unknown>>): boolean {
  const inferred = inferredOf(outputs);
  return inferred?.mode === 'run' && (inferred.readings.length > 0 || inferred.unread.length > 0);
}

/**
 * The CI repair clusters of a CI repair follow-up: annotated files that exist as regular files,
 * are editable under the policy and the task scope, and are within the size limit.
 */
async function ciRepairs(env: PipelineEnv, context: PhaseContext, rules: WritePolicy) {
  const report = env.followUp?.kind === 'ci-repair' ? env.followUp.ciFailures : undefined;
  if (!report) return undefined;
  const refused = new Map<string, string | undefined>();
  for (const p of annotatedPaths(report)) {
    const entry = context.workspace.entry(p);
    if (!isRegular(entry?.mode)) refused.set(p, 'not a file of the repository');
    else if (writeDenial(p, rules) || !rules.isEditable(p)) refused.set(p, writeDenial(p, rules)?.message ?? 'not editable under the policy or the task scope');
    else if ((await context.workspace.read(p)).length > maxEditableBytes(env.policy))
      refused.set(p, `over the ${env.policy.ingestion.maxFileSizeMb} MB file size limit`);
  }
  return ciClusters(report, topLevelModule, (p) => refused.get(p));
}

function isRegular(mode: string | undefined): boolean {
  return mode === '100644' || mode === '100755';
}
