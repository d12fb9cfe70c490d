import { describe, expect, it } from 'vitest';
import { evaluateScope } from '../../../src/core/phases/scope-guard.js';
import { outsiderWords } from '../../../src/core/prose/outsider-words.js';
import { policyViews } from '../../../src/core/paths/policy-views.js';
import { defaultPolicy } from '../../../src/core/policy/agent-policy.js';

const issue = (over: Partial<{ title: string; body: string; author: string; authorCanWrite: boolean }> = {}) => ({
  title: 'Bump lodash from 4.17.20 to 4.17.21',
  body: '',
  author: 'stranger',
  authorCanWrite: false,
  ...over,
});

describe("whose words: steps read from an outsider's issue wait for a maintainer", () => {
  it('applies to an issue by someone without write access whose words name a step, when the policy runs steps read from prose', () => {
    expect(outsiderWords({ issue: issue(), blockSteps: 0, inferSteps: 'run' })).toBe('stranger');
  });

  it.each([
    ['the author can write', { issue: issue({ authorCanWrite: true }), blockSteps: 0, inferSteps: 'run' as const }],
    [
      'the intake did not record the author (a CLI run)',
      { issue: { title: 'Bump lodash from 4.17.20 to 4.17.21', body: '' }, blockSteps: 0, inferSteps: 'run' as const },
    ],
    ['the task block names the steps', { issue: issue(), blockSteps: 1, inferSteps: 'run' as const }],
    ['the policy only suggests steps read from prose', { issue: issue(), blockSteps: 0, inferSteps: 'suggest' as const }],
    ['the words name no step', { issue: issue({ title: 'The login page is slow on Safari' }), blockSteps: 0, inferSteps: 'run' as const }],
  ])('does not apply when %s', (_why, input) => {
    expect(outsiderWords(input)).toBeUndefined();
  });

  it('the scope guard stops such a change for approval, and the approved gate lets it pass', () => {
    const input = {
      changes: [{ path: 'package.json', kind: 'MODIFIED' as const, insertions: 1, deletions: 1, contentId: 'abc' }],
      rules: policyViews(defaultPolicy()).rules,
      limits: { maxFiles: 30, maxLines: 1500 },
      riskLevel: 'LOW' as const,
    };
    expect(evaluateScope(input).status).toBe('PASS');
    const stopped = evaluateScope({ ...input, outsiderWords: 'stranger' });
    expect(stopped).toMatchObject({ status: 'NEEDS_APPROVAL', violations: [{ rule: 'OUTSIDER_WORDS' }] });
    expect(stopped.violations[0].message).toContain('stranger');
    expect(evaluateScope({ ...input, outsiderWords: 'stranger', approvedGates: [stopped.gateId!] }).status).toBe('PASS');
  });
});
