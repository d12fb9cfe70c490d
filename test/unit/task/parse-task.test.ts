import { describe, expect, it } from 'vitest';
import { MAX_TASK_BLOCK_BYTES, MAX_TASK_TEXT_BYTES, parseTask, taskDigest, type ParseTaskInput } from '../../../src/core/task/parse-task.js';
import { TaskContract } from '../../../src/core/task/task-contract.js';
import { TaskError } from '../../../src/core/task/task-error.js';
import { AgentError } from '../../../src/core/errors.js';

const fence = '```';

function taskError(input: ParseTaskInput): TaskError {
  try {
    parseTask(input);
  } catch (error) {
    if (error instanceof TaskError) return error;
    throw error;
  }
  throw new Error('expected a TaskError');
}

const ISSUE = [
  'Move the persistence layer to Jakarta.', // 1
  '', // 2
  `${fence}agent`, // 3
  'mode: draft_pr', // 4
  'paths: [src/main/java, pom.xml]', // 5
  'steps:', // 6
  '  - recipe: migrate-import', // 7
  '    from: javax.persistence', // 8
  '    to: jakarta.persistence', // 9
  'budgets: {maxFiles: 30, maxLines: 1500, maxModelCalls: 0}', // 10
  fence, // 11
  '', // 12
  'Keep the tests green.', // 13
].join('\n');

describe('parseTask', () => {
  it('reads the block from the issue body and keeps the rest as the objective', () => {
    const task = parseTask({ title: 'Jakarta', body: ISSUE, source: 'github' });
    expect(TaskContract.parse(task)).toEqual(task);
    expect(task).toMatchObject({
      schemaVersion: 1,
      title: 'Jakarta',
      objective: 'Move the persistence layer to Jakarta.\n\n\nKeep the tests green.',
      mode: 'draft_pr',
      paths: ['src/main/java', 'pom.xml'],
      steps: [{ recipe: 'migrate-import', from: 'javax.persistence', to: 'jakarta.persistence' }],
      budgets: { maxFiles: 30, maxLines: 1500, maxModelCalls: 0 },
      kind: 'specific',
      blockSource: 'issue',
    });
    expect(task.objective).not.toContain('recipe');
    expect(task.searchTerms.slice(0, 2)).toEqual([
      { term: 'javax.persistence', kind: 'recipe-parameter', source: 'steps[0].from' },
      { term: 'jakarta.persistence', kind: 'recipe-parameter', source: 'steps[0].to' },
    ]);
  });

  it('prefers the block in the triggering comment, and drops the slash-command line from the objective', () => {
    const comment = ['/agent run', 'Only the API module please.', `${fence}agent`, 'mode: analysis', 'paths: [api]', fence].join('\n');
    const task = parseTask({ title: 'Jakarta', body: ISSUE, comment, source: 'github' });
    expect(task.blockSource).toBe('comment');
    expect(task.mode).toBe('analysis');
    expect(task.paths).toEqual(['api']);
    expect(task.steps).toEqual([]);
    expect(task.objective).toBe('Move the persistence layer to Jakarta.\n\n\nKeep the tests green.\n\nOnly the API module please.');
  });

  it('falls back to the body block when the comment has none', () => {
    const task = parseTask({ title: 'Jakarta', body: ISSUE, comment: '/agent run', source: 'github' });
    expect(task.blockSource).toBe('issue');
    expect(task.steps).toHaveLength(1);
  });

  it('lets `/agent analyze` force analysis over the block', () => {
    expect(parseTask({ title: 't', body: ISSUE, forcedMode: 'analysis', source: 'github' }).mode).toBe('analysis');
  });

  it('without a block: draft_pr, no steps, exploratory unless a symbol is named', () => {
    const vague = parseTask({ title: 'Make login faster', body: 'The login page is slow, please improve it.', source: 'github' });
    expect(vague).toMatchObject({ mode: 'draft_pr', steps: [], budgets: {}, blockSource: 'none', kind: 'exploratory', searchTerms: [] });
    expect(vague.paths).toBeUndefined();
    const named = parseTask({ title: 'Speed up', body: 'Cache the result of `SessionStore.load`.', source: 'github' });
    expect(named.kind).toBe('specific');
  });

  it('marks CLI task text as the cli source and names problems after the task file', () => {
    const task = parseTask({ title: 'cli', body: `${fence}agent\nmode: analysis\n${fence}\nLook around.`, source: 'cli' });
    expect(task.blockSource).toBe('cli');
    expect(task.objective).toBe('Look around.');
    const error = taskError({ title: 'cli', body: `${fence}agent\nmod: analysis\n${fence}`, source: 'cli', bodyName: 'task.md' });
    expect(error.format()).toBe('task.md:2:1: mod: unknown key "mod" (did you mean "mode"?)');
  });

  it.each([
    ['tilde fence', `~~~agent\nmode: analysis\n~~~`],
    ['longer fence', `\`\`\`\`agent\nmode: analysis\n\`\`\`\``],
    ['info string with more words', `${fence}agent yaml\nmode: analysis\n${fence}`],
    ['CRLF line endings', `${fence}agent\r\nmode: analysis\r\n${fence}\r\n`],
    ['indented fence', `  ${fence}agent\n  mode: analysis\n  ${fence}`],
  ])('accepts a %s', (_name, body) => {
    expect(parseTask({ title: 't', body, source: 'github' }).mode).toBe('analysis');
  });

  it('ignores an agent fence shown inside another code block, and blocks with other info strings', () => {
    const body = ['How to use:', '````markdown', `${fence}agent`, 'mode: analysis', fence, '````', `${fence}yaml`, 'mode: analysis', fence].join('\n');
    const task = parseTask({ title: 't', body, source: 'github' });
    expect(task.blockSource).toBe('none');
    expect(task.mode).toBe('draft_pr');
    expect(task.objective).toBe(body);
  });

  it('closes a fence only with one at least as long, so a shorter fence inside stays content', () => {
    const body = ['````markdown', fence, `${fence}agent`, 'mode: analysis', fence, '````'].join('\n');
    expect(parseTask({ title: 't', body, source: 'github' }).blockSource).toBe('none');
  });

  it('treats an empty block as no settings', () => {
    const task = parseTask({ title: 't', body: `${fence}agent\n# nothing yet\n${fence}`, source: 'github' });
    expect(task).toMatchObject({ blockSource: 'issue', mode: 'draft_pr', steps: [] });
  });

  it('has a digest over everything but itself, stable and sensitive to the task', () => {
    const a = parseTask({ title: 'Jakarta', body: ISSUE, source: 'github' });
    const b = parseTask({ title: 'Jakarta', body: ISSUE, source: 'github' });
    const c = parseTask({ title: 'Jakarta!', body: ISSUE, source: 'github' });
    expect(a.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(a.digest).toBe(b.digest);
    expect(a.digest).not.toBe(c.digest);
    expect(taskDigest(a)).toBe(a.digest);
    expect(taskDigest({ ...a, objective: 'changed' })).not.toBe(a.digest);
  });
});

describe('parseTask: invalid blocks', () => {
  it('reports every problem with lines relative to the comment it came from', () => {
    const comment = [
      '/agent run', // 1
      'Intro', // 2
      '', // 3
      `${fence}agent`, // 4
      'mode: draft', // 5
      'steps:', // 6
      '  - recipe: replce', // 7
      '    find: x', // 8
      '  - recipe: replace', // 9
      '    finds: a', // 10
      '    replace: b', // 11
      'pathz: [src]', // 12
      fence,
    ].join('\n');
    const error = taskError({ title: 't', body: ISSUE, comment, source: 'github' });
    expect(error).toBeInstanceOf(AgentError);
    expect(error.reason).toBe('TASK_BLOCK_INVALID');
    expect(error.data.problems.map((p) => [p.file, p.line, p.column, p.path, p.type])).toEqual([
      ['comment', 5, 7, 'mode', 'SCHEMA'],
      ['comment', 7, 13, 'steps[0].recipe', 'SCHEMA'],
      ['comment', 9, 5, 'steps[1].find', 'SCHEMA'],
      ['comment', 10, 5, 'steps[1].finds', 'SCHEMA'],
      ['comment', 12, 1, 'pathz', 'SCHEMA'],
    ]);
    const messages = error.data.problems.map((p) => p.message);
    expect(messages[1]).toContain('did you mean "replace"');
    expect(messages[3]).toContain('did you mean "find"');
    expect(messages[4]).toContain('did you mean "paths"');
  });

  it.each([
    // name, body, line, column, type, path
    ['YAML syntax error', `a\nb\n${fence}agent\nmode: [analysis\n${fence}`, 4, 16, 'YAML_SYNTAX', ''],
    [
      'rename to a non-identifier',
      `${fence}agent\nsteps:\n  - recipe: rename-symbol\n    from: Foo\n    to: not valid\n${fence}`,
      5,
      9,
      'SCHEMA',
      'steps[0].to',
    ],
    ['escaping path', `text\n${fence}agent\npaths: [src, ../etc]\n${fence}`, 3, 14, 'SCHEMA', 'paths[1]'],
    ['absolute step path', `${fence}agent\nsteps:\n  - {recipe: replace, find: a, replace: b, paths: [/x]}\n${fence}`, 3, 52, 'SCHEMA', 'steps[0].paths[0]'],
    ['missing recipe', `${fence}agent\nsteps:\n  - find: a\n${fence}`, 3, 5, 'SCHEMA', 'steps[0].recipe'],
    ['bad budget', `${fence}agent\nbudgets:\n  maxFiles: 0\n${fence}`, 3, 13, 'SCHEMA', 'budgets.maxFiles'],
    ['unknown budget key', `${fence}agent\nbudgets: {maxFile: 3}\n${fence}`, 2, 11, 'SCHEMA', 'budgets.maxFile'],
    ['a list instead of a mapping', `${fence}agent\n- mode\n${fence}`, 2, 1, 'SCHEMA', ''],
    ['columns include the removed indentation', `   ${fence}agent\n   mode: x\n   ${fence}`, 2, 10, 'SCHEMA', 'mode'],
    ['CRLF keeps line numbers', `one\r\ntwo\r\n${fence}agent\r\nmode: x\r\n${fence}\r\n`, 4, 7, 'SCHEMA', 'mode'],
  ])('%s', (_name, body, line, column, type, path) => {
    const error = taskError({ title: 't', body, source: 'github' });
    expect(error.reason).toBe('TASK_BLOCK_INVALID');
    expect(error.data.problems[0]).toMatchObject({ file: 'issue', line, column, type, path });
  });

  it('refuses an unclosed block at its opening line', () => {
    const error = taskError({ title: 't', body: `text\n\n${fence}agent\nmode: analysis\n`, source: 'github' });
    expect(error.reason).toBe('TASK_BLOCK_INVALID');
    expect(error.data.problems[0]).toMatchObject({ line: 3, column: 1 });
  });

  it('refuses a block over 64 KiB', () => {
    const body = `${fence}agent\n${'# padding\n'.repeat(MAX_TASK_BLOCK_BYTES / 10 + 1)}${fence}`;
    expect(taskError({ title: 't', body, source: 'github' }).reason).toBe('TASK_BLOCK_TOO_LARGE');
  });

  it('refuses a body or comment over 1 MiB instead of truncating it', () => {
    const big = 'x'.repeat(MAX_TASK_TEXT_BYTES + 1);
    expect(taskError({ title: 't', body: big, source: 'github' }).reason).toBe('TASK_TEXT_TOO_LARGE');
    expect(taskError({ title: 't', body: 'ok', comment: big, source: 'github' }).reason).toBe('TASK_TEXT_TOO_LARGE');
    const multiByte = 'é'.repeat(MAX_TASK_TEXT_BYTES / 2 + 1);
    expect(taskError({ title: 't', body: multiByte, source: 'github' }).data.problems[0].file).toBe('issue');
  });
});

describe('parseTask: bounded time on hostile 1 MiB bodies', () => {
  const shapes: [string, string][] = [
    ['one long word', 'a'.repeat(MAX_TASK_TEXT_BYTES - 100)],
    ['dotted run', 'a.'.repeat((MAX_TASK_TEXT_BYTES - 100) / 2)],
    ['backticks without closers', '`a'.repeat((MAX_TASK_TEXT_BYTES - 100) / 2)],
    ['quotes and identifiers', '"abc'.repeat((MAX_TASK_TEXT_BYTES - 100) / 4)],
    ['fence openers', '```\n'.repeat((MAX_TASK_TEXT_BYTES - 100) / 4)],
    ['CamelCase soup', 'FooBarBaz.quxQuux '.repeat((MAX_TASK_TEXT_BYTES - 100) / 18)],
    ['path-like run', 'a/'.repeat((MAX_TASK_TEXT_BYTES - 100) / 2)],
  ];
  it.each(shapes)('%s parses in well under a second', (_name, body) => {
    const started = performance.now();
    const task = parseTask({ title: 'hostile', body, source: 'github' });
    const elapsed = performance.now() - started;
    expect(task.objective.length).toBeGreaterThan(0);
    expect(task.searchTerms.length).toBeLessThanOrEqual(64);
    // Linear work is ~0.2 s here; a quadratic pattern on 1 MiB would take minutes. Generous for loaded CI.
    expect(elapsed).toBeLessThan(3000);
  });
});
