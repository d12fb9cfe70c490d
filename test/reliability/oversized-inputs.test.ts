import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliIo } from '../../src/app/cli/run-cli.js';
import { MAX_POLICY_FILE_BYTES } from '../../src/core/policy/agent-policy.js';
import { parsePolicy } from '../../src/core/policy/parse-policy.js';
import { PolicyError } from '../../src/core/policy/policy-error.js';
import { MAX_TASK_TEXT_BYTES, parseTask } from '../../src/core/task/parse-task.js';
import { TaskError } from '../../src/core/task/task-error.js';
import { makeBareRepo } from '../fixtures/make-repo.js';
import { MAX_HOSTILE_HEAP_MB, MAX_HOSTILE_MS, measure, treeSnapshot } from './bounds.js';
import { removeRoot, tempRoot } from './temp-root.js';

/**
 * Oversized and malformed human inputs (issue 8): a policy over 1 MiB, YAML alias bombs, a task
 * block that is not YAML, a 1 MB issue body. Each ends with its reason code, in bounded time
 * and heap, through the parsers and through the CLI.
 */
const NOW = Date.UTC(2026, 1, 3, 4, 5, 6);
const silent = { debug() {}, info() {}, warn() {}, error() {} };
let root: string;

/** A syntactically valid policy padded with comments to `bytes` bytes. */
function paddedPolicy(bytes: number): string {
  const head = 'version: 1\nagent:\n  enabled: true\n';
  const line = `# ${'x'.repeat(77)}\n`;
  return head + line.repeat(Math.ceil((bytes - head.length) / line.length));
}

/** "Billion laughs": nine levels of aliases, each ten times the one below. */
function aliasBomb(indent = ''): string {
  const lines = [`${indent}a0: &a0 "lol"`];
  for (let i = 1; i <= 9; i++) lines.push(`${indent}a${i}: &a${i} [${Array.from({ length: 10 }, () => `*a${i - 1}`).join(', ')}]`);
  return lines.join('\n');
}

async function cli(argv: string[]): Promise<{ code: number; json: Record<string, unknown> | undefined; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    env: {},
    cwd: root,
    clock: { now: () => NOW },
    isTty: false,
    logger: silent,
  };
  const code = await runCli(argv, io);
  let json: Record<string, unknown> | undefined;
  try {
    json = JSON.parse(stdout.trim().split('\n').pop() ?? '');
  } catch {
    json = undefined;
  }
  return { code, json, stdout, stderr };
}

function bounded(m: { ms: number; heapPeakDeltaMb: number }): void {
  expect(m.ms).toBeLessThan(MAX_HOSTILE_MS);
  expect(m.heapPeakDeltaMb).toBeLessThan(MAX_HOSTILE_HEAP_MB);
}

beforeAll(() => {
  root = tempRoot('oversized');
  makeBareRepo(join(root, 'big-policy.git'), { 'README.md': '# x\n', '.agent-policy.yaml': paddedPolicy(MAX_POLICY_FILE_BYTES + 4096) });
  makeBareRepo(join(root, 'small.git'), { 'README.md': '# x\n', 'src/helper.ts': 'export function helper(): number {\n  return 1;\n}\n' });
});

afterAll(() => removeRoot(root));

describe('.agent-policy.yaml', () => {
  it('over 1 MiB: POLICY_FILE_TOO_LARGE before any parsing, as text and as bytes', async () => {
    const text = paddedPolicy(MAX_POLICY_FILE_BYTES + 1);
    for (const input of [text, new TextEncoder().encode(text)]) {
      const m = await measure(async () => parsePolicy({ text: input }));
      expect(m.error).toBeInstanceOf(PolicyError);
      expect((m.error as PolicyError).reason).toBe('POLICY_FILE_TOO_LARGE');
      bounded(m);
    }
    // Just under the cap parses (the cap is the only reason above).
    expect(parsePolicy({ text: paddedPolicy(MAX_POLICY_FILE_BYTES - 200) }).agent.enabled).toBe(true);
  });

  it('a YAML alias bomb is POLICY_FILE_INVALID, not a billion strings', async () => {
    const m = await measure(async () => parsePolicy({ text: `version: 1\nx-bomb:\n${aliasBomb('  ')}\n` }));
    expect(m.error).toBeInstanceOf(PolicyError);
    expect((m.error as PolicyError).reason).toBe('POLICY_FILE_INVALID');
    bounded(m);
  });

  it('in the repository: the CLI blocks the run with POLICY_FILE_TOO_LARGE and writes only under --out', async () => {
    const before = treeSnapshot(root);
    const m = await measure(() => cli(['ingest', join(root, 'big-policy.git'), '--json', '--out', join(root, 'out-policy')]));
    expect(m.value?.code).toBe(1);
    expect(m.value?.json).toMatchObject({ status: 'BLOCKED', reason: 'POLICY_FILE_TOO_LARGE' });
    bounded(m);
    const outside = (rel: string) => rel === 'out-policy' || rel.startsWith('out-policy/');
    expect(treeSnapshot(root, outside)).toEqual(before);
  });

  it('`policy check` on a 1 MiB+ file exits 1 with the reason', async () => {
    writeFileSync(join(root, 'huge-policy.yaml'), paddedPolicy(MAX_POLICY_FILE_BYTES + 10));
    const result = await cli(['policy', 'check', 'huge-policy.yaml', '--json']);
    expect(result.code).toBe(1);
    expect(result.json).toMatchObject({ status: 'INVALID', reason: 'POLICY_FILE_TOO_LARGE' });
  });
});

describe('the task text', () => {
  const base = { title: 'Rename helper', source: 'github' as const };

  it.each([
    ['an unclosed flow mapping', '```agent\nmode: {draft_pr\nsteps: [\n```', 'YAML_SYNTAX'],
    ['prose instead of YAML', '```agent\nPlease just do the right thing: rename it, and: also: this\n```', 'YAML_SYNTAX'],
    ['tabs and a stray quote', '```agent\n\tmode: "draft_pr\n```', 'YAML_SYNTAX'],
    ['a scalar, not a mapping', '```agent\njust words\n```', 'SCHEMA'],
  ])('a block that is not valid YAML (%s) is TASK_BLOCK_INVALID with its line', async (_name, block, type) => {
    const body = `Intro line.\n\n${block}\n`;
    const m = await measure(async () => parseTask({ ...base, body }));
    expect(m.error).toBeInstanceOf(TaskError);
    const error = m.error as TaskError;
    expect(error.reason).toBe('TASK_BLOCK_INVALID');
    expect(error.data.problems[0]).toMatchObject({ file: 'issue', type });
    expect(error.data.problems[0].line).toBeGreaterThanOrEqual(3);
    bounded(m);
  });

  it('an alias bomb in the block is TASK_BLOCK_INVALID', async () => {
    const m = await measure(async () => parseTask({ ...base, body: `\`\`\`agent\n${aliasBomb()}\n\`\`\`\n` }));
    expect((m.error as TaskError).reason).toBe('TASK_BLOCK_INVALID');
    bounded(m);
  });

  it('a 1 MB issue body (under the 1 MiB cap) parses in bounded time, whole', async () => {
    const paragraph = 'The helper in src/helper.ts should be renamed to computeTotal everywhere it is used. ';
    const body = paragraph.repeat(Math.floor(1_000_000 / paragraph.length));
    expect(body.length).toBeLessThanOrEqual(MAX_TASK_TEXT_BYTES);
    const m = await measure(async () => parseTask({ ...base, body }));
    expect(m.error).toBeUndefined();
    expect(m.value?.objective.length).toBe(body.trim().length);
    bounded(m);
  });

  it('a 1 MB body of unclosed fences and backticks is still linear', async () => {
    const body = '```x\n'.repeat(100_000) + '`'.repeat(400_000);
    const m = await measure(async () => parseTask({ ...base, body }));
    expect(m.error).toBeUndefined();
    bounded(m);
  });

  it.each([
    ['body', { body: 'x'.repeat(MAX_TASK_TEXT_BYTES + 1) }],
    ['comment', { body: 'ok', comment: `/agent run\n${'é'.repeat(MAX_TASK_TEXT_BYTES / 2 + 1)}` }],
  ])('a %s over 1 MiB is TASK_TEXT_TOO_LARGE (refused, never truncated)', async (_name, input) => {
    const m = await measure(async () => parseTask({ ...base, ...input }));
    expect((m.error as TaskError).reason).toBe('TASK_TEXT_TOO_LARGE');
    bounded(m);
  });

  it('through the CLI: a --task-file whose block is not YAML fails with TASK_BLOCK_INVALID', async () => {
    writeFileSync(join(root, 'task.md'), 'Rename helper\n\n```agent\nsteps: [\n  - recipe: rename-symbol\n```\n');
    const result = await cli(['targets', join(root, 'small.git'), '--task-file', 'task.md', '--json', '--out', join(root, 'out-task')]);
    expect(result.code).toBe(1);
    expect(result.json).toMatchObject({ status: 'FAILED', reason: 'TASK_BLOCK_INVALID' });
  });

  it('through the CLI: a task file over 1 MiB fails with TASK_TEXT_TOO_LARGE in bounded time', async () => {
    writeFileSync(join(root, 'huge-task.md'), `Rename helper\n\n${'word '.repeat(MAX_TASK_TEXT_BYTES / 5 + 10)}`);
    const m = await measure(() => cli(['targets', join(root, 'small.git'), '--task-file', 'huge-task.md', '--json', '--out', join(root, 'out-huge')]));
    expect(m.value?.code).toBe(1);
    expect(m.value?.json).toMatchObject({ status: 'FAILED', reason: 'TASK_TEXT_TOO_LARGE' });
    bounded(m);
  });
});
