import { writeArtifact } from '../artifacts/artifact-io.js';
import { diffWorkspaceChanges } from '../git/git-diff.js';
import type { PhaseContext, PhaseOutcome } from '../phases/orchestrator.js';
import { evaluateScope, type ScopeVerdict } from '../phases/scope-guard.js';
import { ApprovalRequest } from '../runs/run-request.js';
import type { TaskContract } from '../task/task-contract.js';
import type { Workspace } from '../workspace/workspace.js';
import { viewsFor, type PipelineEnv } from './pipeline-env.js';
import { outsiderOfRequest } from '../publish/check-approval.js';
import { requestedTaskOf } from './phases/intake-phase.js';
import { changeFirings } from '../publish/change-rules.js';

/** Run the scope guard over the workspace's whole change so far, and ledger the verdict. */
export async function guardScope(
  env: PipelineEnv,
  context: PhaseContext,
  task: TaskContract,
  workspace: Workspace,
  risk?: { level: 'LOW' | 'MEDIUM' | 'HIGH'; reasons: string[] },
): Promise<ScopeVerdict> {
  const views = viewsFor(env, task);
  const diff = await diffWorkspaceChanges(workspace, { rules: views.rules });
  const contentIds = new Map(diff.files.map((f) => [f.path, f.newOid ?? 'deleted']));
  const ruleFirings = await changeFirings(
    views.policy.agent.rules,
    diff.summary.files.map((f) => ({ path: f.path, deleted: f.kind === 'DELETED' })),
    {
      before: async (path) => (workspace.baseEntry(path) ? workspace.readBase(path) : undefined),
      after: async (path) => workspace.read(path),
    },
  );
  for (const f of ruleFirings) await context.ledger.append({ actor: 'scope-guard', phase: context.phase, type: 'RULE_FIRED', payload: { ...f } });
  const verdict = evaluateScope({
    changes: diff.summary.files.map((f) => ({
      path: f.path,
      kind: f.kind,
      insertions: f.insertions,
      deletions: f.deletions,
      contentId: contentIds.get(f.path) ?? 'deleted',
    })),
    rules: views.rules,
    limits: views.limits,
    riskLevel: risk?.level,
    riskReasons: risk?.reasons,
    approvalMinRisk: views.policy.agent.approval.minRisk,
    isGitlink: (path) => workspace.baseEntry(path)?.mode === '160000',
    approvedGates: env.approvedGates,
    ruleFirings,
    ...(env.approvedPlan ? { planFiles: env.approvedPlan.files } : {}),
    ...outsiderInput(env, context),
  });
  await context.ledger.append({
    actor: 'scope-guard',
    phase: context.phase,
    type: 'SCOPE_VERDICT',
    payload: { status: verdict.status, files: verdict.filesChanged, lines: verdict.linesChanged, violations: verdict.violations, gateId: verdict.gateId },
  });
  return verdict;
}

/**
 * The outcome that stops the run for a scope verdict other than PASS. NEEDS_APPROVAL writes
 * `approval-request.json` (reason, options, recommended, evidence) first.
 */
export async function stopForScope(env: PipelineEnv, context: PhaseContext, verdict: ScopeVerdict, output: unknown): Promise<PhaseOutcome | undefined> {
  if (verdict.status === 'PASS') return undefined;
  const reason = verdict.violations.map((v) => v.message).join('; ');
  if (verdict.status === 'NEEDS_APPROVAL') {
    const key = env.keys.attempt(env.attempt).approvalRequest;
    await writeArtifact(env.store, key, ApprovalRequest, {
      schemaVersion: 1,
      runId: env.request.runId,
      attempt: env.attempt,
      baseCommitSha: context.workspace.baseCommitSha,
      gateId: verdict.gateId ?? 'gate-unknown',
      reason,
      changes: verdict.changes ?? [],
      violations: verdict.violations,
      options: [
        { id: 'approve', description: 'Approve these paths and risks: the next attempt passes this gate and opens the draft PR.' },
        { id: 'narrow', description: 'Edit the task block (paths, steps) so the change stays in scope, then retry.' },
        { id: 'cancel', description: 'Stop here; nothing is published.' },
      ],
      recommended: verdict.violations.some((v) => v.rule === 'HIGH_RISK' || v.rule === 'MEDIUM_RISK') ? 'narrow' : 'approve',
      evidence: [env.keys.attempt(env.attempt).ledgerPrefix],
    });
    return {
      output,
      summary: `approval needed: ${reason}`,
      evidenceRefs: [key],
      stop: { state: 'NEEDS_APPROVAL', reason: 'APPROVAL_REQUIRED', details: { gateId: verdict.gateId, violations: verdict.violations } },
    };
  }
  const code = verdict.status === 'BLOCKED' ? (verdict.violations[0]?.rule ?? 'BLOCKED') : 'BUDGET_EXCEEDED';
  return {
    output,
    summary: `${verdict.status.toLowerCase()}: ${reason}`,
    stop: { state: verdict.status, reason: code, details: { violations: verdict.violations } },
  };
}

/** The outsider gate the publisher recomputes from the request: decided from the request's own task block, not the steps read from prose. */
function outsiderInput(env: PipelineEnv, context: PhaseContext): { outsiderWords?: string } {
  if (!context.outputs.intake) return {};
  const outsider = outsiderOfRequest(env.request, env.policy, requestedTaskOf(context.outputs));
  return outsider ? { outsiderWords: outsider } : {};
}
