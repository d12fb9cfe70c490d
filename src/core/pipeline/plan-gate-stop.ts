import { serializeArtifact, writeArtifact } from '../artifacts/artifact-io.js';
import type { PhaseContext, PhaseOutcome } from '../phases/orchestrator.js';
import { PLAN_APPROVAL, PlanDocument, planDigest, planGateId, planGateRequired } from '../runs/plan-gate.js';
import { ApprovalRequest } from '../runs/run-request.js';
import type { TaskContract } from '../task/task-contract.js';
import { runLimits } from './model-budget.js';
import type { PipelineEnv } from './pipeline-env.js';
import { discoveryOf } from './phases/discovery-phase.js';
import type { Plan } from './phases/planning-phase.js';

/**
 * The plan gate (src/core/runs/plan-gate.ts): when the run must have its plan approved and this
 * attempt carries no approved plan, write `plan.json` and then the approval request, and stop in
 * NEEDS_APPROVAL with reason PLAN_APPROVAL before any change. The gate id here is the worker's
 * word; the publisher (or the CLI) digests the stored `plan.json` itself.
 */
export async function stopAtPlanGate(
  env: PipelineEnv,
  context: PhaseContext,
  task: TaskContract,
  plan: Plan,
  files: Iterable<string>,
): Promise<PhaseOutcome | undefined> {
  if (plan.strategy === 'analysis' || env.approvedPlan || !planGateRequired(env.request, env.policy)) return undefined;
  const keys = env.keys.attempt(env.attempt);
  const document = planDocument(env, context, task, plan, files);
  const text = serializeArtifact(keys.plan, PlanDocument, document);
  await env.store.put(keys.plan, text, { contentType: 'application/json' });
  const digest = planDigest(new TextEncoder().encode(text));
  const gateId = planGateId(digest);
  const message = `the plan waits for a maintainer's approval before any change: ${document.files.length} file(s) (${document.files.slice(0, 10).join(', ')}${document.files.length > 10 ? ', …' : ''})`;
  await writeArtifact(env.store, keys.approvalRequest, ApprovalRequest, {
    schemaVersion: 1,
    runId: env.request.runId,
    attempt: env.attempt,
    baseCommitSha: context.workspace.baseCommitSha,
    gateId,
    reason: PLAN_APPROVAL,
    changes: [],
    violations: [{ rule: PLAN_APPROVAL, message }],
    options: [
      { id: 'approve', description: "Approve this plan: the next attempt makes the change, held to the plan's files." },
      { id: 'narrow', description: 'Edit the task block (paths, steps) so the plan is the one you want, then retry.' },
      { id: 'cancel', description: 'Stop here; nothing is changed.' },
    ],
    recommended: 'approve',
    evidence: [keys.plan],
  });
  await context.ledger.append({ actor: 'orchestrator', phase: 'planning', type: 'PLAN_GATE', payload: { gateId, digest, files: document.files.length } });
  return {
    output: plan,
    summary: `plan approval needed: ${message}`,
    evidenceRefs: [keys.plan, keys.approvalRequest],
    stop: { state: 'NEEDS_APPROVAL', reason: PLAN_APPROVAL, details: { gateId, plan: keys.plan, files: document.files } },
  };
}

function planDocument(env: PipelineEnv, context: PhaseContext, task: TaskContract, plan: Plan, files: Iterable<string>): PlanDocument {
  const discovery = discoveryOf(context.outputs);
  const limits = runLimits(env, task);
  const byModel = plan.strategy === 'llm';
  return {
    schemaVersion: 1,
    runId: env.request.runId,
    attempt: env.attempt,
    baseCommitSha: context.workspace.baseCommitSha,
    strategy: byModel ? 'llm' : 'recipe',
    reason: plan.reason,
    targets: discovery.targets.map((t) => ({ path: t.path, reasons: t.reasons.slice(0, 20) })),
    segments: plan.segments.map((s) => ({ id: s.id, engine: s.engine, ...(s.step ? { recipe: s.step.recipe } : {}), files: [...s.paths].sort() })),
    files: [...files].sort(),
    estimatedSpend: byModel
      ? {
          modelCallsAtMost: limits.modelCalls ?? 0,
          ...(env.policy.agent.budgets.maxCostUsd !== undefined ? { costUsdAtMost: env.policy.agent.budgets.maxCostUsd } : {}),
          basis: 'the model makes the change: at most the model calls one attempt may make, and the cost cap of agent.budgets.maxCostUsd when set',
        }
      : { modelCallsAtMost: 0, costUsdAtMost: 0, basis: 'recipe steps only: no model is asked' },
  };
}
