import { AgentError } from '../../core/errors.js';

/** Every way the publisher refuses or stops a publication. Closed: callers and tests branch on these. */
export const PUBLISH_REASONS = [
  /** `pr-candidate.json` or `request.json` is missing or fails its schema. */
  'CANDIDATE_INVALID',
  /** The run's source is not a GitHub repository (CLI runs publish locally). */
  'NOT_A_GITHUB_RUN',
  /** The candidate names another run, branch or base than the run's snapshot says. */
  'CANDIDATE_MISMATCH',
  /** The run was cancelled before the candidate was published. */
  'RUN_CANCELLED',
  /** The trusted `.agent-policy.yaml` is invalid, disables the App, or does not allow draft PRs. */
  'POLICY_REFUSED',
  /** The task block no longer parses (it did when the worker ran: the snapshot is the same). */
  'TASK_INVALID',
  /** Scope guard, write policy, budgets, blob integrity, secret scan or branch rules failed. */
  'REVALIDATION_FAILED',
  /** The tree rebuilt (locally or by GitHub) is not the candidate's `headTreeSha`. */
  'TREE_MISMATCH',
  /** GitHub returned a blob or commit that is not what was asked for. */
  'OBJECT_MISMATCH',
  /** The base branch moved and the policy says `fail`. */
  'BASE_MOVED',
  /** The base branch or the base commit no longer exists. */
  'BASE_NOT_FOUND',
  /** The agent branch exists at a commit this run did not make (a human's). */
  'BRANCH_NOT_OURS',
] as const;
export type PublishReason = (typeof PUBLISH_REASONS)[number];

/** A refused publication; `data` names the rules, paths and SHAs involved, never a secret or token. */
export class PublishError extends AgentError<PublishReason> {}
