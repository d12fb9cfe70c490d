import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeRoot, tempRoot } from '../pipeline/pipeline-harness.js';
import { cli } from './cli-harness.js';

/** `draftsman policy check|schema` (issue 2): a broken policy is reported as `file:line:col: message` lines. */
let root: string;

const BROKEN = `version: 1
agent:
  maxChangedFiles: -3
  forbiddenPaths:
    - 42
  colour: blue
`;

/** `agent.rules` with a mistyped event, tool class and action, a lookahead, and a tool rule that would wait for approval. */
const RULES = `version: 1
agent:
  rules:
    - on: tools
      tools: [serch]
      action: deny
      reason: a
    - on: change
      addedLines: 'secret(?=s)'
      action: denny
      reason: b
    - on: tool
      action: require-approval
      reason: c
`;

/** `agent.schedules` with a cron that fires twice an hour and one with six fields. */
const SCHEDULES = `version: 1
agent:
  schedules:
    - name: often
      cron: '0,30 * * * *'
      taskFile: t.md
    - name: seconds
      cron: '0 0 6 * * *'
      taskFile: t.md
`;

beforeAll(() => {
  root = tempRoot('cli-policy');
  writeFileSync(join(root, 'broken.yaml'), BROKEN);
  writeFileSync(join(root, 'rules.yaml'), RULES);
  writeFileSync(join(root, 'schedules.yaml'), SCHEDULES);
  writeFileSync(join(root, 'syntax.yaml'), 'version: 1\nagent:\n  forbiddenPaths: [a\n');
  writeFileSync(
    join(root, 'valid.yaml'),
    'version: 1\nagent:\n  forbiddenPaths:\n    - .github/workflows/**\n  requireApprovalFor:\n    - db/migration/**\n  maxChangedFiles: 12\n',
  );
  mkdirSync(join(root, 'repo'));
  writeFileSync(join(root, 'repo', '.agent-policy.yaml'), BROKEN);
});

afterAll(() => removeRoot(root));

describe('draftsman policy check', () => {
  it('a broken policy: one file:line:col line per problem, in document order, exit 1', async () => {
    const result = await cli(['policy', 'check', 'broken.yaml'], { cwd: root });
    expect(result.code).toBe(1);
    expect(result.stdout.trimEnd().split('\n')).toEqual([
      'broken.yaml:3:20: agent.maxChangedFiles: must be greater than 0',
      'broken.yaml:5:7: agent.forbiddenPaths[0]: expected a string, found number 42',
      expect.stringMatching(/^broken\.yaml:6:3: agent\.colour: unknown key "colour"/),
    ]);
  });

  it('agent.rules: each bad rule at its file:line:col, with the nearest event, tool class or action', async () => {
    const result = await cli(['policy', 'check', 'rules.yaml'], { cwd: root });
    expect(result.code).toBe(1);
    expect(result.stdout.trimEnd().split('\n')).toEqual([
      'rules.yaml:4:11: agent.rules[0].on: "tools" is not allowed (did you mean "tool"?); expected one of: tool, change',
      'rules.yaml:5:15: agent.rules[0].tools[0]: "serch" is not allowed (did you mean "search"?); expected one of: read, search, write, delete',
      expect.stringMatching(/^rules\.yaml:9:19: agent\.rules\[1\]\.addedLines: REGEX_LOOKAHEAD: /),
      'rules.yaml:10:15: agent.rules[1].action: "denny" is not allowed (did you mean "deny"?); expected one of: deny, require-approval',
      expect.stringMatching(/^rules\.yaml:13:15: agent\.rules\[2\]\.action: a tool call cannot wait for an approval/),
    ]);
  });

  it('a YAML syntax error points at its line and column', async () => {
    const result = await cli(['policy', 'check', 'syntax.yaml'], { cwd: root });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^syntax\.yaml:\d+:\d+: .+/);
  });

  it('reports a schedule that fires more than hourly, or is not five fields, at its line and column', async () => {
    const result = await cli(['policy', 'check', 'schedules.yaml'], { cwd: root });
    expect(result.code).toBe(1);
    expect(result.stdout.trimEnd().split('\n')).toEqual([
      'schedules.yaml:5:13: agent.schedules[0].cron: fires more than once an hour; a schedule runs at most hourly',
      'schedules.yaml:8:13: agent.schedules[1].cron: expected 5 fields (minute hour day-of-month month day-of-week), found 6',
    ]);
  });

  it('with --json the last line is the machine-readable verdict', async () => {
    const result = await cli(['policy', 'check', 'broken.yaml', '--json'], { cwd: root });
    expect(result.code).toBe(1);
    expect(result.json).toMatchObject({ file: 'broken.yaml', status: 'INVALID', reason: 'POLICY_FILE_INVALID' });
    expect(result.json!.problems.map((p: { line: number; column: number; path: string }) => [p.line, p.column, p.path])).toEqual([
      [3, 20, 'agent.maxChangedFiles'],
      [5, 7, 'agent.forbiddenPaths[0]'],
      [6, 3, 'agent.colour'],
    ]);
  });

  it('a valid policy exits 0', async () => {
    const result = await cli(['policy', 'check', 'valid.yaml'], { cwd: root });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('valid.yaml: valid\n');
    expect((await cli(['policy', 'check', join(root, 'valid.yaml'), '--json'])).json).toEqual({
      file: join(root, 'valid.yaml'),
      status: 'VALID',
      problems: [],
      warnings: [],
    });
  });

  it('a deprecated key is a warning with the line to write instead; the policy stays valid', async () => {
    writeFileSync(join(root, 'old.yaml'), 'version: 1\ningestion:\n  maxFileSizeMb: 2\n  allowSubmodules: false\n');
    const result = await cli(['policy', 'check', 'old.yaml'], { cwd: root });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      'old.yaml: valid, 1 warning(s)\nold.yaml:4:3: ingestion.allowSubmodules: deprecated, still read; write `submodules: block` instead\n',
    );
    const json = (await cli(['policy', 'check', 'old.yaml', '--json'], { cwd: root })).json;
    expect(json).toMatchObject({ status: 'VALID', warnings: [{ line: 4, column: 3, type: 'DEPRECATED', path: 'ingestion.allowSubmodules' }] });
  });

  it('an unclosed glob is an error, not a pattern that matches nothing', async () => {
    writeFileSync(join(root, 'globs.yaml'), 'version: 1\nagent:\n  forbiddenPaths:\n    - "src/[abc"\n    - "**/*.{sql"\n');
    const result = await cli(['policy', 'check', 'globs.yaml'], { cwd: root });
    expect(result.code).toBe(1);
    expect(result.stdout.trimEnd().split('\n')).toEqual([
      'globs.yaml:4:7: agent.forbiddenPaths[0]: "[" at position 5 is never closed: end the character class with "]"',
      'globs.yaml:5:7: agent.forbiddenPaths[1]: "{" is never closed: end the alternatives with "}", as in "**/*.{ts,tsx}"',
    ]);
  });

  it('without FILE it checks .agent-policy.yaml in the current directory', async () => {
    const result = await cli(['policy', 'check'], { cwd: join(root, 'repo') });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^\.agent-policy\.yaml:3:20: /);
  });

  it.each([
    ['a missing file', ['policy', 'check', 'nope.yaml'], /cannot read nope\.yaml/],
    ['two files', ['policy', 'check', 'a.yaml', 'b.yaml'], /at most one FILE/],
    ['an unknown subcommand', ['policy', 'lint'], /unknown policy command: lint/],
    ['schema with an argument', ['policy', 'schema', 'x'], /takes no arguments/],
  ])('usage error: %s -> 2', async (_what, argv, message) => {
    const result = await cli(argv, { cwd: root });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });
});

describe('draftsman policy schema', () => {
  it('prints the committed JSON Schema exactly', async () => {
    const result = await cli(['policy', 'schema']);
    expect(result.code).toBe(0);
    const committed = readFileSync(new URL('../../../schema/agent-policy.schema.json', import.meta.url), 'utf8');
    expect(JSON.parse(result.stdout)).toEqual(JSON.parse(committed));
    expect(JSON.parse(result.stdout).properties).toHaveProperty('agent');
  });
});
