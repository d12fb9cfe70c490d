import { needsApproval } from '../risk/risk-score.js';
import type { WritePolicy } from '../paths/write-rules.js';
import type { ApprovalMinRisk } from '../policy/agent-policy.js';
import { sha256Hex } from '../util/digest.js';
import { describeFiring, type RuleFiring } from '../paths/policy-rules.js';

/** What the scope guard asks about paths: the run's path rules, narrowed to the task scope. */
export type ScopeRules = WritePolicy;

export interface ScopedChange {
  path: string;
  kind: string;
  insertions: number;
  deletions: number;
  /** The new content's blob id (`deleted` for a deletion): an approval covers this content only. */
  contentId: string;
}

export interface ScopeLimits {
  maxFiles: number;
  maxLines: number;
  /** Where each limit is set (`agent.maxChangedFiles` in the policy, or the task's `budgets.maxFiles`), named when it stops a change. */
  keys?: { files: string; lines: string };
}

export type ScopeRule =
  | 'FORBIDDEN_PATH'
  | 'WORKFLOW_CHANGE_NOT_PERMITTED'
  | 'SUBMODULE_CHANGE_NOT_PERMITTED'
  | 'LOCKFILE_NOT_ALLOWED'
  | 'GENERATED_NOT_ALLOWED'
  | 'OUT_OF_SCOPE'
  | 'REQUIRES_APPROVAL'
  | 'HIGH_RISK'
  | 'MEDIUM_RISK'
  | 'FILE_BUDGET'
  | 'LINE_BUDGET'
  | 'OUTSIDER_WORDS'
  /** A policy rule (`agent.rules`, `on: change`) denies the change. */
  | 'RULE_DENIED'
  /** A policy rule (`agent.rules`, `on: change`) asks for an approval. */
  | 'RULE_APPROVAL'
  /** A file the approved plan (`plan.json`) does not name: a new approval is needed. */
  | 'OUTSIDE_PLAN';

export interface ScopeViolation {
  rule: ScopeRule;
  path?: string;
  message: string;
}

export interface ScopeVerdict {
  status: 'PASS' | 'BLOCKED' | 'NEEDS_APPROVAL' | 'BUDGET_EXCEEDED';
  violations: ScopeViolation[];
  /** Identity of the approval gate (the same violations on the same content); set for NEEDS_APPROVAL. */
  gateId?: string;
  /** What the gate covers: every changed path and its content; set for NEEDS_APPROVAL. */
  changes?: { path: string; contentId: string }[];
  filesChanged: number;
  linesChanged: number;
}

export interface ScopeInput {
  changes: ScopedChange[];
  rules: ScopeRules;
  limits: ScopeLimits;
  riskLevel?: 'LOW' | 'MEDIUM' | 'HIGH';
  riskReasons?: string[];
  /** `agent.approval.minRisk`: the lowest risk level that needs an approval (HIGH when absent). */
  approvalMinRisk?: ApprovalMinRisk;
  /** True for a gitlink path of the base tree: submodules are opaque, never edited. */
  isGitlink?: (path: string) => boolean;
  approvedGates?: readonly string[];
  /** The login of someone without write access whose words the steps may have been read from (`outsiderWords`). */
  outsiderWords?: string;
  /** The `on: change` rules the change fires (src/core/paths/policy-rules.ts): a deny blocks, a require-approval pauses. */
  ruleFirings?: readonly RuleFiring[];
  /** The files of the approved plan, from the trusted approval: any other changed file pauses for approval. */
  planFiles?: readonly string[];
}

/** Why a change of `path` is refused outright, first reason first; undefined when it is not. */
function blockOf(path: string, rules: ScopeRules, isGitlink: ((path: string) => boolean) | undefined): ScopeViolation | undefined {
  const gitlink = isGitlink && insideGitlink(path, isGitlink);
  if (gitlink) return { rule: 'SUBMODULE_CHANGE_NOT_PERMITTED', path, message: `submodule ${gitlink} is kept as it is, never edited: ${path}` };
  if (rules.isWorkflow(path))
    return {
      rule: 'WORKFLOW_CHANGE_NOT_PERMITTED',
      path,
      message: `changes under .github/workflows/ are refused (the App has no workflows permission): ${path}`,
    };
  if (rules.isForbidden(path)) return { rule: 'FORBIDDEN_PATH', path, message: `forbidden by policy: ${path}` };
  if (rules.isLockfile(path) && !rules.allowLockfiles)
    return { rule: 'LOCKFILE_NOT_ALLOWED', path, message: `lockfiles are not edited (editRules.lockfiles): ${path}` };
  if (rules.isGenerated(path) && !rules.allowGenerated)
    return { rule: 'GENERATED_NOT_ALLOWED', path, message: `generated files are not edited (editRules.generatedFiles): ${path}` };
  return undefined;
}

/** Why a change of `path` (not refused) pauses for approval: outside the scope, named by `requireApprovalFor`. */
function approvalsOf(path: string, rules: ScopeRules): ScopeViolation[] {
  const out: ScopeViolation[] = [];
  if (!rules.inTaskScope(path) || !rules.isAllowed(path)) out.push({ rule: 'OUT_OF_SCOPE', path, message: `outside the task scope: ${path}` });
  if (rules.requiresApproval(path)) out.push({ rule: 'REQUIRES_APPROVAL', path, message: `policy requires approval for: ${path}` });
  return out;
}

function budgetViolations(filesChanged: number, linesChanged: number, limits: ScopeLimits): ScopeViolation[] {
  const budget: ScopeViolation[] = [];
  const raise = (key: string | undefined) => (key ? `; raise ${key} to allow it` : '');
  if (filesChanged > limits.maxFiles)
    budget.push({
      rule: 'FILE_BUDGET',
      message: `the change needs ${filesChanged} files, over the limit of ${limits.maxFiles}${raise(limits.keys?.files)}`,
    });
  if (linesChanged > limits.maxLines)
    budget.push({
      rule: 'LINE_BUDGET',
      message: `the change needs ${linesChanged} changed lines, over the limit of ${limits.maxLines}${raise(limits.keys?.lines)}`,
    });
  return budget;
}

/**
 * The deterministic scope guard, run after every mutation.
 * Order of severity: anything forbidden blocks; budgets stop the run with no candidate; out of
 * scope, `requireApprovalFor` and risk at or above the approval threshold pause for approval
 * unless this gate was approved.
 */
export function evaluateScope(input: ScopeInput): ScopeVerdict {
  const { changes, rules, limits } = input;
  const blocked: ScopeViolation[] = [];
  const approval: ScopeViolation[] = [];
  const planned = input.planFiles ? new Set(input.planFiles) : undefined;
  for (const change of changes) {
    const block = blockOf(change.path, rules, input.isGitlink);
    if (block) blocked.push(block);
    else approval.push(...approvalsOf(change.path, rules));
    if (!block && planned && !planned.has(change.path))
      approval.push({ rule: 'OUTSIDE_PLAN', path: change.path, message: `not in the approved plan: ${change.path}` });
  }
  for (const f of input.ruleFirings ?? []) {
    const violation = { path: f.path, message: describeFiring(f) };
    if (f.action === 'deny') blocked.push({ rule: 'RULE_DENIED', ...violation });
    else approval.push({ rule: 'RULE_APPROVAL', ...violation });
  }
  const filesChanged = changes.length;
  const linesChanged = changes.reduce((sum, c) => sum + c.insertions + c.deletions, 0);
  const base = { filesChanged, linesChanged };
  if (blocked.length > 0) return { status: 'BLOCKED', violations: blocked, ...base };

  const budget = budgetViolations(filesChanged, linesChanged, limits);
  if (budget.length > 0) return { status: 'BUDGET_EXCEEDED', violations: budget, ...base };

  if (input.outsiderWords)
    approval.push({
      rule: 'OUTSIDER_WORDS',
      message: `the change may follow steps read from words by ${input.outsiderWords}, who cannot write to the repository: a maintainer approves it`,
    });
  if (input.riskLevel && needsApproval(input.riskLevel, input.approvalMinRisk)) {
    approval.push({ rule: `${input.riskLevel as 'HIGH' | 'MEDIUM'}_RISK`, message: `risk is ${input.riskLevel}: ${(input.riskReasons ?? []).join('; ')}` });
  }
  if (approval.length === 0) return { status: 'PASS', violations: [], ...base };
  // The gate is the violations and the change they are about: an approval given for one change
  // never covers another, even when both raise the same rules on the same paths.
  const gateId = `gate-${sha256Hex(
    [...approval.map((v) => `${v.rule}:${v.path ?? ''}`).sort(), ...changes.map((c) => `${c.path}@${c.contentId}`).sort()].join('\n'),
  ).slice(0, 16)}`;
  if (input.approvedGates?.includes(gateId)) return { status: 'PASS', violations: approval, gateId, ...base };
  return { status: 'NEEDS_APPROVAL', violations: approval, gateId, changes: changes.map((c) => ({ path: c.path, contentId: c.contentId })), ...base };
}

/** The gitlink a path is or lies under, if any. */
function insideGitlink(path: string, isGitlink: (path: string) => boolean): string | undefined {
  const parts = path.split('/');
  for (let i = 1; i <= parts.length; i++) {
    const prefix = parts.slice(0, i).join('/');
    if (isGitlink(prefix)) return prefix;
  }
  return undefined;
}
