import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATION_CHANGED_FILES, MIGRATION_TASK } from '../../fixtures/migration-task.js';
import { mavenMultiModuleRepo } from '../../fixtures/realistic-repos.js';
import { removeRoot, tempRoot } from '../pipeline/pipeline-harness.js';
import { terminalText } from '../../../src/core/text/terminal-text.js';
import { cli, makeWorkingCopy } from './cli-harness.js';

/** `draftsman run` on an analysis task prints the analysis report the App posts on an issue. */
let root: string;
let work: string;
let taskFile: string;

beforeAll(() => {
  root = tempRoot('cli-analysis');
  work = join(root, 'orders');
  makeWorkingCopy(work, mavenMultiModuleRepo());
  taskFile = join(root, 'task.md');
  writeFileSync(taskFile, MIGRATION_TASK.replace('mode: draft_pr', 'mode: analysis'));
});

afterAll(() => removeRoot(root));

describe('draftsman run: analysis report', () => {
  it('analysis report: printed on stdout, the same text as the run-report.md artifact, claiming no change', async () => {
    const out = join(root, 'state');
    const result = await cli(['run', work, '--task-file', taskFile, '--out', out]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('COMPLETED');
    const reports = readdirSync(out, { recursive: true, encoding: 'utf8' }).filter((p) => p.endsWith('/run-report.md'));
    expect(reports).toHaveLength(1);
    expect(result.stdout).toBe(`${terminalText(readFileSync(join(out, reports[0]), 'utf8'))}\n`);
    expect(result.stdout).toMatch(/^<!-- draftsman:analysis-report run=[a-z2-7]{12} attempt=1 -->\n## Analysis: /);
    for (const heading of [
      '### Plan',
      '### Target files (3)',
      '### Modules and owners',
      '### Risk (forecast)',
      '### Open questions',
      '### Ready-to-paste task',
    ])
      expect(result.stdout).toContain(heading);
    for (const path of MIGRATION_CHANGED_FILES) expect(result.stdout).toContain(`| \`${path}\` |`);
    expect(result.stdout).toContain('draftsman changed no file, made no commit and opened no pull request');
    expect(result.stdout).not.toMatch(/\bChanged \d+ files?\b/i);
  });

  it('analysis report: with --json, stdout is the JSON line only, and its artifacts name the report', async () => {
    const result = await cli(['run', work, '--task-file', taskFile, '--out', join(root, 'state-json'), '--json']);
    expect(result.code).toBe(0);
    expect(result.stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(result.json).toMatchObject({ status: 'COMPLETED' });
    expect(result.json!.headCommitSha).toBeUndefined();
    expect(readFileSync(result.json!.artifacts['run-report.md'], 'utf8')).toContain('### Ready-to-paste task');
  });

  it('analysis report: --mode analysis turns a draft_pr task into an analysis, with its own run id', async () => {
    const draft = join(root, 'draft.md');
    writeFileSync(draft, MIGRATION_TASK);
    const out = join(root, 'state-mode');
    const analysed = await cli(['run', work, '--task-file', draft, '--out', out, '--mode', 'analysis', '--json']);
    const drafted = await cli(['run', work, '--task-file', draft, '--out', out, '--json']);
    expect(analysed.json).toMatchObject({ status: 'COMPLETED' });
    expect(analysed.json!.headCommitSha).toBeUndefined();
    expect(readFileSync(analysed.json!.artifacts['run-report.md'], 'utf8')).toMatch(/^<!-- draftsman:analysis-report /);
    expect(drafted.json!.headCommitSha).toMatch(/^[0-9a-f]{40}$/);
    expect(drafted.json!.runId).not.toBe(analysed.json!.runId);
    expect((await cli(['run', work, '--task-file', draft, '--mode', 'nope'])).code).toBe(2);
  });
});
