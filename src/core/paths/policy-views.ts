import type { AgentPolicy } from '../policy/agent-policy.js';
import { compilePathRules } from './path-rules.js';
import { scopePathRules, type WritePolicy } from './write-rules.js';
import type { TaskContract } from '../task/task-contract.js';

/** The policy and the task scope as the pipeline's parts ask for them, compiled once. */
export interface PolicyViews {
  policy: AgentPolicy;
  /** Path rules narrowed to the task scope: edit, stage, commit, scope guard, map and targets. */
  rules: WritePolicy;
  /** File and line budgets: the task's, capped by the policy's. */
  limits: { maxFiles: number; maxLines: number; maxModelCalls: number; keys: { files: string; lines: string } };
}

/**
 * Compile the policy with the task's scope. `requestPaths` (the CLI's `--paths`) narrows the
 * scope further: a path must match both.
 */
export function policyViews(policy: AgentPolicy, task?: Pick<TaskContract, 'paths' | 'budgets'>, requestPaths?: readonly string[]): PolicyViews {
  const rules = scopePathRules(compilePathRules(policy), task?.paths, requestPaths);
  const budgets = task?.budgets ?? {};
  const limits = {
    maxFiles: Math.min(budgets.maxFiles ?? policy.agent.maxChangedFiles, policy.agent.maxChangedFiles),
    maxLines: Math.min(budgets.maxLines ?? policy.agent.maxDiffLines, policy.agent.maxDiffLines),
    maxModelCalls: Math.min(budgets.maxModelCalls ?? policy.agent.budgets.maxModelCalls, policy.agent.budgets.maxModelCalls),
    // The key that sets each limit: the task's budget when it is the lower, else the policy's.
    keys: {
      files:
        budgets.maxFiles !== undefined && budgets.maxFiles < policy.agent.maxChangedFiles
          ? "the task's budgets.maxFiles"
          : 'agent.maxChangedFiles in .agent-policy.yaml',
      lines:
        budgets.maxLines !== undefined && budgets.maxLines < policy.agent.maxDiffLines
          ? "the task's budgets.maxLines"
          : 'agent.maxDiffLines in .agent-policy.yaml',
    },
  };
  return { policy, rules, limits };
}
