import { AgentError } from '../errors.js';

/** Every way a publication is refused or stopped. Closed: callers and tests branch on these. */
export const PUBLISH_REASONS = [
  /** `pr-candidate.json` or `request.json` is missing or fails its schema. */
  'CANDIDATE_INVALID',
  /** The run's source is not one this publisher writes to (GitHub runs on the App, local runs on the CLI). */
  'NOT_A_GITHUB_RUN',
  /** The candidate names another run, branch or base than the run's snapshot says. */
  'CANDIDATE_MISMATCH',
  /**
   * The storage key, the trigger-written request and the repository as its host reports it do
   * not name the same owner, repository, ids, installation, issue or branch.
   */
  'BINDING_MISMATCH',
  /** The run was cancelled before the candidate was published. */
  'RUN_CANCELLED',
  /** The candidate names an attempt no trusted writer requested (its `attempts/<n>/request.json` is missing). */
  'ATTEMPT_NOT_REQUESTED',
  /** A later attempt of the run was requested: this candidate's attempt is over. */
  'ATTEMPT_SUPERSEDED',
  /** The trusted `.agent-policy.yaml` is invalid, disables the App, or does not allow draft PRs. */
  'POLICY_REFUSED',
  /** The task block of the snapshot no longer parses. */
  'TASK_INVALID',
  /** Scope guard, write policy, budgets, blob integrity, secret scan or branch rules failed. */
  'REVALIDATION_FAILED',
  /** A rule of the trusted policy (`agent.rules`, `on: change`) denies the change. */
  'RULE_DENIED',
  /** The trusted policy (approval paths, risk rules, HIGH risk) needs an approval this attempt does not carry. */
  'APPROVAL_REQUIRED',
  /** The tree rebuilt (locally or by the host) is not the candidate's `headTreeSha`. */
  'TREE_MISMATCH',
  /** The host returned a blob or commit that is not what was asked for. */
  'OBJECT_MISMATCH',
  /** The base branch moved and the policy says `fail` (or a rerun is not possible here). */
  'BASE_MOVED',
  /** The base branch or the base commit no longer exists. */
  'BASE_NOT_FOUND',
  /** The candidate's base commit is not the base branch's head nor an ancestor of it. */
  'BASE_NOT_ON_BRANCH',
  /** The agent branch exists at a commit this run did not make (a human's, or another attempt's). */
  'BRANCH_NOT_OURS',
  /** A follow-up's agent branch is no longer at the head it built on (someone pushed meanwhile); nothing is forced. */
  'BRANCH_MOVED',
] as const;
export type PublishReason = (typeof PUBLISH_REASONS)[number];

/** One piece of evidence for a refusal: the rule, and where (file, line) when there is a where. */
export interface PublishProblem {
  reason: string;
  rule?: string;
  path?: string;
  line?: number;
  message: string;
}

/**
 * A refused publication; `data` names the rules, paths and SHAs involved (`problems` when
 * there are several), never a secret or token.
 */
export class PublishError extends AgentError<PublishReason> {}

/** The problems a refusal carries, if any. */
export function problemsOf(error: PublishError): PublishProblem[] {
  const problems = error.data.problems;
  return Array.isArray(problems) ? (problems as PublishProblem[]).filter((p) => typeof p === 'object' && p !== null && typeof p.reason === 'string') : [];
}

/**
 * One problem in words: the reason, the rule when it says more than the reason, and where
 * (`file:line`). A secret-scan problem reads `SECRET_DETECTED github-token at src/a.ts:12`.
 */
export function describeProblem(p: PublishProblem): string {
  const rule = p.rule && p.rule !== p.reason ? ` ${p.rule}` : '';
  const where = p.path ? ` ${rule ? 'at ' : ''}${p.path}${p.line ? `:${p.line}` : ''}` : '';
  return `${p.reason}${rule}${where}`;
}

/** Up to `limit` problems in words, and how many more. */
export function describeProblems(problems: readonly PublishProblem[], limit = 5): string {
  const shown = problems.slice(0, limit).map(describeProblem).join(', ');
  return problems.length > limit ? `${shown} and ${problems.length - limit} more` : shown;
}

/** A refusal in one line: `REASON: problem, problem and N more`, or `REASON: message` without problems. */
export function describeRefusal(error: PublishError, limit = 5): string {
  const problems = problemsOf(error);
  return `${error.reason}: ${problems.length === 0 ? error.message : describeProblems(problems, limit)}`;
}
