/**
 * Whether a branch, or a commit on it, is a run's own: the one rule the webhook (which run a
 * branch event belongs to), the publishers (whether a commit on the agent branch is an earlier
 * attempt's) and the branch namer share (docs/architecture.md, "Run state").
 */

/** Every agent branch lives under this prefix; nothing the agent writes is named outside it. */
export const AGENT_BRANCH_PREFIX = 'agent/';

/** Run ids as they appear in branch names and `Run-id` trailers (and as `--run-id` accepts them). */
const RUN_ID = '[A-Za-z0-9_-]{1,64}';
const AGENT_BRANCH = new RegExp(`^agent/(?:i([1-9]\\d*)|local)/r(${RUN_ID})$`);

/** The run an agent branch names: its id, and the issue for an App run. */
export interface BranchRun {
  runId: string;
  issue?: number;
}

/** True when `runId` can be part of a branch name: 1-64 letters, digits, `_` or `-`. */
export function isBranchSafeRunId(runId: string): boolean {
  return new RegExp(`^${RUN_ID}$`).test(runId);
}

/**
 * The agent branch name of a run, unchecked: `agent/i<issue>/r<runId>` for an issue run,
 * `agent/local/r<runId>` for a CLI run (`agentBranchName`, src/core/git, checks it as a ref).
 */
export function formatAgentBranch(run: BranchRun): string {
  return `${AGENT_BRANCH_PREFIX}${run.issue === undefined ? 'local' : `i${run.issue}`}/r${run.runId}`;
}

/** The run an agent branch belongs to; undefined for any name `formatAgentBranch` does not produce. */
export function parseAgentBranch(name: string | null | undefined): BranchRun | undefined {
  const match = AGENT_BRANCH.exec(name ?? '');
  if (!match) return undefined;
  const issue = match[1] === undefined ? undefined : Number(match[1]);
  if (issue !== undefined && !Number.isSafeInteger(issue)) return undefined;
  return issue === undefined ? { runId: match[2] } : { runId: match[2], issue };
}

/** The commit trailer that names the run a commit was made by. */
export function runIdTrailer(runId: string): string {
  return `Run-id: ${runId}`;
}

/** True when one line of the commit message is exactly this run's `Run-id` trailer. */
export function hasRunIdTrailer(message: string, runId: string): boolean {
  const trailer = runIdTrailer(runId);
  return message.split('\n').some((line) => line === trailer);
}
