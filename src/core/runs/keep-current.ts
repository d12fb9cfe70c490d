import type { AgentPolicy } from '../policy/agent-policy.js';

/**
 * What keeping an open agent pull request current means when its base branch moved (a push to the
 * base, or `/agent rebase`). The App rewrites only what it made: a branch whose head is not the
 * App's last commit has someone else's work on it, so it is reported as behind and left alone.
 * With the branch all ours, `baseMovementPolicy` decides for a push (`rerun` rebuilds the change on
 * the new base; `warn` and `fail` only report), and `/agent rebase` rebuilds on demand.
 */
export type KeepCurrentDecision =
  | { kind: 'up-to-date' }
  | { kind: 'rebuild'; from: string; to: string }
  | { kind: 'report-behind'; why: 'human-commits' | 'revisions' | 'policy'; from: string; to: string }
  | { kind: 'skip'; why: string };

export interface KeepCurrentInput {
  policy: AgentPolicy['baseMovementPolicy'];
  trigger: 'push' | 'command';
  /** The base-branch commit the pull request's change is built on. */
  builtOn: string;
  /** The base branch's head now. */
  baseHead: string;
  /** The agent branch's head now; undefined when the branch is gone. */
  branchHead: string | undefined;
  /** The last commit the App published on the branch. */
  lastCommit: string;
  /**
   * The branch holds follow-up commits (revisions, CI repairs): re-running the task on the new
   * base would drop them, so the branch is only reported as behind.
   */
  hasFollowUps: boolean;
}

export function decideKeepCurrent(input: KeepCurrentInput): KeepCurrentDecision {
  if (input.branchHead === undefined) return { kind: 'skip', why: 'the agent branch is gone' };
  if (input.baseHead === input.builtOn) return { kind: 'up-to-date' };
  const moved = { from: input.builtOn, to: input.baseHead };
  if (input.branchHead !== input.lastCommit) return { kind: 'report-behind', why: 'human-commits', ...moved };
  if (input.hasFollowUps) return { kind: 'report-behind', why: 'revisions', ...moved };
  if (input.trigger === 'command' || input.policy === 'rerun') return { kind: 'rebuild', ...moved };
  return { kind: 'report-behind', why: 'policy', ...moved };
}
