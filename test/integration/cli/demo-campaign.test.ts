import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignDemo } from '../../../scripts/demo-campaign.js';
import { removeRoot, tempRoot } from '../pipeline/pipeline-harness.js';

/** `npm run demo:campaign`: three generated repositories, one campaign, and its final table. */
let root: string;
beforeAll(() => {
  root = tempRoot('demo-campaign');
});
afterAll(() => removeRoot(root));

describe('npm run demo:campaign', () => {
  it('prints a table with one changed, one unchanged and one declined repository, and a hint that shows the change', async () => {
    let stdout = '';
    let stderr = '';
    const code = await campaignDemo(root, { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) });
    expect(code).toBe(0);
    expect(stdout).toMatch(/^campaign lodash-get: 1 changed, 1 unchanged, 1 declined, 0 failed$/m);
    expect(stdout).toMatch(/^\| \S*demo-001-changed\.git \| changed \| COMPLETED \|/m);
    expect(stdout).toMatch(/^\| \S*demo-002-migrated\.git \| unchanged \|/m);
    expect(stdout).toMatch(/^\| \S*demo-003-disabled\.git \| declined \| BLOCKED \| AGENT_DISABLED/m);
    // The printed command shows the published change, and only the agent's commit.
    const hint = /^draftsman demo: inspect the change with: git --git-dir (\S+) log -p (\S+)$/m.exec(stderr);
    expect(hint).not.toBeNull();
    const shown = execFileSync('git', ['--git-dir', hint![1], 'log', '-p', hint![2]], { encoding: 'utf8' });
    expect(shown).toContain("+const get = require('lodash/get');");
    expect(shown.match(/^commit /gm)).toHaveLength(1);
  }, 180_000);
});
