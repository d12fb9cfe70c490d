import type { PrCandidate } from '../git/pr-candidate.js';
import { evaluateScope } from '../phases/scope-guard.js';
import type { PolicyViews } from '../pipeline/policy-views.js';
import { changeRisk } from './change-risk.js';
import { PublishError } from './publish-error.js';

/**
 * Approval and risk recomputed from the TRUSTED policy and the changed paths, never from the
 * candidate's own risk report: `requireApprovalFor`, out-of-scope paths, the policy's risk rules
 * and HIGH risk need the approval of exactly this gate. Budgets are checked by re-validation
 * (from the blobs), so the scope guard runs here without them.
 */
export function checkApproval(candidate: PrCandidate, views: PolicyViews, approvedGates: readonly string[]): PublishError | undefined {
  const files = candidate.files.map((f) => ({ path: f.path, kind: 'deleted' in f ? 'DELETED' : 'MODIFIED' }));
  const risk = changeRisk(files, views.rules);
  const verdict = evaluateScope({
    changes: files.map((f) => ({ ...f, insertions: 0, deletions: 0 })),
    rules: views.rules,
    limits: { maxFiles: Number.POSITIVE_INFINITY, maxLines: Number.POSITIVE_INFINITY },
    riskLevel: risk.riskLevel,
    riskReasons: risk.reasons,
    approvedGates,
  });
  const problems = verdict.violations.map((v) => ({ reason: v.rule, rule: v.rule, path: v.path, message: v.message }));
  if (verdict.status === 'NEEDS_APPROVAL') {
    return new PublishError('APPROVAL_REQUIRED', 'the trusted policy requires an approval this attempt does not carry', { gateId: verdict.gateId, riskLevel: risk.riskLevel, candidateRiskLevel: candidate.risk.riskLevel, problems });
  }
  if (verdict.status !== 'PASS') return new PublishError('REVALIDATION_FAILED', 'the candidate fails the scope guard under the trusted policy', { problems });
  return undefined;
}
