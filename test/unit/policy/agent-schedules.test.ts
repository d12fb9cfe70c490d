import { describe, expect, it } from 'vitest';
import { AGENT_SCHEDULES_EXAMPLE, cronProblem, eventBridgeCron, MAX_AGENT_SCHEDULES } from '../../../src/core/policy/agent-schedules.js';
import { parsePolicy } from '../../../src/core/policy/parse-policy.js';
import { PolicyError } from '../../../src/core/policy/policy-error.js';

const problemsOf = (text: string) => {
  try {
    parsePolicy({ text, file: 'p.yaml' });
  } catch (error) {
    if (error instanceof PolicyError) return error.data.problems.map((p) => `${p.line}:${p.column} ${p.path}: ${p.message}`);
    throw error;
  }
  return [];
};

describe('agent.schedules: cron rules (croner, five fields, UTC, at most hourly)', () => {
  it.each([
    ['0 * * * *', undefined],
    ['0 6 * * 1', undefined],
    ['15 7 * * 1-5', undefined],
    ['30 2 1 */2 *', undefined],
    ['*/30 * * * *', 'fires more than once an hour; a schedule runs at most hourly'],
    ['0,59 6 * * *', 'fires more than once an hour; a schedule runs at most hourly'],
    ['* 6 * * *', 'fires more than once an hour; a schedule runs at most hourly'],
    ['0 0 6 * * *', 'expected 5 fields (minute hour day-of-month month day-of-week), found 6'],
    ['0 6 1 * 1', 'restrict day-of-month or day-of-week, not both'],
    ['0 6 L * *', 'field "L" uses syntax outside numbers, *, ranges, lists, steps and month or weekday names'],
  ])('%s → %s', (cron, problem) => {
    expect(cronProblem(cron)).toBe(problem);
  });

  it('a pattern croner refuses is refused with its reason', () => {
    expect(cronProblem('61 * * * *')).toMatch(/.+/);
  });

  it.each([
    ['0 6 * * 1', 'cron(0 6 ? * MON *)'],
    ['15 7 * * 1-5', 'cron(15 7 ? * MON-FRI *)'],
    ['0 */2 * * 0,6', 'cron(0 0/2 ? * SUN,SAT *)'],
    ['0 0 * * 7', 'cron(0 0 ? * SUN *)'],
    ['30 2 1 */3 *', 'cron(30 2 1 1/3 ? *)'],
  ])('%s is %s in EventBridge Scheduler', (cron, expression) => {
    expect(eventBridgeCron(cron)).toBe(expression);
  });
});

describe('agent.schedules and agent.on in the policy', () => {
  it('the documented example parses', () => {
    const policy = parsePolicy({ text: AGENT_SCHEDULES_EXAMPLE });
    expect(policy.agent.schedules.map((s) => [s.name, s.mode, s.issue])).toEqual([
      ['weekly-deps', 'draft_pr', 12],
      ['nightly-report', 'analysis', undefined],
    ]);
    expect(policy.agent.on.issueOpened).toEqual({ labels: ['agent:auto'], titlePattern: '^\\[bump\\] ' });
    expect(policy.agent.on.checkSuiteFailed).toEqual({});
  });

  it('reports each bad entry at its line and column', () => {
    const text = `version: 1
agent:
  schedules:
    - name: a
      cron: '*/15 * * * *'
      steps: [{ recipe: replace }]
    - name: a
      cron: '0 6 * * 1'
    - name: Bad_Name
      cron: '0 6 * * 1'
      taskFile: t.md
      steps: [{ recipe: replace }]
  on:
    issueOpened:
      titlePattern: '(?<=x)y'
`;
    expect(problemsOf(text)).toEqual([
      '5:13 agent.schedules[0].cron: fires more than once an hour; a schedule runs at most hourly',
      '7:7 agent.schedules[1].steps: give either taskFile or steps',
      '7:13 agent.schedules[1].name: the name "a" is used twice',
      expect.stringMatching(/^9:13 agent\.schedules\[2\]\.name: lower-case letters/),
      '12:14 agent.schedules[2].steps: give either taskFile or steps',
      expect.stringMatching(/^15:21 agent\.on\.issueOpened\.titlePattern: REGEX_LOOKBEHIND: /),
    ]);
  });

  it(`at most ${MAX_AGENT_SCHEDULES} schedules, each name once`, () => {
    const entry = (i: number) => `    - name: s${i}\n      cron: '${i} 6 * * *'\n      taskFile: t.md\n`;
    const eleven = `version: 1\nagent:\n  schedules:\n${Array.from({ length: 11 }, (_, i) => entry(i)).join('')}`;
    expect(problemsOf(eleven)).toEqual(['4:5 agent.schedules: must have at most 10 items']);
    const twice = `version: 1\nagent:\n  schedules:\n${entry(1)}${entry(1)}`;
    expect(problemsOf(twice)).toEqual(['7:13 agent.schedules[1].name: the name "s1" is used twice']);
  });
});
