import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identityFromLocalPath } from '../../../src/app/git/repo-identity.js';
import { mavenMultiModuleRepo } from '../../fixtures/realistic-repos.js';
import { cli, makeWorkingCopy } from '../cli/cli-harness.js';
import { EXPECTED_CHANGED, MIGRATION_POLICY, MIGRATION_TASK, removeRoot, tempRoot } from './pipeline-harness.js';

/**
 * The pipeline's stops through `draftsman run`: approval gates, budgets,
 * analysis mode, cancel markers, forbidden scope and invalid task blocks, each with its exit code.
 */
let root: string;
let repo: string;
let taskFile: string;

function writePolicy(name: string, text: string): string {
  const file = join(root, name);
  writeFileSync(file, text);
  return file;
}

function json(path: string): any {
  return JSON.parse(readFileSync(path, 'utf8'));
}

beforeAll(() => {
  root = tempRoot('gates');
  repo = join(root, 'orders');
  makeWorkingCopy(repo, { ...mavenMultiModuleRepo(), '.agent-policy.yaml': MIGRATION_POLICY });
  taskFile = join(root, 'task.md');
  writeFileSync(taskFile, MIGRATION_TASK);
});

afterAll(() => removeRoot(root));

describe('approval gate', () => {
  it('requireApprovalFor stops with exit 3 and approval-request.json; --approve passes the gate and completes', async () => {
    const out = join(root, 'state-approval');
    const policy = writePolicy('approval.yaml', `${MIGRATION_POLICY}  requireApprovalFor:\n    - pom.xml\n`);
    const first = await cli(['run', repo, '--task-file', taskFile, '--out', out, '--policy', policy, '--json']);
    expect(first.code).toBe(3);
    expect(first.json).toMatchObject({ status: 'NEEDS_APPROVAL', reason: 'APPROVAL_REQUIRED', attempt: 1 });
    const request = json(first.json!.artifacts['approval-request.json']);
    expect(request).toMatchObject({ runId: first.json!.runId, attempt: 1, recommended: 'approve' });
    expect(request.violations).toEqual([{ rule: 'REQUIRES_APPROVAL', path: 'pom.xml', message: 'policy requires approval for: pom.xml' }]);
    expect(request.options.map((o: { id: string }) => o.id)).toEqual(['approve', 'narrow', 'cancel']);
    expect(first.json!.details.gateId).toBe(request.gateId);
    expect(existsSync(join(first.json!.runDir, 'candidate'))).toBe(false);
    expect(json(join(first.json!.runDir, 'run.json'))).toMatchObject({ status: 'NEEDS_APPROVAL', pendingGate: request.gateId });

    const approved = await cli(['run', repo, '--task-file', taskFile, '--out', out, '--policy', policy, '--json', '--approve']);
    expect(approved.code).toBe(0);
    expect(approved.json).toMatchObject({ status: 'COMPLETED', attempt: 2, runId: first.json!.runId });
    expect(json(join(first.json!.runDir, 'attempts', '2', 'request.json'))).toMatchObject({ reason: 'approve', approvedGates: [request.gateId] });
    const candidate = json(approved.json!.artifacts['pr-candidate.json']);
    expect(candidate.files.map((f: { path: string }) => f.path).sort()).toEqual(EXPECTED_CHANGED);
    expect(candidate.headCommitSha).toBe(approved.json!.headCommitSha);
  }, 30_000);

  it('without --approve the same gate stops again', async () => {
    const out = join(root, 'state-approval-2');
    const policy = writePolicy('approval2.yaml', `${MIGRATION_POLICY}  requireApprovalFor:\n    - '**/*.java'\n`);
    const first = await cli(['run', repo, '--task-file', taskFile, '--out', out, '--policy', policy, '--json']);
    const again = await cli(['run', repo, '--task-file', taskFile, '--out', out, '--policy', policy, '--json']);
    expect([first.code, again.code]).toEqual([3, 3]);
    expect(again.json).toMatchObject({ status: 'NEEDS_APPROVAL', attempt: 2 });
    expect(again.json!.details.gateId).toBe(first.json!.details.gateId);
    expect(again.json!.details.violations.map((v: { path: string }) => v.path).sort()).toEqual(EXPECTED_CHANGED.filter((p) => p.endsWith('.java')));
  }, 30_000);
});

describe('budgets', () => {
  it('maxChangedFiles 1 -> BUDGET_EXCEEDED, exit 3, no candidate', async () => {
    const out = join(root, 'state-budget');
    const policy = writePolicy('budget.yaml', MIGRATION_POLICY.replace('maxChangedFiles: 20', 'maxChangedFiles: 1'));
    const result = await cli(['run', repo, '--task-file', taskFile, '--out', out, '--policy', policy, '--json']);
    expect(result.code).toBe(3);
    expect(result.json).toMatchObject({ status: 'BUDGET_EXCEEDED', reason: 'BUDGET_EXCEEDED' });
    expect(result.json!.details.violations).toEqual([expect.objectContaining({ rule: 'FILE_BUDGET' })]);
    expect(result.json!.headCommitSha).toBeUndefined();
    expect(existsSync(join(result.json!.runDir, 'candidate'))).toBe(false);
    expect(result.json!.artifacts['pr-candidate.json']).toBeUndefined();
    // The report says why it stopped.
    const md = readFileSync(result.json!.artifacts['run-report.md'], 'utf8');
    expect(md).toContain('BUDGET_EXCEEDED');
    // It names the limit, what the change needed and the key that raises it; it never counts the files as 0.
    expect(md).toMatch(
      /> Stopped by the scope guard: the change needs (\d+) files, over the limit of 1; raise agent\.maxChangedFiles in \.agent-policy\.yaml to allow it\./,
    );
    const needed = /the change needs (\d+) files/.exec(md)![1];
    expect(md).toContain(`| files changed | ${needed} | 1 |`);
    expect(md).not.toContain('+0 / -0');
    expect(md).not.toMatch(/\| lines changed \| 0 \|/);
  }, 30_000);
});

describe('analysis mode', () => {
  it('a task without steps and no model completes with a run report and no candidate', async () => {
    const out = join(root, 'state-analysis');
    const result = await cli(['run', repo, '--task', 'Where is LegacyAuthClient.exchangeToken still called?', '--out', out, '--json']);
    expect(result.code).toBe(0);
    expect(result.json).toMatchObject({ status: 'COMPLETED', reason: 'ANALYSIS_ONLY' });
    expect(result.json!.headCommitSha).toBeUndefined();
    expect(existsSync(join(result.json!.runDir, 'candidate'))).toBe(false);
    const report = readFileSync(result.json!.artifacts['run-report.md'], 'utf8');
    expect(report).toContain('analysis');
    expect(report).toContain('order-service/src/main/java/com/acme/order/OrderService.java');
    const checkpoints = readdirSync(join(result.json!.runDir, 'attempts', '1', 'checkpoints'));
    expect(checkpoints).toEqual(['000000-intake.json', '000001-discovery.json', '000002-planning.json']);
  }, 30_000);
});

describe('cancel', () => {
  it('a cancel marker present -> CANCELLED, exit 130, nothing after intake', async () => {
    const out = join(root, 'state-cancel');
    const { owner, repo: name } = identityFromLocalPath(repo);
    const control = join(out, 'runs', owner, name, 'cancelled-run', 'control');
    mkdirSync(control, { recursive: true });
    writeFileSync(join(control, 'cancel.json'), '{"schemaVersion":1}\n');
    const result = await cli(['run', repo, '--task-file', taskFile, '--out', out, '--json', '--run-id', 'cancelled-run']);
    expect(result.code).toBe(130);
    expect(result.json).toMatchObject({ status: 'CANCELLED', runId: 'cancelled-run' });
    expect(existsSync(join(result.json!.runDir, 'candidate'))).toBe(false);
    expect(existsSync(join(result.json!.runDir, 'attempts', '1', 'checkpoints'))).toBe(false);
    expect(json(join(result.json!.runDir, 'run.json')).status).toBe('CANCELLED');
  }, 30_000);
});

describe('refusals', () => {
  it('a forbidden path in the task scope -> BLOCKED, exit 1', async () => {
    const out = join(root, 'state-forbidden');
    const task =
      'Fix CI\n\n```agent\nmode: draft_pr\npaths: [.github/workflows]\nsteps:\n  - recipe: replace\n    find: ubuntu-latest\n    replace: ubuntu-24.04\n```\n';
    const result = await cli(['run', repo, '--task', task, '--out', out, '--json']);
    expect(result.code).toBe(1);
    expect(result.json).toMatchObject({ status: 'BLOCKED', reason: 'FORBIDDEN_PATH_IN_SCOPE' });
    expect(existsSync(join(result.json!.runDir, 'candidate'))).toBe(false);
  }, 30_000);

  it('an invalid task block -> FAILED, exit 1, with the line of the problem', async () => {
    const out = join(root, 'state-invalid');
    const task = 'Bad task\n\n```agent\nmode: draft_pr\nstepz:\n  - recipe: replace\n```\n';
    const result = await cli(['run', repo, '--task', task, '--out', out, '--json']);
    expect(result.code).toBe(1);
    expect(result.json).toMatchObject({ status: 'FAILED', reason: 'TASK_BLOCK_INVALID' });
    const problems = result.json!.details.problems as { line: number; message: string }[];
    // `stepz` is on line 5 of the task text.
    expect(problems).toEqual([expect.objectContaining({ line: 5 })]);
    expect(result.stderr).toMatch(/^task:5:\d+: .*stepz/m);
    // The checkpoint keeps the line too, for a reader of the run directory.
    const checkpoint = json(join(result.json!.runDir, 'attempts', '1', 'checkpoints', '000000-intake.json'));
    expect(checkpoint.summary).toMatch(/:5:\d+: /);
  }, 30_000);

  it('a broken --policy -> BLOCKED, exit 1, with file:line:col', async () => {
    const out = join(root, 'state-policy');
    const policy = writePolicy('broken.yaml', 'version: 1\nagent:\n  maxChangedFiles: lots\n');
    const result = await cli(['run', repo, '--task-file', taskFile, '--out', out, '--policy', policy, '--json']);
    expect(result.code).toBe(1);
    expect(result.json!.status).toBe('BLOCKED');
    expect(result.stderr).toMatch(/broken\.yaml:3:\d+: agent\.maxChangedFiles/);
  }, 30_000);
});

describe('scope from --paths', () => {
  const migrate = (paths?: string) =>
    `Migrate\n\n\`\`\`agent\nmode: draft_pr\n${paths ? `paths: ${paths}\n` : ''}steps:\n  - recipe: migrate-import\n    from: javax.persistence\n    to: jakarta.persistence\n\`\`\`\n`;
  const changed = (result: { json?: Record<string, any> }) =>
    json(result.json!.artifacts['pr-candidate.json'])
      .files.map((f: { path: string }) => f.path)
      .sort();

  it('--paths is the task scope when the task block has none: nothing outside it changes', async () => {
    const result = await cli(['run', repo, '--task', migrate(), '--paths', 'order-api', '--out', join(root, 'state-paths'), '--json']);
    expect(result.code).toBe(0);
    expect(changed(result)).toEqual(['order-api/src/main/java/com/acme/order/api/OrderRequest.java']);
  }, 30_000);

  it('--paths narrows a task block scope: only the intersection changes', async () => {
    const result = await cli([
      'run',
      repo,
      '--task',
      migrate('[order-api, order-service]'),
      '--paths',
      'order-service',
      '--out',
      join(root, 'state-paths'),
      '--json',
    ]);
    expect(result.code).toBe(0);
    expect(changed(result)).toEqual(['order-service/src/main/java/com/acme/order/OrderService.java']);
  }, 30_000);

  it('another --paths is another run, not an attempt that silently reuses the first scope', async () => {
    const state = join(root, 'state-paths-2');
    const a = await cli(['run', repo, '--task', migrate(), '--paths', 'order-api', '--out', state, '--json']);
    const b = await cli(['run', repo, '--task', migrate(), '--paths', 'order-service', '--out', state, '--json']);
    expect(b.json!.runId).not.toBe(a.json!.runId);
    expect(b.json!.attempt).toBe(1);
    expect(changed(b)).toEqual(['order-service/src/main/java/com/acme/order/OrderService.java']);
  }, 30_000);
});
