import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { agentBranchName, assertAgentBranchName, refFormatProblem } from '../../../src/core/git/branch-name.js';
import { isBranchSafeRunId, parseAgentBranch } from '../../../src/core/runs/run-branch.js';

/** Native git's verdict on `refs/heads/<name>`. */
function gitAccepts(name: string): boolean {
  return spawnSync('git', ['check-ref-format', `refs/heads/${name}`], { stdio: 'ignore' }).status === 0;
}

describe('refFormatProblem agrees with git check-ref-format', () => {
  it.each([
    // accepted
    ['agent/i12/rabcdefghijkl', true],
    ['agent/local/r0123456789ab', true],
    ['agent/a-b_c.d/e', true],
    ['agent/a.b', true],
    ['agent/a@b', true],
    ['agent/a{b}', true],
    ['agent/ünïcødé', true],
    ['agent/-dash', true],
    ['agent/a.lockx', true],
    ['agent/x/y/z', true],
    // refused
    ['', false],
    ['@', true], // only the whole ref "@" is refused, not refs/heads/@
    ['/agent/a', false],
    ['agent/a/', false],
    ['agent//a', false],
    ['agent/a..b', false],
    ['agent/a@{1}', false],
    ['agent/a.', false],
    ['agent/a b', false],
    ['agent/a\tb', false],
    ['agent/a\u0001b', false],
    ['agent/a\u007fb', false],
    ['agent/a~1', false],
    ['agent/a^', false],
    ['agent/a:b', false],
    ['agent/a?', false],
    ['agent/a*', false],
    ['agent/a[', false],
    ['agent/a\\b', false],
    ['agent/.hidden', false],
    ['agent/x.lock', false],
    ['agent/x.lock/y', false],
    ['agent/./x', false],
  ])('%j: valid=%s', (name, valid) => {
    expect(refFormatProblem(name) === undefined).toBe(valid);
    expect(gitAccepts(name)).toBe(valid);
  });
});

describe('agentBranchName', () => {
  it.each([
    [{ issue: 42, runId: 'abc234def567' }, 'agent/i42/rabc234def567'],
    [{ runId: 'abc234def567' }, 'agent/local/rabc234def567'],
    [{ runId: 'my_run-1' }, 'agent/local/rmy_run-1'],
  ])('%o -> %s, which git accepts and parses back', (run, expected) => {
    expect(agentBranchName(run)).toBe(expected);
    expect(gitAccepts(expected)).toBe(true);
    expect(parseAgentBranch(expected)).toEqual(run);
  });

  it.each(['a..b', 'x y', '../up', 'a~1', 'a:b', 'bad.lock', '', 'x'.repeat(65)])('refuses the run id %j', (runId) => {
    expect(isBranchSafeRunId(runId)).toBe(false);
    expect(() => agentBranchName({ runId })).toThrow(expect.objectContaining({ reason: 'INVALID_BRANCH_NAME' }));
  });

  it.each([0, -1, 1.5, Number.MAX_SAFE_INTEGER + 2])('refuses the issue number %s', (issue) => {
    expect(() => agentBranchName({ issue, runId: 'abc' })).toThrow(expect.objectContaining({ reason: 'INVALID_BRANCH_NAME' }));
  });
});

describe('parseAgentBranch', () => {
  it.each(['main', 'agent/i0/rabc', 'agent/i12', 'agent/i12/r', 'agent/x/rabc', 'agent/local/rabc/more', 'refs/heads/agent/i1/rabc', null, undefined])(
    '%j is no agent branch',
    (name) => {
      expect(parseAgentBranch(name)).toBeUndefined();
    },
  );
});

describe('assertAgentBranchName', () => {
  it.each(['main', 'agent/', 'agent', 'agents/i1/rabc', 'agent/a..b', 'agent/x.lock', `agent/${'x'.repeat(200)}`])('refuses %j', (name) => {
    expect(() => assertAgentBranchName(name)).toThrow(expect.objectContaining({ reason: 'INVALID_BRANCH_NAME' }));
  });

  it('accepts a name of exactly 200 characters', () => {
    expect(() => assertAgentBranchName(`agent/${'x'.repeat(194)}`)).not.toThrow();
  });
});
