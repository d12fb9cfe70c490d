import type { RunKeys } from '../artifacts/keys.js';
import type { PriceTable } from '../budget/cost.js';
import type { GitIdentity } from '../git/commit-staged.js';
import type { AgentPolicy } from '../policy/agent-policy.js';
import type { ArtifactStore, CiStatusReader, Clock, Logger, ModelProvider, RunReporter } from '../ports.js';
import type { FollowUp } from '../runs/follow-up.js';
import type { ApprovedPlan } from '../runs/plan-gate.js';
import type { RunRequest } from '../runs/run-request.js';
import type { TreeSyntaxService } from '../syntax/create-syntax-service.js';
import type { TaskContract } from '../task/task-contract.js';
import { policyViews, type PolicyViews } from '../paths/policy-views.js';
import type { Verifier } from '../verify/verifier.js';
import type { Workspace } from '../workspace/workspace.js';

/** Everything the phase handlers of one attempt share: ports, identities and the trusted policy. */
export interface PipelineEnv {
  store: ArtifactStore;
  clock: Clock;
  logger: Logger;
  syntax: TreeSyntaxService;
  ciStatus: CiStatusReader;
  /** Runs the project's commands on the change where the policy asks for it (agent.verify); none where no runner is provided. */
  verifier?: Verifier;
  model?: ModelProvider;
  /** Model prices from the deployment configuration; without one, cost is "n/a" and a policy cost cap refuses the model. */
  prices?: PriceTable;
  /** When model work must stop on `clock` (the worker's remaining time less a reserve for the checkpoint and report); none in the CLI. */
  deadline?: number;
  reporter?: RunReporter;
  identity: GitIdentity;
  keys: RunKeys;
  attempt: number;
  /** The attempt's createdAt: commit dates and every SHA-affecting time come from it. */
  createdAt: string;
  approvedGates: readonly string[];
  /** The approved plan (from the attempt's trusted request): the change is held to its files. */
  approvedPlan?: ApprovedPlan;
  request: RunRequest;
  policy: AgentPolicy;
  /** The pull request's base ref (for a follow-up too, whose parent is the agent branch head). */
  baseRef: string;
  agentBranch: string;
  /** A revision or CI repair: what it adds to the task (written by the webhook). */
  followUp?: FollowUp;
  /** A read-only identity of the task for the commit trailer (issue URL or CLI task digest). */
  taskId(task: TaskContract): string;
  /** Repository identity for the map cache keys. */
  owner: string;
  repo: string;
}

const viewsCache = new WeakMap<object, PolicyViews>();

/** The policy views for a task, compiled once per task object. */
export function viewsFor(env: PipelineEnv, task: TaskContract): PolicyViews {
  let views = viewsCache.get(task);
  if (!views) {
    views = policyViews(env.policy, task, env.request.paths);
    viewsCache.set(task, views);
  }
  return views;
}

/** The files a run may change: regular files (not links or submodules) the policy and the task scope leave editable. */
export function editablePaths(workspace: Pick<Workspace, 'paths' | 'entry'>, rules: { isEditable(path: string): boolean }): string[] {
  return workspace.paths().filter((p) => {
    const mode = workspace.entry(p)?.mode;
    return rules.isEditable(p) && (mode === '100644' || mode === '100755');
  });
}
