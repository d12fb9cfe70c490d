import { z } from 'zod';
import { diffWorkspaceChanges } from '../../git/git-diff.js';
import type { PhaseHandler } from '../../phases/orchestrator.js';
import { changeOriginOf, changeRisk } from '../../risk/change-risk.js';
import { viewsFor, type PipelineEnv } from '../pipeline-env.js';
import { guardScope, stopForScope } from '../scope-check.js';
import { ChangeOutput } from './change-phase.js';
import { requestedTaskOf, taskOf } from './intake-phase.js';
import { inferredOf } from '../inferred-steps.js';

const LEVELS = ['LOW', 'MEDIUM', 'HIGH'] as const;

export const ReviewOutput = z.object({
  diffSummary: z.object({
    baseCommitSha: z.string(),
    headSha: z.string(),
    filesChanged: z.number().int(),
    insertions: z.number().int(),
    deletions: z.number().int(),
    files: z.array(
      z.object({
        path: z.string(),
        kind: z.string(),
        insertions: z.number().int(),
        deletions: z.number().int(),
        risk: z.string(),
        reason: z.string(),
        generated: z.boolean(),
        binary: z.boolean(),
      }),
    ),
    warnings: z.array(z.string()),
  }),
  risk: z.object({ riskScore: z.number(), riskLevel: z.enum(LEVELS), reasons: z.array(z.string()), requiredGate: z.string() }),
  scope: z.object({
    status: z.string(),
    violations: z.array(z.object({ rule: z.string(), path: z.string().optional(), message: z.string() })),
    gateId: z.string().optional(),
  }),
});
export type ReviewOutput = z.infer<typeof ReviewOutput>;

export function reviewOf(outputs: Readonly<Record<string, unknown>>): ReviewOutput {
  return ReviewOutput.parse(outputs.diff_boundary_review);
}

/**
 * Diff-boundary review: the whole diff against scope, policy, budgets and risk (the risk score
 * raised by the policy's risk rules). Risk at or above `agent.approval.minRisk`,
 * `requireApprovalFor` and out-of-scope paths
 * stop for approval unless this attempt carries the approval of that gate.
 */
export function reviewPhase(env: PipelineEnv): PhaseHandler {
  return {
    name: 'diff_boundary_review',
    async run(context) {
      const task = taskOf(context.outputs);
      const views = viewsFor(env, task);
      await context.runtime.use('git_diff');
      const diff = await diffWorkspaceChanges(context.workspace, { rules: views.rules });
      const change = ChangeOutput.safeParse(context.outputs.mechanical_change);
      const segments = change.success ? change.data.segments : [];
      const risk = changeRisk(diff.summary.files, views.rules, {
        // The request's task, as the publisher sees it: steps read from prose weigh like a model's change.
        origin: changeOriginOf(requestedTaskOf(context.outputs)),
        minRisk: views.policy.agent.approval.minRisk,
        updates: segments.flatMap((s) => s.updates ?? []),
        incomplete: segments.flatMap((s) => s.incomplete ?? []),
      });
      // Named for the reviewer; the level stays what the publisher recomputes.
      for (const domain of inferredOf(context.outputs)?.newDomains ?? [])
        risk.reasons.push(`the change writes links to ${domain}, a domain the repository did not contain: the issue's words brought it in`);
      const level = risk.riskLevel;
      const reasons = risk.reasons;
      const verdict = await guardScope(env, context, task, context.workspace, { level, reasons });
      const output: ReviewOutput = {
        diffSummary: diff.summary,
        risk,
        scope: { status: verdict.status, violations: verdict.violations, gateId: verdict.gateId },
      };
      const stop = await stopForScope(env, context, verdict, output);
      if (stop) return stop;
      return {
        output,
        summary: `${diff.summary.filesChanged} file(s), +${diff.summary.insertions}/-${diff.summary.deletions}, risk ${level} (${risk.riskScore})`,
        risks: reasons,
        decisions: verdict.violations.length > 0 ? [`approved gate ${verdict.gateId}`] : [],
      };
    },
  };
}
