import type { PrCandidate } from '../git/pr-candidate.js';
import type { RiskReport } from '../risk/risk-score.js';
import { evaluateScope, type ScopeVerdict } from '../phases/scope-guard.js';
import type { PolicyViews } from '../paths/policy-views.js';
import type { TaskContract } from '../task/task-contract.js';
import { changeOriginOf, changeRisk } from '../risk/change-risk.js';
import { PublishError } from './publish-error.js';
import { outsiderWords } from '../prose/outsider-words.js';
import type { RunRequest } from '../runs/run-request.js';
import type { AgentPolicy } from '../policy/agent-policy.js';
import { changeRuleFirings, type RuleFiring } from '../paths/policy-rules.js';

/**
 * Approval and risk recomputed from the TRUSTED policy and the changed paths, never from the
 * candidate's own risk report: `requireApprovalFor`, out-of-scope paths, the policy's risk rules,
 * risk at or above `agent.approval.minRisk` and files outside an approved plan (`planFiles`, from
 * the trusted approval marker) need the approval of exactly this gate. The
 * change's origin (recipes or model) comes from the trusted task, as in the review phase.
 * Budgets are checked by re-validation (from the blobs), so the scope guard runs here without them.
 */
export function checkApproval(
  candidate: PrCandidate,
  views: PolicyViews,
  task: Pick<TaskContract, 'steps'>,
  approvedGates: readonly string[],
  outsider?: string,
  ruleFirings?: readonly RuleFiring[],
  planFiles?: readonly string[],
): PublishError | undefined {
  const changes = candidate.files.map((f) => ({ path: f.path, contentId: 'deleted' in f ? 'deleted' : f.blobSha }));
  const { verdict, risk } = trustedGate(changes, views, task, approvedGates, outsider, ruleFirings, planFiles);
  const problems = verdict.violations.map((v) => ({ reason: v.rule, rule: v.rule, path: v.path, message: v.message }));
  if (verdict.status === 'NEEDS_APPROVAL') {
    return new PublishError('APPROVAL_REQUIRED', 'the trusted policy requires an approval this attempt does not carry', {
      gateId: verdict.gateId,
      riskLevel: risk.riskLevel,
      candidateRiskLevel: candidate.risk.riskLevel,
      problems,
    });
  }
  const denied = problems.filter((p) => p.reason === 'RULE_DENIED');
  if (denied.length > 0) return new PublishError('RULE_DENIED', `the trusted policy denies the change: ${denied[0].message}`, { problems: denied });
  if (verdict.status !== 'PASS') return new PublishError('REVALIDATION_FAILED', 'the candidate fails the scope guard under the trusted policy', { problems });
  return undefined;
}

/**
 * The gate a change stops at under the trusted policy and task: the scope guard over the changed
 * paths and their contents (`deleted` for a deletion), with the risk recomputed from the paths.
 * The publisher runs it on a candidate, and on the paths an attempt that stopped for approval
 * names, so the gate a maintainer approves and the gate a publication must carry are one.
 */
export function trustedGate(
  changes: readonly { path: string; contentId: string }[],
  views: PolicyViews,
  task: Pick<TaskContract, 'steps'>,
  approvedGates: readonly string[] = [],
  outsider?: string,
  ruleFirings?: readonly RuleFiring[],
  planFiles?: readonly string[],
): { verdict: ScopeVerdict; risk: RiskReport } {
  // Without the contents at hand, the change rules are matched by path and kind: require-approval
  // rules never depend on added lines, so the gate is the same either way.
  const firings =
    ruleFirings ??
    changeRuleFirings(
      views.policy.agent.rules,
      changes.map((c) => ({ path: c.path, deleted: c.contentId === 'deleted', addedLines: [] })),
    );
  const files = changes.map((c) => ({ path: c.path, kind: c.contentId === 'deleted' ? 'DELETED' : 'MODIFIED' }));
  const risk = changeRisk(files, views.rules, { origin: changeOriginOf(task), minRisk: views.policy.agent.approval.minRisk });
  const verdict = evaluateScope({
    changes: changes.map((c, i) => ({ ...files[i], insertions: 0, deletions: 0, contentId: c.contentId })),
    rules: views.rules,
    limits: { maxFiles: Number.POSITIVE_INFINITY, maxLines: Number.POSITIVE_INFINITY },
    riskLevel: risk.riskLevel,
    riskReasons: risk.reasons,
    approvalMinRisk: views.policy.agent.approval.minRisk,
    approvedGates,
    ruleFirings: firings,
    ...(outsider ? { outsiderWords: outsider } : {}),
    ...(planFiles ? { planFiles } : {}),
  });
  return { verdict, risk };
}

/** The risk the publisher recomputes: the candidate's paths under the trusted policy and task. */
export function trustedChangeRisk(candidate: PrCandidate, views: PolicyViews, task: Pick<TaskContract, 'steps'>): RiskReport {
  return trustedGate(
    candidate.files.map((f) => ({ path: f.path, contentId: 'deleted' in f ? 'deleted' : f.blobSha })),
    views,
    task,
  ).risk;
}

/**
 * The author whose words the run may act on without write access (`outsiderWords`), from the
 * trusted request, policy and task block: the worker's scope guard and the publisher pass the same.
 */
export function outsiderOfRequest(request: Pick<RunRequest, 'issue'>, policy: AgentPolicy, task: Pick<TaskContract, 'steps'>): string | undefined {
  return outsiderWords({ issue: request.issue, blockSteps: task.steps.length, inferSteps: policy.agent.inferSteps });
}
