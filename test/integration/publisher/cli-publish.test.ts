import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { git } from '../../fixtures/make-repo.js';
import { mavenMultiModuleRepo } from '../../fixtures/realistic-repos.js';
import { DEMO_POLICY } from '../../fixtures/migration-task.js';
import { cli, makeWorkingCopy } from '../cli/cli-harness.js';
import { removeRoot, tempRoot } from '../pipeline/pipeline-harness.js';
import { SPRING_BOOT_BUMP_TASK, springBootParentPom } from '../../fixtures/spring-boot-bump.js';

/** Line 2 of every standard pom.xml: two URLs and a long schema location. */
const STANDARD_POM = springBootParentPom(
  '<project xmlns="http://maven.apache.org/POM/4.0.0" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 https://maven.apache.org/xsd/maven-4.0.0.xsd">',
);
const BUMP_TASK = SPRING_BOOT_BUMP_TASK;

const roots: string[] = [];
afterAll(() => roots.forEach(removeRoot));

function setup(files: Record<string, string>): { repo: string; base: string; taskFile: string; out: string } {
  const root = tempRoot('cli-publish');
  roots.push(root);
  const repo = join(root, 'orders');
  const base = makeWorkingCopy(repo, files);
  const taskFile = join(root, 'task.md');
  writeFileSync(taskFile, BUMP_TASK);
  return { repo, base, taskFile, out: join(root, 'state') };
}

describe('draftsman run --publish goes through the publisher core', () => {
  it('publishes a version bump of a standard pom.xml: only the added lines are scanned, not the schemaLocation on line 2', async () => {
    const { repo, base, taskFile, out } = setup({ ...mavenMultiModuleRepo(), 'pom.xml': STANDARD_POM, '.agent-policy.yaml': DEMO_POLICY });
    const run = await cli(['run', repo, '--task-file', taskFile, '--out', out, '--json', '--publish']);

    expect(run.json).toMatchObject({ status: 'COMPLETED' });
    expect(run.json!.publish).toBe(`published ${run.json!.headCommitSha} to refs/heads/${run.json!.agentBranch}`);
    expect(run.code).toBe(0);
    const branch = run.json!.agentBranch as string;
    expect(git(['diff', '--name-only', `${base}..${branch}`], { cwd: repo })).toBe('pom.xml');
    expect(git(['rev-parse', `${branch}^{tree}`], { cwd: repo })).toBe(run.json!.headTreeSha);
  }, 60_000);
});
