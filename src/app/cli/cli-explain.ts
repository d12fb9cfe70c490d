import type { PipelineResult } from '../../core/pipeline/run-pipeline.js';
import type { RunStatus } from '../../core/runs/run-status.js';
import { MODEL_FAILURE_ADVICE, modelFailureOf } from '../model/model-failure.js';

/** The command's outcome: the attempt's status, unless its publication was refused (then BLOCKED, with the refusal's reason). */
export function outcomeOf(result: PipelineResult, publishNote: string | undefined): { status: RunStatus; reason?: string } {
  const refused = publishNote ? /^refused: ([A-Z_]+)/.exec(publishNote) : null;
  if (refused) return { status: 'BLOCKED', reason: refused[1] };
  return { status: result.status === 'SUSPENDED' ? 'FAILED' : result.status, reason: result.reason };
}

/** What the explanation is made of: the outcome, its details, and where the command ran. */
export interface ExplainInput {
  status: RunStatus;
  reason?: string;
  /** The stage's own sentence for the failure (ingestion's error message, the publication's refusal). */
  cause?: string;
  details?: Record<string, unknown>;
  location: string;
  isUrl: boolean;
  agentBranch: string;
  runDir: string;
}

/**
 * The cause and the next step of an outcome that is not a success, as two sentences a person can
 * act on; undefined for READY, READY_WITH_WARNINGS and COMPLETED.
 */
export function explain(input: ExplainInput): { cause: string; next: string } | undefined {
  const { status, reason } = input;
  if (status === 'READY' || status === 'READY_WITH_WARNINGS' || status === 'COMPLETED') return undefined;
  const specific = reason ? BY_REASON[reason]?.(input) : undefined;
  return {
    cause: specific?.cause ?? input.cause ?? `the run ended ${status}${reason ? ` (${reason})` : ''}`,
    next: specific?.next ?? BY_STATUS[status](input),
  };
}

const gitC = (input: ExplainInput) => (input.isUrl ? `git ls-remote ${input.location}` : `git -C ${input.location} branch -a`);

const BY_REASON: Record<string, (input: ExplainInput) => { cause?: string; next: string }> = {
  BASE_REF_NOT_FOUND: (input) => ({
    cause: `the ref ${String(input.details?.ref ?? 'HEAD')} does not exist in ${input.location}`,
    next: `give an existing branch, tag or commit with --ref (\`${gitC(input)}\` lists them)`,
  }),
  SCOPE_PATH_MISSING: (input) => ({
    cause: `--paths names what the base commit does not have: ${Array.isArray(input.details?.paths) ? input.details.paths.join(', ') : 'see ingestion.json'}`,
    next: 'give paths relative to the repository root that exist at the base commit (a directory means everything under it)',
  }),
  TASK_BLOCK_INVALID: () => ({
    cause: 'the ```agent block of the task has problems (listed above)',
    next: 'fix them in the task and run the same command again',
  }),
  TARGET_SELECTION_EMPTY: () => ({
    cause: 'no file of the repository matches the task',
    next: 'name the files, symbols or directories to change in the task, or give an ```agent block with steps',
  }),
  BRANCH_NOT_OURS: (input) => ({
    cause: `the run completed, but its branch ${input.agentBranch} already holds a commit this run did not make, so nothing was published`,
    next: `keep that work under another name (\`git -C ${input.location} branch -m ${input.agentBranch} <new-name>\`) and run again, or give a new --run-id`,
  }),
  BASE_MOVED: (input) => ({ cause: input.cause, next: 'run the same command again: the next attempt starts from the new base' }),
  MODEL_ERROR: modelStop,
  MODEL_NOT_FOUND: modelStop,
  PLAN_APPROVAL: (input) => ({
    cause: `the policy asks for the plan to be approved before any change (agent.requirePlanApproval); it names ${Array.isArray(input.details?.files) ? input.details.files.length : 'its'} file(s)`,
    next: `read plan.json under ${input.runDir}; the same command with --approve makes the change, held to the plan's files`,
  }),
  RULE_DENIED: (input) => ({
    cause: `a rule of the policy denies the change: ${deniedBy(input.details) || 'see the ledger (RULE_FIRED)'}`,
    next: 'change the task so the change stays clear of the rule, or the rule in agent.rules (--policy FILE), then run the same command again',
  }),
};

/** The denying rules a RULE_DENIED stop names (the scope guard's violations, or a refused publication's problems). */
function deniedBy(details: Record<string, unknown> | undefined): string {
  const listed = [details?.violations, details?.problems].find(Array.isArray) as unknown[] | undefined;
  return (listed ?? [])
    .filter((v): v is { message: string } => typeof v === 'object' && v !== null && typeof (v as { message?: unknown }).message === 'string')
    .filter((v) => (v as { rule?: string; reason?: string }).rule === 'RULE_DENIED' || (v as { reason?: string }).reason === 'RULE_DENIED')
    .map((v) => v.message)
    .join('; ');
}

/** A model endpoint that failed: the provider's own sentence (its cause, the endpoint), and what to do about it. */
function modelStop(input: ExplainInput): { cause?: string; next: string } {
  const summary = input.details?.summary;
  const failure = typeof summary === 'string' ? modelFailureOf(summary) : undefined;
  return {
    cause: failure ? `The model call failed: ${failure.cause}` : undefined,
    next: `${failure?.advice ?? MODEL_FAILURE_ADVICE.MODEL_NETWORK_ERROR}, then run again`,
  };
}

const BY_STATUS: Record<RunStatus, (input: ExplainInput) => string> = {
  READY: () => '',
  READY_WITH_WARNINGS: () => '',
  COMPLETED: () => '',
  FAILED: (input) => `the ledger and checkpoints under ${input.runDir} show what happened; the same command again starts a new attempt`,
  BLOCKED: () => 'the policy refused this: change the task or the policy (--policy FILE), then run the same command again',
  NEEDS_APPROVAL: () => 'read approval-request.json in the run directory; the same command with --approve lets the next attempt pass the gate',
  BUDGET_EXCEEDED: () => "narrow the task (--paths, fewer steps) or raise the policy's agent.budgets, then run again",
  CANCELLED: () => 'the same command again starts a new attempt',
};
