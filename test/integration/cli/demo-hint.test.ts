import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { MIGRATION_CHANGED_FILES } from '../../fixtures/migration-task.js';

const run = promisify(execFile);

describe('npm run demo', () => {
  it('ends with a command that shows the published branch, and that command works as printed', async () => {
    const demo = await run(process.execPath, ['--import', 'tsx', 'scripts/demo.ts'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    const hint = /^draftsman demo: inspect the branch with: (git -C .*)$/m.exec(demo.stderr)?.[1];
    expect(hint).toBeDefined();
    const shown = await run('sh', ['-c', hint!], { encoding: 'utf8' });
    for (const path of MIGRATION_CHANGED_FILES) expect(shown.stdout).toContain(path);
    expect(shown.stdout).toMatch(/^commit [0-9a-f]{40}$/m);
    // Only the agent's commit: the repository's own commit is not part of it.
    expect(shown.stdout.match(/^commit /gm)).toHaveLength(1);
  }, 180_000);
});
