import { describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../../src/core/policy/agent-policy.js';
import { parsePolicy } from '../../../src/core/policy/parse-policy.js';
import { PolicyError } from '../../../src/core/policy/policy-error.js';

function problemsOf(text: string) {
  try {
    parsePolicy({ text });
  } catch (error) {
    if (error instanceof PolicyError) return error.data.problems;
    throw error;
  }
  throw new Error('expected a PolicyError');
}

describe('policy: agent.ciRepair.maxAttempts (ci repair)', () => {
  it('defaults to one attempt, with or without the section', () => {
    expect(defaultPolicy().agent.ciRepair).toEqual({ maxAttempts: 1 });
    expect(parsePolicy({ text: 'version: 1\nagent:\n  ciRepair: {}\n' }).agent.ciRepair.maxAttempts).toBe(1);
  });

  it.each([0, 1, 5])('accepts maxAttempts %i (0 turns repair off)', (n) => {
    expect(parsePolicy({ text: `version: 1\nagent:\n  ciRepair:\n    maxAttempts: ${n}\n` }).agent.ciRepair.maxAttempts).toBe(n);
  });

  it.each([
    ['more than five', 'maxAttempts: 6', 'agent.ciRepair.maxAttempts', 'must be at most 5'],
    ['negative', 'maxAttempts: -1', 'agent.ciRepair.maxAttempts', 'must be at least 0'],
    ['a fraction', 'maxAttempts: 1.5', 'agent.ciRepair.maxAttempts', 'whole number'],
    ['a key typo', 'maxAtempts: 2', 'agent.ciRepair.maxAtempts', 'did you mean "maxAttempts"'],
  ])('refuses %s at its line', (_name, entry, path, fragment) => {
    const problems = problemsOf(`version: 1\nagent:\n  ciRepair:\n    ${entry}\n`);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ path, line: 4, type: 'SCHEMA' });
    expect(problems[0].message).toContain(fragment);
  });
});
