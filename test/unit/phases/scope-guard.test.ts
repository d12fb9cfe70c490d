import { describe, expect, it } from 'vitest';
import { evaluateScope, type ScopeRules, type ScopedChange } from '../../../src/core/phases/scope-guard.js';
import { writePolicyFor } from '../../helpers/path-rules.js';

/** Rules as the policy views compile them, from plain globs, so each row says what it sets. */
function rules(
  overrides: Partial<{
    forbidden: string[];
    approval: string[];
    scope: string[];
    lockfiles: string[];
    generated: string[];
    allowLockfiles: boolean;
    allowGenerated: boolean;
  }> = {},
): ScopeRules {
  return writePolicyFor({
    forbidden: overrides.forbidden ?? ['secrets/**'],
    requireApproval: overrides.approval ?? ['db/migration/**'],
    scope: overrides.scope,
    lockfiles: overrides.lockfiles ?? ['**/package-lock.json', '**/pnpm-lock.yaml'],
    generated: overrides.generated ?? ['**/*.pb.go'],
    allowLockfiles: overrides.allowLockfiles,
    allowGenerated: overrides.allowGenerated,
  });
}

const change = (path: string, lines = 2, contentId = `blob-of-${path}`): ScopedChange => ({
  path,
  kind: 'MODIFIED',
  insertions: lines / 2,
  deletions: lines / 2,
  contentId,
});
const LIMITS = { maxFiles: 10, maxLines: 100 };

describe('evaluateScope: the scope guard table', () => {
  it.each([
    ['a file in scope', 'PASS', [change('src/a.ts')], rules(), []],
    ['a forbidden path', 'BLOCKED', [change('src/a.ts'), change('secrets/prod.env')], rules(), ['FORBIDDEN_PATH']],
    [
      'a workflow, even when the policy forbids nothing',
      'BLOCKED',
      [change('.github/workflows/ci.yml')],
      rules({ forbidden: [] }),
      ['WORKFLOW_CHANGE_NOT_PERMITTED'],
    ],
    [
      'a workflow, even when the task scope names it',
      'BLOCKED',
      [change('.github/workflows/ci.yml')],
      rules({ scope: ['.github/**'] }),
      ['WORKFLOW_CHANGE_NOT_PERMITTED'],
    ],
    ['a lockfile', 'BLOCKED', [change('web/package-lock.json')], rules(), ['LOCKFILE_NOT_ALLOWED']],
    ['a lockfile the policy allows', 'PASS', [change('web/package-lock.json')], rules({ allowLockfiles: true }), []],
    ['a generated file', 'BLOCKED', [change('api/items.pb.go')], rules(), ['GENERATED_NOT_ALLOWED']],
    ['a generated file the policy allows', 'PASS', [change('api/items.pb.go')], rules({ allowGenerated: true }), []],
    ['a file outside the task scope', 'NEEDS_APPROVAL', [change('src/a.ts'), change('docs/b.md')], rules({ scope: ['src/**'] }), ['OUT_OF_SCOPE']],
    ['a requireApprovalFor path', 'NEEDS_APPROVAL', [change('db/migration/V2__x.sql')], rules(), ['REQUIRES_APPROVAL']],
    [
      'out of scope and requireApprovalFor on one path',
      'NEEDS_APPROVAL',
      [change('db/migration/V2__x.sql')],
      rules({ scope: ['src/**'] }),
      ['OUT_OF_SCOPE', 'REQUIRES_APPROVAL'],
    ],
    ['forbidden beats approval and budgets', 'BLOCKED', [change('secrets/a'), change('db/migration/V2__x.sql', 500)], rules(), ['FORBIDDEN_PATH']],
  ] as const)('%s -> %s', (_name, status, changes, scopeRules, violations) => {
    const verdict = evaluateScope({ changes: [...changes], rules: scopeRules, limits: LIMITS });
    expect(verdict.status).toBe(status);
    expect(verdict.violations.map((v) => v.rule)).toEqual(violations);
    expect(verdict.filesChanged).toBe(changes.length);
    expect(verdict.gateId === undefined).toBe(status !== 'NEEDS_APPROVAL');
  });

  it('names the path of each violation', () => {
    const verdict = evaluateScope({ changes: [change('secrets/prod.env'), change('.github/workflows/x.yml')], rules: rules(), limits: LIMITS });
    expect(verdict.violations.map((v) => [v.rule, v.path])).toEqual([
      ['FORBIDDEN_PATH', 'secrets/prod.env'],
      ['WORKFLOW_CHANGE_NOT_PERMITTED', '.github/workflows/x.yml'],
    ]);
  });

  it('HIGH risk needs approval; MEDIUM does not', () => {
    const high = evaluateScope({ changes: [change('src/a.ts')], rules: rules(), limits: LIMITS, riskLevel: 'HIGH', riskReasons: ['auth code'] });
    expect(high.status).toBe('NEEDS_APPROVAL');
    expect(high.violations).toEqual([{ rule: 'HIGH_RISK', message: 'risk is HIGH: auth code' }]);
    expect(evaluateScope({ changes: [change('src/a.ts')], rules: rules(), limits: LIMITS, riskLevel: 'MEDIUM' }).status).toBe('PASS');
  });

  it.each([
    ['HIGH', 'MEDIUM', 'PASS'],
    ['MEDIUM', 'MEDIUM', 'NEEDS_APPROVAL'],
    ['MEDIUM', 'LOW', 'PASS'],
    ['never', 'HIGH', 'PASS'],
  ] as const)('agent.approval.minRisk %s with risk %s: %s', (approvalMinRisk, riskLevel, status) => {
    const verdict = evaluateScope({ changes: [change('src/a.ts')], rules: rules(), limits: LIMITS, riskLevel, riskReasons: ['why'], approvalMinRisk });
    expect(verdict.status).toBe(status);
    if (status === 'NEEDS_APPROVAL') expect(verdict.violations).toEqual([{ rule: `${riskLevel}_RISK`, message: `risk is ${riskLevel}: why` }]);
  });

  it('a change of a gitlink or under it is blocked: submodules are opaque', () => {
    const isGitlink = (p: string) => p === 'libs/shared';
    const verdict = evaluateScope({
      changes: [change('libs/shared'), change('libs/shared/src/a.c'), change('libs/sharedx/a.c')],
      rules: rules(),
      limits: LIMITS,
      isGitlink,
    });
    expect(verdict.status).toBe('BLOCKED');
    expect(verdict.violations).toEqual([
      { rule: 'SUBMODULE_CHANGE_NOT_PERMITTED', path: 'libs/shared', message: 'submodule libs/shared is kept as it is, never edited: libs/shared' },
      {
        rule: 'SUBMODULE_CHANGE_NOT_PERMITTED',
        path: 'libs/shared/src/a.c',
        message: 'submodule libs/shared is kept as it is, never edited: libs/shared/src/a.c',
      },
    ]);
    expect(evaluateScope({ changes: [change('libs/sharedx/a.c')], rules: rules(), limits: LIMITS, isGitlink }).status).toBe('PASS');
  });

  it('an approved gate passes, and only that gate', () => {
    const input = { changes: [change('db/migration/V2__x.sql')], rules: rules(), limits: LIMITS };
    const pending = evaluateScope(input);
    expect(pending.gateId).toMatch(/^gate-[0-9a-f]{16}$/);
    // The same violations give the same gate, whatever their order.
    expect(evaluateScope(input).gateId).toBe(pending.gateId);
    const approved = evaluateScope({ ...input, approvedGates: [pending.gateId!] });
    expect(approved.status).toBe('PASS');
    expect(approved.gateId).toBe(pending.gateId);
    expect(approved.violations.map((v) => v.rule)).toEqual(['REQUIRES_APPROVAL']);
    // A different change is a different gate: the old approval does not cover it.
    const wider = evaluateScope({ ...input, changes: [...input.changes, change('db/migration/V3__y.sql')], approvedGates: [pending.gateId!] });
    expect(wider.status).toBe('NEEDS_APPROVAL');
    expect(wider.gateId).not.toBe(pending.gateId);
  });

  it('a gate is bound to the content: the same rules on the same paths with other content are another gate', () => {
    // Risk alone (no path rule): before, every HIGH change had the same gate id.
    const risky = (content: string) =>
      evaluateScope({ changes: [change('src/App.java', 2, content)], rules: rules(), limits: LIMITS, riskLevel: 'HIGH', riskReasons: ['x'] });
    const first = risky('blob-1');
    expect(first.status).toBe('NEEDS_APPROVAL');
    expect(risky('blob-1').gateId).toBe(first.gateId);
    const later = evaluateScope({
      changes: [change('src/App.java', 2, 'blob-2')],
      rules: rules(),
      limits: LIMITS,
      riskLevel: 'HIGH',
      riskReasons: ['x'],
      approvedGates: [first.gateId!],
    });
    expect(later.status).toBe('NEEDS_APPROVAL');
    expect(later.gateId).not.toBe(first.gateId);
    // A path-rule gate too: the approval of pom.xml at one content does not cover another.
    const pom = (content: string) => evaluateScope({ changes: [change('db/migration/V2__x.sql', 2, content)], rules: rules(), limits: LIMITS });
    expect(pom('a').gateId).not.toBe(pom('b').gateId);
  });

  it.each([
    ['file budget', { maxFiles: 1, maxLines: 100 }, [change('a'), change('b')], ['FILE_BUDGET']],
    ['line budget', { maxFiles: 10, maxLines: 3 }, [change('a', 4)], ['LINE_BUDGET']],
    ['both budgets', { maxFiles: 1, maxLines: 3 }, [change('a', 2), change('b', 2)], ['FILE_BUDGET', 'LINE_BUDGET']],
  ] as const)('%s -> BUDGET_EXCEEDED', (_name, limits, changes, violations) => {
    const verdict = evaluateScope({ changes: [...changes], rules: rules(), limits });
    expect(verdict.status).toBe('BUDGET_EXCEEDED');
    expect(verdict.violations.map((v) => v.rule)).toEqual(violations);
  });

  it('budgets are inclusive limits and beat approval (an approval cannot pass a budget)', () => {
    expect(evaluateScope({ changes: [change('a', 3), change('b', 3)], rules: rules(), limits: { maxFiles: 2, maxLines: 6 } }).status).toBe('PASS');
    const input = { changes: [change('db/migration/V2__x.sql', 20)], rules: rules(), limits: { maxFiles: 10, maxLines: 10 } };
    expect(evaluateScope(input).status).toBe('BUDGET_EXCEEDED');
    expect(evaluateScope({ ...input, approvedGates: ['gate-anything'] }).status).toBe('BUDGET_EXCEEDED');
  });

  it('counts files and lines of the whole change', () => {
    const verdict = evaluateScope({
      changes: [
        { path: 'a', kind: 'ADDED', insertions: 7, deletions: 0, contentId: 'blob-a' },
        { path: 'b', kind: 'DELETED', insertions: 0, deletions: 5, contentId: 'deleted' },
      ],
      rules: rules(),
      limits: LIMITS,
    });
    expect(verdict).toMatchObject({ status: 'PASS', filesChanged: 2, linesChanged: 12 });
  });
});
