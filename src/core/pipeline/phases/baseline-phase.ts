import { z } from 'zod';
import type { PhaseHandler } from '../../phases/orchestrator.js';
import type { PipelineEnv } from '../pipeline-env.js';

export const Baseline = z.object({
  ci: z.object({ state: z.string(), checks: z.array(z.object({ name: z.string(), conclusion: z.string().nullable(), status: z.string() })) }),
});
export type Baseline = z.infer<typeof Baseline>;

export function baselineOf(outputs: Readonly<Record<string, unknown>>): Baseline {
  return Baseline.parse(outputs.baseline);
}

/**
 * Baseline: the CI state of the base commit (through CiStatusReader; "unavailable" locally), so
 * pre-existing failures are not blamed on the change. Files that did not parse at the base are
 * found lazily by the repair and verification phases, for the changed files only.
 */
export function baselinePhase(env: PipelineEnv): PhaseHandler {
  return {
    name: 'baseline',
    async run(context) {
      await context.runtime.use('ci_read');
      const ci = await env.ciStatus.read(context.workspace.baseCommitSha);
      const baseline: Baseline = { ci: { state: ci.state, checks: ci.checks.map((c) => ({ name: c.name, conclusion: c.conclusion, status: c.status })) } };
      const failing = baseline.ci.checks.filter((c) => c.conclusion && !['success', 'neutral', 'skipped'].includes(c.conclusion)).map((c) => c.name);
      return {
        output: baseline,
        summary: `base CI ${ci.state}${failing.length ? `; already failing: ${failing.join(', ')}` : ''}`,
        risks: failing.length > 0 ? [`checks failing before the change: ${failing.join(', ')}`] : [],
      };
    },
  };
}
