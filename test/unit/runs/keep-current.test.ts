import { describe, expect, it } from 'vitest';
import { decideKeepCurrent, type KeepCurrentInput } from '../../../src/core/runs/keep-current.js';

const OLD = 'a'.repeat(40);
const NEW = 'b'.repeat(40);
const OURS = 'c'.repeat(40);
const HUMAN = 'd'.repeat(40);

const input = (over: Partial<KeepCurrentInput> = {}): KeepCurrentInput => ({
  policy: 'rerun',
  trigger: 'push',
  builtOn: OLD,
  baseHead: NEW,
  branchHead: OURS,
  lastCommit: OURS,
  hasFollowUps: false,
  ...over,
});

describe('base moved: what keeping a pull request current decides', () => {
  it('base moved under a branch that is all ours: rerun rebuilds on the new base', () => {
    expect(decideKeepCurrent(input())).toEqual({ kind: 'rebuild', from: OLD, to: NEW });
  });

  it('base moved under a branch with a human commit: reported as behind, never rebuilt, whatever the trigger', () => {
    for (const trigger of ['push', 'command'] as const) {
      expect(decideKeepCurrent(input({ trigger, branchHead: HUMAN }))).toEqual({ kind: 'report-behind', why: 'human-commits', from: OLD, to: NEW });
    }
  });

  it('base moved under a branch with revisions: reported, since re-running the task would drop them', () => {
    expect(decideKeepCurrent(input({ hasFollowUps: true, trigger: 'command' }))).toMatchObject({ kind: 'report-behind', why: 'revisions' });
  });

  it('base moved and the policy says warn or fail: a push reports, /agent rebase rebuilds', () => {
    for (const policy of ['warn', 'fail'] as const) {
      expect(decideKeepCurrent(input({ policy }))).toMatchObject({ kind: 'report-behind', why: 'policy' });
      expect(decideKeepCurrent(input({ policy, trigger: 'command' }))).toMatchObject({ kind: 'rebuild', to: NEW });
    }
  });

  it('base not moved, or the branch gone: nothing to do', () => {
    expect(decideKeepCurrent(input({ baseHead: OLD }))).toEqual({ kind: 'up-to-date' });
    expect(decideKeepCurrent(input({ branchHead: undefined }))).toMatchObject({ kind: 'skip' });
  });
});
