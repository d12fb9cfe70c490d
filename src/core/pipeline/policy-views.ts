import type { WritePolicy } from '../git/write-policy.js';
import type { ScopeRules } from '../phases/scope-guard.js';
import type { AgentPolicy } from '../policy/agent-policy.js';
import { compileGlobs, compilePathRules, type PathRules } from '../policy/compile-path-rules.js';
import type { PathRules as MapPathRules } from '../repomap/path-rules.js';
import type { TaskContract } from '../task/task-contract.js';

/** Every view of the policy and the task scope the pipeline's parts ask for, compiled once. */
export interface PolicyViews {
  policy: AgentPolicy;
  rules: PathRules;
  /** The same rules as the repository map and target selection read them (lower-case risk levels). */
  mapRules: MapPathRules;
  /** In the task's `paths` (everything when absent). */
  inTaskScope(path: string): boolean;
  write: WritePolicy;
  scope: ScopeRules;
  /** File and line budgets: the task's, capped by the policy's. */
  limits: { maxFiles: number; maxLines: number; maxModelCalls: number };
}

/**
 * Compile the policy with the task's scope into the views the git boundary and scope guard use.
 * `requestPaths` (the CLI's `--paths`) narrows the scope further: a path must match both.
 */
export function policyViews(policy: AgentPolicy, task?: Pick<TaskContract, 'paths' | 'budgets'>, requestPaths?: readonly string[]): PolicyViews {
  const rules = compilePathRules(policy);
  const taskMatch = task?.paths && task.paths.length > 0 ? compileGlobs(task.paths) : () => true;
  const requestMatch = requestPaths && requestPaths.length > 0 ? compileGlobs(requestPaths) : () => true;
  const scopeMatch = (path: string) => taskMatch(path) && requestMatch(path);
  const allowLockfiles = policy.editRules.lockfiles.default === 'allowed';
  const allowGenerated = policy.editRules.generatedFiles.default === 'allowed';
  const inTaskScope = (path: string) => scopeMatch(path) && rules.isAllowed(path);
  const write: WritePolicy = {
    isForbidden: (p) => rules.isForbidden(p),
    isAllowed: (p) => rules.isAllowed(p),
    inTaskScope: (p) => scopeMatch(p),
    isLockfile: (p) => rules.isLockfile(p),
    isGenerated: (p) => rules.isGenerated(p),
    allowLockfiles,
    allowGenerated,
  };
  const scope: ScopeRules = {
    isForbidden: (p) => rules.isForbidden(p),
    requiresApproval: (p) => rules.requiresApproval(p),
    inTaskScope,
    isLockfile: (p) => rules.isLockfile(p),
    isGenerated: (p) => rules.isGenerated(p),
    allowLockfiles,
    allowGenerated,
  };
  const budgets = task?.budgets ?? {};
  const limits = {
    maxFiles: Math.min(budgets.maxFiles ?? policy.agent.maxChangedFiles, policy.agent.maxChangedFiles),
    maxLines: Math.min(budgets.maxLines ?? policy.agent.maxDiffLines, policy.agent.maxDiffLines),
    maxModelCalls: budgets.maxModelCalls ?? 40,
  };
  const mapRules: MapPathRules = {
    isForbidden: rules.isForbidden,
    requiresApproval: rules.requiresApproval,
    isAllowed: rules.isAllowed,
    isLockfile: rules.isLockfile,
    isGenerated: rules.isGenerated,
    riskFor: (p) => {
      const rule = rules.riskFor(p);
      return rule ? { level: rule.level === 'HIGH' ? 'high' : rule.level === 'MEDIUM' ? 'medium' : 'low', reason: rule.reason } : undefined;
    },
  };
  return { policy, rules, mapRules, inTaskScope, write, scope, limits };
}
