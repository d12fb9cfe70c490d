import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { git } from '../../fixtures/make-repo.js';
import { DEMO_POLICY } from '../../fixtures/migration-task.js';
import { mavenMultiModuleRepo } from '../../fixtures/realistic-repos.js';
import { SPRING_BOOT_BUMP_TASK, springBootParentPom } from '../../fixtures/spring-boot-bump.js';
import { removeRoot, tempRoot } from '../pipeline/pipeline-harness.js';
import { cli, makeWorkingCopy } from './cli-harness.js';

/**
 * `draftsman audit <run-id> --out DIR` over the CLI's own store: the commit `run --publish`
 * wrote names its trail, and audit prints that trail's ledger; an unknown run is exit 1.
 */
const roots: string[] = [];
afterAll(() => roots.forEach(removeRoot));

describe('draftsman audit over the CLI store', () => {
  it('prints the trail the published commit names, event by event', async () => {
    const root = tempRoot('cli-audit');
    roots.push(root);
    const repo = join(root, 'orders');
    makeWorkingCopy(repo, { ...mavenMultiModuleRepo(), 'pom.xml': springBootParentPom(), '.agent-policy.yaml': DEMO_POLICY });
    const taskFile = join(root, 'task.md');
    writeFileSync(taskFile, SPRING_BOOT_BUMP_TASK);
    const out = join(root, 'state');
    const run = await cli(['run', repo, '--task-file', taskFile, '--out', out, '--json', '--publish']);
    expect(run.json).toMatchObject({ status: 'COMPLETED', attempt: 1 });
    const runId = run.json!.runId as string;
    const message = git(['log', '-1', '--format=%B', run.json!.agentBranch], { cwd: repo });
    const trail = /^Run-trail: (.+)$/m.exec(message)?.[1];
    expect(trail).toMatch(new RegExp(`^trail/local/[^/]+/${runId}/1/$`));
    expect(message).toContain(`Run-id: ${runId}\nRun-attempt: 1\nRun-trail: ${trail}\n`);

    const audit = await cli(['audit', runId, '--out', out]);
    expect(audit.code).toBe(0);
    const lines = audit.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^attempt 1  ${trail!.replaceAll('/', '\\/')}  \\d+ events, 0 model calls, \\$0\\.0000$`));
    expect(lines.some((l) => l.endsWith('git.commit.created'))).toBe(true);
    expect((await cli(['audit', 'nosuchrun000', '--out', out])).code).toBe(1);
    expect((await cli(['audit', '--out', out])).code).toBe(2);
  }, 120_000);
});
