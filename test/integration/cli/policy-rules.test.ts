import { afterAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEMO_POLICY } from '../../fixtures/migration-task.js';
import { removeRoot, tempRoot } from '../pipeline/pipeline-harness.js';
import { cli, makeWorkingCopy } from './cli-harness.js';

/**
 * `agent.rules` in `draftsman run` (docs/policy-reference.md, "Rules that can say no"): a recipe
 * change that adds a line an `on: change` deny rule matches ends BLOCKED (RULE_DENIED), the
 * terminal names the rule and its reason, and the firing is in the attempt's ledger.
 */
const roots: string[] = [];
afterAll(() => roots.forEach(removeRoot));

const POLICY = DEMO_POLICY.replace(
  '  maxChangedFiles: 20\n',
  `  maxChangedFiles: 20\n  rules:\n    - on: change\n      addedLines: 'System\\.exit\\('\n      action: deny\n      reason: services never exit the JVM\n`,
);
const TASK = 'Stop on a bad config\n\n```agent\nmode: draft_pr\nsteps:\n  - recipe: replace\n    find: PLACEHOLDER();\n    replace: System.exit(2);\n```\n';

describe('draftsman run with a deny rule on changes', () => {
  it('a recipe change that adds a denied line ends BLOCKED (RULE_DENIED) with the rule reason, ledgered', async () => {
    expect(POLICY).toContain('rules:');
    const root = tempRoot('cli-rules');
    roots.push(root);
    const repo = join(root, 'orders');
    makeWorkingCopy(repo, {
      '.agent-policy.yaml': POLICY,
      'src/main/java/com/acme/Config.java': 'package com.acme;\n\nclass Config {\n  void check() {\n    PLACEHOLDER();\n  }\n}\n',
    });
    const human = await cli(['run', repo, '--task', TASK, '--out', join(root, 'human')]);
    expect(human.code).not.toBe(0);
    expect(human.stderr).toContain('BLOCKED (RULE_DENIED)');
    expect(human.stderr).toContain('agent.rules[0] (deny): services never exit the JVM (src/main/java/com/acme/Config.java)');
    // What to do next names the rule list, not a generic policy refusal.
    expect(human.stderr).toContain('or the rule in agent.rules');

    const json = await cli(['run', repo, '--task', TASK, '--out', join(root, 'json'), '--json']);
    expect(json.json).toMatchObject({ status: 'BLOCKED', reason: 'RULE_DENIED' });
    expect(json.json!.details.violations).toEqual([
      {
        rule: 'RULE_DENIED',
        path: 'src/main/java/com/acme/Config.java',
        message: 'agent.rules[0] (deny): services never exit the JVM (src/main/java/com/acme/Config.java)',
      },
    ]);
    expect(json.json!.headCommitSha).toBeUndefined();
    // The ledger is in the attempt's trail, beside runs/ in the store: trail/<owner>/<repo>/<runId>/1/ledger.
    const ledgerDir = join(json.json!.runDir.replace(/\/runs\/([^/]+\/[^/]+\/[^/]+)\/?$/, '/trail/$1'), '1', 'ledger');
    const fired = readdirSync(ledgerDir)
      .map((f) => JSON.parse(readFileSync(join(ledgerDir, f), 'utf8')))
      .filter((e) => e.type === 'RULE_FIRED');
    expect(fired.map((e) => e.payload)).toContainEqual({
      rule: 0,
      on: 'change',
      action: 'deny',
      reason: 'services never exit the JVM',
      path: 'src/main/java/com/acme/Config.java',
    });
  }, 120_000);
});
