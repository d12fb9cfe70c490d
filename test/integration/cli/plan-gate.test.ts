import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { git } from '../../fixtures/make-repo.js';
import { DEMO_POLICY, MIGRATION_CHANGED_FILES, MIGRATION_TASK } from '../../fixtures/migration-task.js';
import { mavenMultiModuleRepo } from '../../fixtures/realistic-repos.js';
import { removeRoot, tempRoot } from '../pipeline/pipeline-harness.js';
import { cli, makeWorkingCopy } from './cli-harness.js';

/**
 * The plan gate in the CLI (docs/policy-reference.md, "A plan to approve"): under
 * `agent.requirePlanApproval` `draftsman run` stops after planning with exit 3, reason
 * PLAN_APPROVAL and plan.json; the same command again stops there again, and with `--approve`
 * it makes the planned change and publishes it.
 */

const POLICY = DEMO_POLICY.replace('  maxChangedFiles: 20\n', '  maxChangedFiles: 20\n  requirePlanApproval: true\n');
const roots: string[] = [];
afterAll(() => roots.forEach(removeRoot));

describe('draftsman run under requirePlanApproval', () => {
  it('exits 3 with the plan; again without --approve it stops again; --approve completes and publishes', async () => {
    expect(POLICY).toContain('requirePlanApproval: true');
    const root = tempRoot('cli-plan-gate');
    roots.push(root);
    const repo = join(root, 'orders');
    makeWorkingCopy(repo, { ...mavenMultiModuleRepo(), '.agent-policy.yaml': POLICY });
    const taskFile = join(root, 'task.md');
    writeFileSync(taskFile, MIGRATION_TASK);
    const argv = ['run', repo, '--task-file', taskFile, '--out', join(root, 'state'), '--json', '--publish'];

    const first = await cli(argv);
    expect(first.code).toBe(3);
    expect(first.json).toMatchObject({ status: 'NEEDS_APPROVAL', reason: 'PLAN_APPROVAL', attempt: 1 });
    expect(first.json!.message).toContain('--approve');
    expect(first.json!.headCommitSha).toBeUndefined();
    const plan = JSON.parse(readFileSync(first.json!.artifacts['plan.json'], 'utf8'));
    expect(plan).toMatchObject({ strategy: 'recipe', estimatedSpend: { modelCallsAtMost: 0 } });
    for (const file of MIGRATION_CHANGED_FILES) expect(plan.files).toContain(file);
    expect(plan.segments.length).toBeGreaterThan(0);

    const again = await cli(argv);
    expect(again.code).toBe(3);
    expect(again.json).toMatchObject({ status: 'NEEDS_APPROVAL', reason: 'PLAN_APPROVAL', attempt: 2 });

    const approved = await cli([...argv, '--approve']);
    expect(approved.json).toMatchObject({ status: 'COMPLETED', attempt: 3 });
    expect(approved.code).toBe(0);
    const branch = approved.json!.agentBranch as string;
    expect(git(['rev-parse', `refs/heads/${branch}`], { cwd: repo })).toBe(approved.json!.headCommitSha);
    const changed = git(['diff', '--name-only', `${branch}^`, branch], { cwd: repo })
      .split('\n')
      .sort();
    expect(changed).toEqual([...MIGRATION_CHANGED_FILES].sort());
  }, 120_000);
});
