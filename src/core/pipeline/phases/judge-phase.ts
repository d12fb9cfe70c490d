import { applyRecipeToFile } from '../../engines/recipe/apply-recipe-to-file.js';
import { recipeFor } from '../../engines/recipe/registry.js';
import { isPartialFailure, type JudgeVerdict, type VerificationReport } from '../../git/verification-report.js';
import type { PhaseHandler } from '../../phases/orchestrator.js';
import type { PipelineEnv } from '../pipeline-env.js';
import { revisedPlanPaths } from '../plan-revision.js';
import { changeOf } from './change-phase.js';
import { planOf } from './planning-phase.js';
import { verificationOf } from './verification-phase.js';
import { COMMAND_STATUS_TEXT, commandFailed } from '../../verify/command-result.js';

/**
 * The judge, deterministic for recipe runs: the objective is met when applying each idempotent
 * recipe again changes nothing; the change overreaches when it touches a file no segment
 * planned; the evidence suffices when the required verification passed.
 */
export function judgePhase(env: PipelineEnv): PhaseHandler {
  return {
    name: 'judge',
    async run(context) {
      const plan = planOf(context.outputs);
      const change = changeOf(context.outputs);
      const verification = verificationOf(context.outputs);
      const reasons: string[] = [];
      let verdict: JudgeVerdict['verdict'] = 'ACCEPT';
      const planned = revisedPlanPaths(plan, context.ledger.entries());
      const changed = context.workspace.changes().map((c) => c.path);
      const overreach = changed.filter((p) => !planned.has(p));
      if (overreach.length > 0) {
        verdict = 'REJECT';
        reasons.push(`changed files no segment planned: ${overreach.join(', ')}`);
      }
      const evidence = evidenceVerdict(
        env,
        verification.report,
        change.segments.flatMap((s) => s.incomplete ?? []),
      );
      if (evidence.verdict === 'REJECT' || (evidence.verdict === 'NEEDS_REVIEW' && verdict === 'ACCEPT')) verdict = evidence.verdict;
      reasons.push(...evidence.reasons);
      for (const segment of plan.segments) {
        const result = change.segments.find((r) => r.id === segment.id);
        if (!result || result.changedFiles.length === 0) {
          if (verdict === 'ACCEPT') verdict = 'NEEDS_REVIEW';
          reasons.push(`${segment.id} changed no file`);
          continue;
        }
        const step = segment.step;
        if (!step || !recipeFor(step).converges) continue;
        await context.runtime.use('file_read', { segment: segment.id });
        const unfinished: string[] = [];
        for (const path of segment.paths) {
          if (!context.workspace.entry(path)) continue;
          const bytes = await context.workspace.read(path);
          if (bytes.includes(0)) continue;
          const again = applyRecipeToFile(step, { path, text: new TextDecoder().decode(bytes) }, { syntax: env.syntax });
          if (again && again.edits.length > 0) unfinished.push(path);
        }
        if (unfinished.length > 0) {
          if (verdict === 'ACCEPT') verdict = 'NEEDS_REVIEW';
          reasons.push(`${segment.id} would still change: ${unfinished.slice(0, 10).join(', ')}`);
        } else reasons.push(`${segment.id}: applying it again changes nothing (objective met for ${result.changedFiles.length} file(s))`);
      }
      const judge: JudgeVerdict = { verdict, reasons };
      await context.ledger.append({ actor: 'orchestrator', phase: 'judge', type: 'JUDGE_VERDICT', payload: judge });
      if (verdict === 'REJECT') {
        return { output: judge, summary: `judge rejected: ${reasons.join('; ')}`, stop: { state: 'FAILED', reason: 'JUDGE_REJECTED', details: { reasons } } };
      }
      return { output: judge, summary: `judge: ${verdict}`, decisions: reasons };
    },
  };
}

/**
 * What the evidence says: a failed verification rejects, unless the policy publishes partial
 * changes and only the parse and name checks failed (a reviewer decides, told what is broken);
 * an incomplete change needs review.
 */
function evidenceVerdict(
  env: PipelineEnv,
  report: VerificationReport,
  incomplete: readonly string[],
): { verdict?: JudgeVerdict['verdict']; reasons: string[] } {
  const failing = (report.commands ?? []).filter(commandFailed).map((c) => `project check failing: ${c.run} (${COMMAND_STATUS_TEXT[c.status]})`);
  const reasons = [...failing, ...incomplete.map((why) => `incomplete: ${why}`)];
  if (report.status === 'PASSED') return { verdict: reasons.length > 0 ? 'NEEDS_REVIEW' : undefined, reasons };
  if (env.policy.agent.publishPartial && isPartialFailure(report))
    return { verdict: 'NEEDS_REVIEW', reasons: ['required verification did not pass: published as a partial change (agent.publishPartial)', ...reasons] };
  return { verdict: 'REJECT', reasons: ['required verification did not pass', ...reasons] };
}
