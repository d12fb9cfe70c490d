import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeRoot, tempRoot } from '../pipeline/pipeline-harness.js';
import { cli, makeWorkingCopy } from './cli-harness.js';

/**
 * `draftsman campaign check|run`: one task over several local repositories, each an ordinary run
 * under its own policy; a table per repository and an exit code that is 0 only when none failed.
 */
const SPEC = `version: 1
name: color-spelling
title: Spell color the American way
description: The style guide asks for "color".
task:
  steps:
    - recipe: replace
      find: colour
      replace: color
      paths: [src]
`;
const FILE = { 'src/theme.js': "export const colour = 'red';\n" };

let root: string;
beforeAll(() => {
  root = tempRoot('cli-campaign');
  writeFileSync(join(root, 'campaign.yaml'), SPEC);
  writeFileSync(join(root, 'broken.yaml'), 'version: 1\nname: Bad Name\ntitle: x\ntask:\n  steps: []\npace:\n  concurrency: 0\n');
  makeWorkingCopy(join(root, 'web.site'), FILE);
  makeWorkingCopy(join(root, 'api'), { ...FILE, 'src/other.js': "// colour of the sky\nexport const sky = 'blue';\n" });
  makeWorkingCopy(join(root, 'off'), { ...FILE, '.agent-policy.yaml': 'version: 1\nagent:\n  enabled: false\n' });
  makeWorkingCopy(join(root, 'done'), { 'src/theme.js': "export const color = 'red';\n" });
});
afterAll(() => removeRoot(root));

describe('draftsman campaign', () => {
  it('check: a valid spec names the campaign; a broken one gets file:line:col lines and exit 1', async () => {
    expect(await cli(['campaign', 'check', 'campaign.yaml'], { cwd: root })).toMatchObject({
      code: 0,
      stdout: 'campaign.yaml: valid (campaign color-spelling)\n',
    });
    const broken = await cli(['campaign', 'check', 'broken.yaml'], { cwd: root });
    expect(broken.code).toBe(1);
    expect(broken.stdout).toContain('broken.yaml:2:7: name: lower-case letters, digits and dashes');
    expect(broken.stdout).toMatch(/broken\.yaml:7:16: pace\.concurrency: .*1/);
  });

  it('run: each repository is an ordinary run under its own policy, tracked in one table', async () => {
    const repos = ['web.site', 'api', 'off', 'done'].flatMap((r) => ['--repos', join(root, r)]);
    const result = await cli(['campaign', 'run', 'campaign.yaml', ...repos, '--concurrency', '2', '--publish', '--json'], { cwd: root });
    const byRepo = Object.fromEntries(
      (result.json!.repositories as { repository: string; outcome: string; status: string; reason?: string }[]).map((r) => [r.repository.split('/').pop(), r]),
    );
    // A directory name with a dot still makes a valid run id.
    expect(byRepo['web.site']).toMatchObject({ outcome: 'changed', status: 'COMPLETED' });
    expect(byRepo.api).toMatchObject({ outcome: 'changed', status: 'COMPLETED' });
    // The repository's own policy decides: reported, never overridden.
    expect(byRepo.off).toMatchObject({ outcome: 'declined', status: 'BLOCKED', reason: 'AGENT_DISABLED' });
    // Nothing to change is not a failure of the campaign.
    expect(byRepo.done.outcome).toBe('unchanged');
    expect(result.json!.counts).toEqual({ changed: 2, unchanged: 1, declined: 1, failed: 0, unselected: 0 });
    expect(result.code).toBe(0);
    // --publish wrote each changed repository's agent branch, with the campaign's task applied.
    const branches = execFileSync('git', ['branch', '--list', 'agent/*'], { cwd: join(root, 'api'), encoding: 'utf8' });
    expect(branches.trim()).not.toBe('');
    expect(result.stderr).toMatch(/\[4\/4\] /);
  }, 240_000);

  it('run without --json prints the table; a repository that fails makes the exit code 1', async () => {
    const result = await cli(['campaign', 'run', 'campaign.yaml', '--repos', join(root, 'web.site'), '--repos', join(root, 'nope')], { cwd: root });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^campaign color-spelling: 1 changed, 0 unchanged, 0 declined, 1 failed$/m);
    expect(result.stdout).toMatch(/\| .*nope \| failed \|/);
  }, 240_000);
});
