import { z } from 'zod';
import type { PhaseHandler } from '../../phases/orchestrator.js';
import type { PipelineEnv } from '../pipeline-env.js';
import { planOf } from './planning-phase.js';

export const Baseline = z.object({
  ci: z.object({ state: z.string(), checks: z.array(z.object({ name: z.string(), conclusion: z.string().nullable(), status: z.string() })) }),
  /** Files of the plan that already did not parse at the base commit, with their problem count. */
  preexistingParseProblems: z.record(z.string(), z.number().int()),
});
export type Baseline = z.infer<typeof Baseline>;

export function baselineOf(outputs: Readonly<Record<string, unknown>>): Baseline {
  return Baseline.parse(outputs.baseline);
}

/**
 * Baseline: the CI state of the base commit (through CiStatusReader; "unavailable" locally) and
 * which planned files already fail to parse, so pre-existing failures are not blamed on the change.
 */
export function baselinePhase(env: PipelineEnv): PhaseHandler {
  return {
    name: 'baseline',
    async run(context) {
      await context.runtime.use('ci.read');
      const ci = await env.ciStatus.read(context.workspace.baseCommitSha);
      const plan = planOf(context.outputs);
      await context.runtime.use('verify.parse');
      const preexisting: Record<string, number> = {};
      const files = [...new Set(plan.segments.flatMap((s) => s.paths))].sort();
      for (const path of files) {
        const problems = env.syntax.parseProblems(path, await context.workspace.readText(path));
        if (problems.length > 0) preexisting[path] = problems.length;
      }
      const baseline: Baseline = {
        ci: { state: ci.state, checks: ci.checks.map((c) => ({ name: c.name, conclusion: c.conclusion, status: c.status })) },
        preexistingParseProblems: preexisting,
      };
      const broken = Object.keys(preexisting).length;
      return {
        output: baseline,
        summary: `base CI ${ci.state}; ${broken} planned file(s) already fail to parse`,
        risks: broken > 0 ? [`${broken} file(s) did not parse before the change`] : [],
      };
    },
  };
}
