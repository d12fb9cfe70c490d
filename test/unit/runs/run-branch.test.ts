import { describe, expect, it } from 'vitest';
import { agentBranchName } from '../../../src/core/git/branch-name.js';
import { formatCommitMessage } from '../../../src/core/git/commit-message.js';
import { formatAgentBranch, hasRunIdTrailer, isBranchSafeRunId, parseAgentBranch, runIdTrailer } from '../../../src/core/runs/run-branch.js';

/** Run ids of every shape a run can have: the App's, and the CLI's `--run-id` with `-` and `_`. */
const RUN_IDS = ['k3j5h2m4n6p7', 'my_run-1', '-', '_', 'a-b_c-d', 'x'.repeat(64)];

const commitOf = (runId: string) =>
  formatCommitMessage({
    type: 'fix',
    summary: 'reject empty carts',
    task: 'Reject empty carts',
    intent: 'a cart without items is refused',
    verification: { status: 'NOT_RUN', checks: [], notRun: [] },
    risk: [],
    runId,
    taskId: 'sha256:abc',
  });

describe('is this branch ours', () => {
  it.each(RUN_IDS.flatMap((runId) => [{ runId }, { runId, issue: 42 }]))('%o names a branch that parses back to it', (run) => {
    expect(isBranchSafeRunId(run.runId)).toBe(true);
    const name = agentBranchName(run);
    expect(name).toBe(formatAgentBranch(run));
    expect(parseAgentBranch(name)).toEqual(run);
  });

  it.each(['agent/i1/rmy run', 'agent/i1/ra.b', 'agent/i1/r', `agent/i1/r${'x'.repeat(65)}`, 'agent/i01/rabc', 'feature/i1/rabc'])(
    '%j belongs to no run',
    (name) => {
      expect(parseAgentBranch(name)).toBeUndefined();
    },
  );
});

describe('is this commit ours', () => {
  it.each(RUN_IDS)('the commit message of run %j carries its Run-id trailer, and only its own', (runId) => {
    const message = commitOf(runId);
    expect(message.split('\n')).toContain(runIdTrailer(runId));
    expect(hasRunIdTrailer(message, runId)).toBe(true);
    expect(hasRunIdTrailer(message, `${runId}0`)).toBe(false);
    expect(hasRunIdTrailer(commitOf('other-run'), runId)).toBe(false);
  });

  it('matches whole lines only, never a pattern', () => {
    expect(hasRunIdTrailer('fix: x\n\nRun-id: my_run-1 extra\n', 'my_run-1')).toBe(false);
    expect(hasRunIdTrailer('fix: x\n\nRun-id: my_run-1\n', '.*')).toBe(false);
    expect(hasRunIdTrailer('fix: x\n\nRun-id: abc\n', 'abc')).toBe(true);
  });
});
