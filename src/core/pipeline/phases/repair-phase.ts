import { z } from 'zod';
import type { PhaseContext, PhaseHandler, PhaseOutcome } from '../../phases/orchestrator.js';
import type { TaskContract } from '../../task/task-contract.js';
import { runModelSegment } from '../model-segment.js';
import { changedNameProblems, describeNames, dropUnusedGoImports } from '../name-problems.js';
import { parseClusters, topLevelModule } from '../parse-clusters.js';
import type { PipelineEnv } from '../pipeline-env.js';
import { guardScope, stopForScope } from '../scope-check.js';
import { taskOf } from './intake-phase.js';
import { describeCommand, describeFailure, type CommandResult } from '../../verify/command-result.js';
import { runProjectChecks } from '../project-checks.js';
import { planOf } from './planning-phase.js';

export const RepairOutput = z.object({
  clustersFound: z.number().int(),
  repaired: z.array(z.string()),
  remaining: z.array(z.object({ id: z.string(), files: z.array(z.string()), first: z.string() })),
  iterations: z.number().int(),
  /** CI repair clusters of a CI follow-up worked on (each once: CI runs again on the pushed change, not here). */
  ciClusters: z.array(z.object({ id: z.string(), files: z.array(z.string()) })).default([]),
  /** Names the change left unresolved or imports it left unused: found, fixed by a recipe follow-up, fixed by the model, left. */
  names: z.object({ found: z.number().int(), byRecipe: z.array(z.string()), remaining: z.number().int() }).optional(),
  /** The project's own checks (agent.verify) with a model: commands failing before repair, model rounds, commands failing after. */
  checks: z.object({ failing: z.number().int(), rounds: z.number().int(), remaining: z.number().int() }).optional(),
});
export type RepairOutput = z.infer<typeof RepairOutput>;

const MAX_REPAIR_ITERATIONS = 2;

/**
 * Local repair: every changed file must still parse. Problems are clustered (module, error
 * type) into repair segments; a model, when configured, gets a bounded number of iterations per
 * cluster. Without a model nothing is guessed: the run fails and says which files broke.
 */
export function repairPhase(env: PipelineEnv): PhaseHandler {
  return {
    name: 'local_repair',
    async run(context) {
      await context.runtime.use('verify_parse');
      const task = taskOf(context.outputs);
      const ci = env.model ? planOf(context.outputs).repairs : [];
      let iterations = 0;
      // CI clusters first: their edits are parsed with everything else below.
      for (const cluster of ci) {
        if (await context.cancelled()) return { output: null, summary: 'cancelled', stop: { state: 'CANCELLED', reason: 'CANCELLED' } };
        iterations += 1;
        const id = `repair-${cluster.id}`;
        await runModelSegment(env, context, task, { id, engine: 'llm', paths: cluster.files.map((f) => f.path) });
        await context.recordSegment(id);
        const stop = await stopForScope(env, context, await guardScope(env, context, task, context.workspace), null);
        if (stop) return stop;
      }
      let { clusters } = await parseClusters(context.workspace, env.syntax, topLevelModule);
      const found = clusters.length;
      const repaired: string[] = [];
      if (env.model) {
        for (let round = 0; round < MAX_REPAIR_ITERATIONS && clusters.length > 0; round++) {
          for (const cluster of clusters) {
            if (await context.cancelled()) return { output: null, summary: 'cancelled', stop: { state: 'CANCELLED', reason: 'CANCELLED' } };
            iterations += 1;
            await runModelSegment(env, context, task, { id: `repair-${cluster.id}-${round + 1}`, engine: 'llm', paths: cluster.files.map((f) => f.path) });
            await context.recordSegment(`repair-${cluster.id}-${round + 1}`);
            const verdict = await guardScope(env, context, task, context.workspace);
            const stop = await stopForScope(env, context, verdict, null);
            if (stop) return stop;
          }
          const before = new Set(clusters.map((c) => c.id));
          clusters = (await parseClusters(context.workspace, env.syntax, topLevelModule)).clusters;
          for (const id of before) if (!clusters.some((c) => c.id === id)) repaired.push(id);
        }
      }
      const names = await repairNames(env, context, task);
      if ('stop' in names) return names.stop;
      const checks = clusters.length === 0 ? await repairChecks(env, context, task) : { summary: undefined };
      if ('stop' in checks) return checks.stop;
      const output: RepairOutput = {
        clustersFound: found,
        repaired: repaired.sort(),
        remaining: clusters.map((c) => ({
          id: c.id,
          files: c.files.map((f) => f.path),
          first: `${c.files[0].path}:${c.files[0].problems[0].line}:${c.files[0].problems[0].column}: ${c.files[0].problems[0].message}`,
        })),
        iterations,
        ciClusters: ci.map((c) => ({ id: c.id, files: c.files.map((f) => f.path) })),
        names: names.summary,
        ...(checks.summary ? { checks: checks.summary } : {}),
      };
      if (clusters.length > 0) {
        return {
          output,
          summary: `${clusters.length} cluster(s) of parse problems remain`,
          stop: { state: 'FAILED', reason: 'CHANGED_FILES_DO_NOT_PARSE', details: { remaining: output.remaining } },
        };
      }
      const ciNote = ci.length > 0 ? `; worked on ${ci.length} CI failure cluster(s)` : '';
      return {
        output,
        summary: `${found === 0 ? 'every changed file parses; nothing to repair' : `repaired ${repaired.length} parse cluster(s)`}${ciNote}; ${iterations} iteration(s)`,
      };
    },
  };
}

/**
 * The names check, before verification runs it: an unused Go import is dropped (as goimports
 * would), and with a model each file that still has problems gets bounded repair segments told
 * what broke. What remains is verification's to report (and to stop on, unless the policy
 * publishes partial changes).
 */
async function repairNames(
  env: PipelineEnv,
  context: PhaseContext,
  task: TaskContract,
): Promise<{ summary: NonNullable<RepairOutput['names']> } | { stop: PhaseOutcome }> {
  let problems = await changedNameProblems(context.workspace);
  const found = problems.length;
  const byRecipe = found > 0 ? await dropUnusedGoImports(context.workspace, problems) : [];
  if (byRecipe.length > 0) {
    await context.recordSegment('repair-unused-go-imports');
    problems = await changedNameProblems(context.workspace);
  }
  for (let round = 0; env.model && round < MAX_REPAIR_ITERATIONS && problems.length > 0; round++) {
    const files = [...new Set(problems.map((p) => p.path))].sort();
    const id = `repair-names-${round + 1}`;
    if (await context.cancelled()) return { stop: { output: null, summary: 'cancelled', stop: { state: 'CANCELLED', reason: 'CANCELLED' } } };
    await runModelSegment(env, context, task, { id, engine: 'llm', paths: files, problems: describeNames(problems).split('; ').slice(1) });
    await context.recordSegment(id);
    const stop = await stopForScope(env, context, await guardScope(env, context, task, context.workspace), null);
    if (stop) return { stop };
    problems = await changedNameProblems(context.workspace);
  }
  return { summary: { found, byRecipe, remaining: problems.length } };
}

/** Failures, then the end of the output, of the commands that failed: what a repair segment is told. */
function checkProblems(failed: readonly CommandResult[]): string[] {
  return failed.flatMap((c) => [
    describeCommand(c),
    ...c.failures.slice(0, 10).map(describeFailure),
    ...(c.excerpt ? [`end of its output:\n${c.excerpt.split('\n').slice(-15).join('\n')}`] : []),
  ]);
}

/** Most files one checks repair segment may edit: the changed files first, then those the failures name. */
const MAX_CHECK_REPAIR_FILES = 20;

/**
 * The project's own checks, with a model: run them on the change; while some fail, a bounded
 * number of repair segments get the failures (tests, file:line, the end of the output) and may
 * edit the changed files and the files the failures name; the checks run again after each.
 * Verification runs them once more on the final change and decides.
 */
async function repairChecks(
  env: PipelineEnv,
  context: PhaseContext,
  task: TaskContract,
): Promise<{ summary: RepairOutput['checks'] } | { stop: PhaseOutcome }> {
  if (!env.model || env.policy.agent.verify.runner === 'none') return { summary: undefined };
  let checks = await runProjectChecks(env, context);
  const failing = checks.failed.length;
  let rounds = 0;
  for (; rounds < MAX_REPAIR_ITERATIONS && checks.failed.length > 0; rounds++) {
    if (await context.cancelled()) return { stop: { output: null, summary: 'cancelled', stop: { state: 'CANCELLED', reason: 'CANCELLED' } } };
    const named = checks.failed
      .flatMap((c) => c.failures.map((f) => f.file))
      .filter((p): p is string => p !== undefined && context.workspace.entry(p) !== undefined);
    const files = [...new Set([...context.workspace.changes().map((c) => c.path), ...named])].slice(0, MAX_CHECK_REPAIR_FILES);
    const id = `repair-checks-${rounds + 1}`;
    await runModelSegment(env, context, task, { id, engine: 'llm', paths: files, problems: checkProblems(checks.failed) });
    await context.recordSegment(id);
    const stop = await stopForScope(env, context, await guardScope(env, context, task, context.workspace), null);
    if (stop) return { stop };
    checks = await runProjectChecks(env, context);
  }
  return { summary: { failing, rounds, remaining: checks.failed.length } };
}
