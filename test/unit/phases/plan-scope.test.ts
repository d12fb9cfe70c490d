import { describe, expect, it } from 'vitest';
import { evaluateScope, type ScopedChange } from '../../../src/core/phases/scope-guard.js';
import { parsePolicy } from '../../../src/core/policy/parse-policy.js';
import { PLAN_GATE_EXAMPLE } from '../../../src/core/policy/plan-gate-reference.js';
import { planGateRequired } from '../../../src/core/runs/plan-gate.js';
import { writePolicyFor } from '../../helpers/path-rules.js';

/** The scope guard holds a change to an approved plan's files (`OUTSIDE_PLAN`), and the plan gate's switches. */

const rules = writePolicyFor({ forbidden: ['secrets/**'], requireApproval: [], lockfiles: [], generated: [] });
const change = (path: string, contentId = `blob-of-${path}`): ScopedChange => ({ path, kind: 'MODIFIED', insertions: 1, deletions: 1, contentId });
const base = { rules, limits: { maxFiles: 10, maxLines: 100 } };

describe('evaluateScope with an approved plan', () => {
  it('passes a change within the plan, and stops a file outside it for an approval naming that file', () => {
    const planFiles = ['src/a.ts', 'src/b.ts'];
    expect(evaluateScope({ ...base, changes: [change('src/a.ts')], planFiles })).toMatchObject({ status: 'PASS', violations: [] });
    const outside = evaluateScope({ ...base, changes: [change('src/a.ts'), change('docs/c.md')], planFiles });
    expect(outside).toMatchObject({
      status: 'NEEDS_APPROVAL',
      violations: [{ rule: 'OUTSIDE_PLAN', path: 'docs/c.md', message: 'not in the approved plan: docs/c.md' }],
      gateId: expect.stringMatching(/^gate-/),
    });
    // The approval of that gate covers that change; another content of the extra file is a new gate.
    expect(evaluateScope({ ...base, changes: [change('src/a.ts'), change('docs/c.md')], planFiles, approvedGates: [outside.gateId!] }).status).toBe('PASS');
    expect(evaluateScope({ ...base, changes: [change('src/a.ts'), change('docs/c.md', 'other')], planFiles, approvedGates: [outside.gateId!] }).status).toBe(
      'NEEDS_APPROVAL',
    );
    // Without a plan nothing is held to one; a forbidden file blocks whatever the plan says.
    expect(evaluateScope({ ...base, changes: [change('docs/c.md')] }).status).toBe('PASS');
    expect(evaluateScope({ ...base, changes: [change('secrets/k')], planFiles: ['secrets/k'] }).status).toBe('BLOCKED');
  });
});

describe('the plan gate switches', () => {
  it('the documented example turns it on for every run; /agent plan turns it on for one', () => {
    const policy = parsePolicy({ text: PLAN_GATE_EXAMPLE });
    expect(policy.agent.requirePlanApproval).toBe(true);
    expect(planGateRequired({ trigger: { kind: 'label', key: 'k' } }, policy)).toBe(true);
    const plain = parsePolicy({ text: 'version: 1\n' });
    expect(plain.agent.requirePlanApproval).toBe(false);
    expect(planGateRequired({ trigger: { kind: 'comment', key: 'k', command: 'run' } }, plain)).toBe(false);
    expect(planGateRequired({ trigger: { kind: 'comment', key: 'k', command: 'plan' } }, plain)).toBe(true);
  });
});
