import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTask } from '../../../src/core/task/parse-task.js';
import { removeRoot, tempRoot } from '../pipeline/pipeline-harness.js';
import { cli, makeWorkingCopy } from './cli-harness.js';

/** A repository with one manifest of each kind the prose cases name, a Java class and a README link. */
const FILES: Record<string, string> = {
  'web/package.json': '{\n  "name": "web",\n  "private": true,\n  "dependencies": {\n    "lodash": "^4.17.20"\n  }\n}\n',
  'gradle/libs.versions.toml': '[versions]\nokio = "3.8.0"\n\n[libraries]\nokio = { module = "com.squareup.okio:okio", version.ref = "okio" }\n',
  'app/build.gradle.kts': 'dependencies {\n    implementation(libs.okio)\n}\n',
  'settings.gradle.kts': 'rootProject.name = "shop"\ninclude(":app")\n',
  'requirements.txt': 'requests==2.31.0\nurllib3>=1.26\n',
  'app/src/main/java/com/acme/Order.java': 'package com.acme;\n\npublic class Order {\n  public int total() {\n    return 1;\n  }\n}\n',
  'app/src/main/java/com/acme/Invoice.java': 'package com.acme;\n\npublic class Invoice {\n  private Order order;\n}\n',
  'README.md': '# Shop\n\nChat with us on https://gitter.im/acme/shop\n',
};

let root: string;
let repo: string;
beforeAll(() => {
  root = tempRoot('cli-prose');
  repo = join(root, 'shop');
  makeWorkingCopy(repo, FILES);
});
afterAll(() => removeRoot(root));

/** `draftsman run` with the words and no model; the PR body when one was made. */
async function runProse(name: string, title: string, body = '') {
  const result = await cli(['run', repo, '--task', `${title}\n\n${body}`, '--out', join(root, name), '--json']);
  const bodyPath = result.json?.artifacts?.['pr-body.md'] as string | undefined;
  return { result, prBody: bodyPath ? readFileSync(bodyPath, 'utf8') : undefined };
}

/** The ```agent block the PR body opens with, parsed back through the task parser. */
function blockSteps(prBody: string): unknown[] {
  const lines = prBody.split('\n');
  expect(lines[0]).toMatch(/^<!-- draftsman:run-report /);
  expect(lines[1]).toMatch(/^\*\*Understood as:\*\*/);
  const start = lines.indexOf('```agent');
  const end = lines.indexOf('```', start + 1);
  expect(start).toBe(3);
  return parseTask({ title: 't', body: `${lines.slice(start, end + 1).join('\n')}\n`, source: 'cli' }).steps;
}

describe('draftsman run on an issue written in prose, with no model', () => {
  it('a Dependabot title, a Renovate title on a catalog, a rename, a range cap and a URL move each make a draft that opens with the block that ran', async () => {
    const cases = [
      {
        name: 'dependabot',
        title: 'Bump lodash from 4.17.20 to 4.17.21 in /web',
        file: 'web/package.json',
        step: { recipe: 'bump-dependency', package: 'lodash' },
      },
      {
        name: 'renovate',
        title: 'Update dependency com.squareup.okio:okio to v3.9.0',
        file: 'gradle/libs.versions.toml',
        step: { recipe: 'bump-dependency', package: 'com.squareup.okio:okio', to: '3.9.0' },
      },
      // The public class moves to the file of its new name (javac refuses it in Order.java).
      {
        name: 'rename',
        title: 'Rename `Order` to `PurchaseOrder`',
        file: 'app/src/main/java/com/acme/PurchaseOrder.java',
        step: { recipe: 'rename-symbol', from: 'Order' },
      },
      {
        name: 'cap',
        title: 'keep urllib3 below 3 until our adapter is ported',
        file: 'requirements.txt',
        step: { recipe: 'constrain-dependency', range: '<3' },
      },
      {
        name: 'url',
        title: 'Our chat moved from Gitter to Discord',
        body: 'Update the invite links from https://gitter.im/acme/shop to https://discord.gg/acme',
        file: 'README.md',
        step: { recipe: 'replace', find: 'https://gitter.im/acme/shop' },
      },
    ];
    for (const c of cases) {
      const { result, prBody } = await runProse(c.name, c.title, c.body);
      expect(result.code, `${c.name}: ${result.stderr}`).toBe(0);
      expect(result.json).toMatchObject({ status: 'COMPLETED' });
      expect(prBody, c.name).toBeDefined();
      const steps = blockSteps(prBody!);
      expect(steps, c.name).toHaveLength(1);
      expect(steps[0], c.name).toMatchObject(c.step);
      expect(prBody).toContain(`\`${c.file}\``);
      if (c.name === 'url') expect(prBody).toContain('a domain the repository did not contain');
    }
  }, 120_000);

  it('an ambiguous request publishes nothing, ends COMPLETED with PROSE_NOT_GROUNDED (exit 0) and says what it read and why it did not run', async () => {
    const { result, prBody } = await runProse('unknown', 'Bump left-pad from 1.0.0 to 1.3.0');
    expect(result.code).toBe(0);
    expect(result.json).toMatchObject({ status: 'COMPLETED', reason: 'PROSE_NOT_GROUNDED' });
    expect(prBody).toBeUndefined();
    const report = readFileSync(join(root, 'unknown', ...findReport(join(root, 'unknown'))), 'utf8');
    expect(report).toContain('`left-pad` is not declared in any manifest of the repository');
  }, 60_000);
});

function findReport(dir: string): string[] {
  const found = readdirSync(dir, { recursive: true, encoding: 'utf8' }).find((p) => p.endsWith('run-report.md'));
  if (!found) throw new Error(`no run-report.md under ${dir}`);
  return found.split('/');
}
