import { AGENT_BRANCH_PREFIX, formatAgentBranch, isBranchSafeRunId } from '../runs/run-branch.js';
import { GitBoundaryError } from './git-boundary-error.js';

const MAX_AGENT_BRANCH_LENGTH = 200;

// Characters git refuses anywhere in a ref name: controls, space, DEL, ~ ^ : ? * [ and backslash.
const BAD_CHARACTER = /[\u0000-\u0020\u007f~^:?*[\\]/;

/**
 * Why `refs/heads/<name>` is not a valid ref name under git's rules (as `git check-ref-format`
 * applies them, without `--normalize`, `--allow-onelevel` or `--refspec-pattern`), or undefined
 * when it is. Non-ASCII characters are allowed, as git allows them.
 */
export function refFormatProblem(name: string): string | undefined {
  if (name.length === 0) return 'empty';
  if (name.startsWith('/') || name.endsWith('/')) return 'begins or ends with "/"';
  if (name.includes('//')) return 'contains "//"';
  if (name.includes('..')) return 'contains ".."';
  if (name.includes('@{')) return 'contains "@{"';
  if (name.endsWith('.')) return 'ends with "."';
  if (BAD_CHARACTER.test(name)) return 'contains a control character, space, or one of ~ ^ : ? * [ \\';
  for (const component of name.split('/')) {
    if (component.startsWith('.')) return 'a component begins with "."';
    if (component.endsWith('.lock')) return 'a component ends with ".lock"';
  }
  return undefined;
}

/**
 * The agent branch of a run: `agent/i<issue>/r<runId>` for an issue run, `agent/local/r<runId>`
 * for a CLI run. Stable per run (every attempt reuses it), always under `agent/`.
 */
export function agentBranchName(run: { runId: string; issue?: number }): string {
  if (!isBranchSafeRunId(run.runId)) throw invalid(`r${run.runId}`, 'the run id is not 1-64 letters, digits, _ or -');
  if (run.issue !== undefined && (!Number.isSafeInteger(run.issue) || run.issue <= 0))
    throw invalid(`i${run.issue}`, 'the issue number is not a positive integer');
  const name = formatAgentBranch(run);
  assertAgentBranchName(name);
  return name;
}

/** Agent branches: valid ref names under `agent/`, at most 200 characters. */
export function assertAgentBranchName(name: string): void {
  const problem =
    refFormatProblem(name) ??
    (!name.startsWith(AGENT_BRANCH_PREFIX) || name.length <= AGENT_BRANCH_PREFIX.length
      ? 'not under agent/'
      : name.length > MAX_AGENT_BRANCH_LENGTH
        ? 'longer than 200 characters'
        : undefined);
  if (problem) throw invalid(name, problem);
}

function invalid(branch: string, problem: string): GitBoundaryError {
  return new GitBoundaryError('INVALID_BRANCH_NAME', `invalid agent branch name (${problem})`, { branch, problem });
}
