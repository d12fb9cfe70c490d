import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { DEMO_POLICY } from '../../fixtures/migration-task.js';
import { removeRoot, tempRoot } from '../pipeline/pipeline-harness.js';
import { cli, makeWorkingCopy } from './cli-harness.js';

// Assembled at run time so that no credential-shaped literal sits in the repository.
const TOKEN = ['gh', 'p_', 'Q7wE2rT9yU4iO1pA6sD3fG8hJ5kL0zX2cV7b'].join('');

const roots: string[] = [];
afterAll(() => roots.forEach(removeRoot));

function setup(): { repo: string; out: string; task: string } {
  const root = tempRoot('cli-secret');
  roots.push(root);
  const repo = join(root, 'orders');
  makeWorkingCopy(repo, {
    '.agent-policy.yaml': DEMO_POLICY,
    'src/main/java/com/acme/Config.java': 'package com.acme;\n\nclass Config {\n  static final String TOKEN = "TOKEN_PLACEHOLDER";\n}\n',
  });
  const task = `Wire the deploy token\n\n\`\`\`agent\nmode: draft_pr\nsteps:\n  - recipe: replace\n    find: TOKEN_PLACEHOLDER\n    replace: ${TOKEN}\n\`\`\`\n`;
  return { repo, out: join(root, 'state'), task };
}

describe('a change refused by the secret scan says which rule, file and line, never the value', () => {
  it('on the terminal and in --json', async () => {
    const { repo, out, task } = setup();
    const human = await cli(['run', repo, '--task', task, '--out', join(out, 'human')]);
    expect(human.code).not.toBe(0);
    expect(human.stderr).toContain('BLOCKED (SECRET_DETECTED)');
    expect(human.stderr).toContain('secret scan: github-token at src/main/java/com/acme/Config.java:4 (values not shown)');
    // The report quotes the task (which holds the value the user wrote); the refusal itself never does.
    expect(human.stderr).not.toContain(TOKEN);

    const json = await cli(['run', repo, '--task', task, '--out', join(out, 'json'), '--json']);
    expect(json.json).toMatchObject({ status: 'BLOCKED', reason: 'SECRET_DETECTED' });
    expect(json.json!.details.findings).toEqual([expect.objectContaining({ rule: 'github-token', path: 'src/main/java/com/acme/Config.java', line: 4 })]);
    expect(JSON.stringify(json.json!.details)).not.toContain(TOKEN);
  }, 60_000);
});
