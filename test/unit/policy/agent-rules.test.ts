import { describe, expect, it } from 'vitest';
import { changeRuleFirings, evaluateRules } from '../../../src/core/paths/policy-rules.js';
import { evaluateScope } from '../../../src/core/phases/scope-guard.js';
import { TOOL_CLASSES, toolCallFirings, toolClassOf } from '../../../src/core/phases/tool-classes.js';
import { TOOL_NAMES } from '../../../src/core/phases/phase-contracts.js';
import { AGENT_RULES_EXAMPLE, AgentRules, type AgentRule } from '../../../src/core/policy/agent-rules.js';
import { parsePolicy } from '../../../src/core/policy/parse-policy.js';
import { writePolicyFor } from '../../helpers/path-rules.js';

const rules = (raw: unknown[]): AgentRule[] => AgentRules.parse(raw);

describe('agent.rules: evaluation', () => {
  const policy = rules([
    { on: 'tool', tools: ['read', 'search'], paths: ['secrets/**'], action: 'deny', reason: 'no key material' },
    { on: 'tool', tools: ['write'], addedLines: 'eval\\(', action: 'deny', reason: 'no eval' },
    { on: 'change', tools: ['delete'], action: 'require-approval', reason: 'deletions are reviewed' },
    { on: 'change', paths: ['db/'], addedLines: 'DROP TABLE', action: 'deny', reason: 'no drops' },
  ]);

  it.each([
    ['a read under secrets/ (any case)', 'file_read', { path: 'Secrets/prod.pem' }, [0]],
    ['a search naming secrets/', 'code_search', { query: 'key', paths: ['src', 'secrets/a'] }, [0]],
    ['a search with no paths: nothing to match', 'code_search', { query: 'key' }, []],
    ['a read elsewhere', 'file_read', { path: 'src/a.ts' }, []],
    ['a write adding eval(', 'file_edit', { path: 'src/a.ts', oldText: 'x', newText: 'const y = 1;\nreturn eval(s);' }, [1]],
    ['a write without it', 'file_write', { path: 'src/a.ts', content: 'evaluate(s)' }, []],
    ['a delete is not a write', 'file_delete', { path: 'secrets/a' }, []],
    ['a tool without a class', 'verify_commands', { path: 'secrets/a' }, []],
  ])('on: tool — %s', (_what, tool, args, fired) => {
    expect(toolCallFirings(policy, tool, args).map((f) => f.rule)).toEqual(fired);
  });

  it('on: change — deletions wait for approval, added lines under db/ are denied, each with its path', () => {
    const firings = changeRuleFirings(policy, [
      { path: 'old/a.ts', deleted: true, addedLines: [] },
      { path: 'db/1.sql', deleted: false, addedLines: ['create table x;', 'DROP TABLE orders;'] },
      { path: 'src/1.sql', deleted: false, addedLines: ['DROP TABLE orders;'] },
    ]);
    expect(firings).toEqual([
      { rule: 2, on: 'change', action: 'require-approval', reason: 'deletions are reviewed', path: 'old/a.ts' },
      { rule: 3, on: 'change', action: 'deny', reason: 'no drops', path: 'db/1.sql' },
    ]);
  });

  it('tool rules never fire on a change and change rules never on a tool call', () => {
    expect(evaluateRules(policy, { on: 'change', toolClass: 'read', paths: ['secrets/a'], addedLines: [] })).toEqual([]);
    expect(evaluateRules(policy, { on: 'tool', toolClass: 'delete', paths: ['db/a'], addedLines: ['DROP TABLE'] })).toEqual([]);
  });

  it('every tool has a class in one table, and an unknown name has none', () => {
    expect(Object.keys(TOOL_CLASSES).sort()).toEqual([...TOOL_NAMES].sort());
    expect(toolClassOf('file_delete')).toBe('delete');
    expect(toolClassOf('file_read_v2')).toBeNull();
  });
});

describe('agent.rules: in the scope guard', () => {
  const base = { rules: writePolicyFor({ forbidden: [], requireApproval: [] }), limits: { maxFiles: 10, maxLines: 100 } };
  const changes = [{ path: 'old/a.ts', kind: 'DELETED', insertions: 0, deletions: 3, contentId: 'deleted' }];

  it('a deny firing blocks with RULE_DENIED and the rule reason', () => {
    const verdict = evaluateScope({ ...base, changes, ruleFirings: [{ rule: 0, on: 'change', action: 'deny', reason: 'no drops', path: 'old/a.ts' }] });
    expect(verdict).toMatchObject({
      status: 'BLOCKED',
      violations: [{ rule: 'RULE_DENIED', path: 'old/a.ts', message: 'agent.rules[0] (deny): no drops (old/a.ts)' }],
    });
  });

  it('a require-approval firing stops at an approval gate, which an approval of that gate passes', () => {
    const ruleFirings = [{ rule: 2, on: 'change' as const, action: 'require-approval' as const, reason: 'deletions are reviewed', path: 'old/a.ts' }];
    const verdict = evaluateScope({ ...base, changes, ruleFirings });
    expect(verdict).toMatchObject({
      status: 'NEEDS_APPROVAL',
      violations: [{ rule: 'RULE_APPROVAL', path: 'old/a.ts' }],
      gateId: expect.stringMatching(/^gate-/),
    });
    expect(evaluateScope({ ...base, changes, ruleFirings, approvedGates: [verdict.gateId!] }).status).toBe('PASS');
  });
});

describe('agent.rules: the schema', () => {
  it('the documented example parses', () => {
    expect(parsePolicy({ text: AGENT_RULES_EXAMPLE }).agent.rules).toHaveLength(4);
  });

  it('refuses a pattern RE2 cannot run in linear time, a tool rule that would wait for approval, and require-approval by added lines', () => {
    const problems = (raw: unknown) => AgentRules.safeParse([raw]).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(problems({ on: 'change', addedLines: '(a)\\1', action: 'deny', reason: 'r' })).toEqual([
      expect.stringMatching(/^0\.addedLines: REGEX_BACKREFERENCE: /),
    ]);
    expect(problems({ on: 'tool', action: 'require-approval', reason: 'r' })).toEqual([
      expect.stringMatching(/^0\.action: a tool call cannot wait for an approval/),
    ]);
    expect(problems({ on: 'change', addedLines: 'x', action: 'require-approval', reason: 'r' })).toEqual([
      expect.stringMatching(/^0\.addedLines: an approval covers paths/),
    ]);
  });
});
