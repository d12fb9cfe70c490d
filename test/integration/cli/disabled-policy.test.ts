import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEMO_POLICY, MIGRATION_TASK } from '../../fixtures/migration-task.js';
import { mavenMultiModuleRepo } from '../../fixtures/realistic-repos.js';
import { removeRoot, tempRoot } from '../pipeline/pipeline-harness.js';
import { cli, makeWorkingCopy } from './cli-harness.js';

/**
 * The kill switch from the CLI (docs/policy-reference.md, `agent.enabled`): a repository whose
 * policy disables the agent is refused when the run starts, before any file is changed or any
 * candidate written, not at publication.
 */
const roots: string[] = [];
afterAll(() => roots.forEach(removeRoot));

describe('draftsman run on a repository whose policy disables the agent', () => {
  it('ends BLOCKED AGENT_DISABLED at intake, with nothing changed', async () => {
    const policy = DEMO_POLICY.replace(/^agent:\n/m, 'agent:\n  enabled: false\n');
    expect(policy).toContain('enabled: false');
    const root = tempRoot('cli-disabled');
    roots.push(root);
    const repo = join(root, 'orders');
    makeWorkingCopy(repo, { ...mavenMultiModuleRepo(), '.agent-policy.yaml': policy });
    const taskFile = join(root, 'task.md');
    writeFileSync(taskFile, MIGRATION_TASK);
    const out = join(root, 'state');
    const result = await cli(['run', repo, '--task-file', taskFile, '--out', out, '--json', '--publish']);
    expect(result.json).toMatchObject({ status: 'BLOCKED', reason: 'AGENT_DISABLED' });
    expect(result.code).not.toBe(0);
    expect(result.json!.headCommitSha).toBeUndefined();
    expect(result.json!.phases?.map((p: { name: string }) => p.name) ?? []).not.toContain('execute');
    expect(existsSync(join(repo, '.git', 'refs', 'heads', 'agent'))).toBe(false);
  }, 120_000);
});
