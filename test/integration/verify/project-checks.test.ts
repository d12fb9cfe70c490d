import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxVerifier } from '../../../src/app/local/sandbox-verifier.js';
import { OpenAiChatProvider } from '../../../src/app/model/openai-chat-provider.js';
import { answer, callTools, startScriptedModelServer } from '../../helpers/scripted-model-server.js';
import { cli, makeWorkingCopy } from '../cli/cli-harness.js';
import { removeRoot, tempRoot } from '../pipeline/pipeline-harness.js';

/**
 * The project's own tests run on the change before review (agent.verify.runner: local): a
 * change that breaks a test is refused, naming the test; one that passes says so in the PR body
 * with the command's real output; with `required: false` a failing change publishes with
 * "Checks failing" first; where no sandbox exists the run refuses and says why.
 */
const sandbox = await createSandboxVerifier().available();
// CI installs bubblewrap and sets this: there the sandbox tests must run, never be skipped.
if (!sandbox.ok && process.env.DRAFTSMAN_REQUIRE_SANDBOX) throw new Error(`the verification sandbox is required here: ${sandbox.why}`);

/** A Python installation with pytest, to mount into the sandbox (undefined when none is on PATH). */
function pythonWithPytest(): string | undefined {
  try {
    return execFileSync('python3', ['-c', 'import sys, pytest; print(sys.base_prefix)'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

/**
 * Debian's Maven repository (/usr/share/maven-repo): Debian's plugin packages install the
 * versions Maven binds by default under their own numbers too, so a pom that pins none builds
 * from it offline. The packages: maven, libmaven-resources-plugin-java,
 * libmaven-compiler-plugin-java, libsurefire-java, junit4.
 */
const SYSTEM_MAVEN_REPO = '/usr/share/maven-repo';
const MAVEN_NEEDS = [
  'org/apache/maven/plugins/maven-resources-plugin',
  'org/apache/maven/plugins/maven-compiler-plugin',
  'org/apache/maven/plugins/maven-surefire-plugin',
  'junit/junit/4.13.2',
];

/** Why Maven cannot build offline here (undefined when it can). */
function offlineMavenMissing(): string | undefined {
  for (const tool of ['java', 'mvn']) {
    try {
      execFileSync(tool, ['-version'], { stdio: 'ignore' });
    } catch {
      return `${tool} is not on PATH`;
    }
  }
  const missing = MAVEN_NEEDS.filter((dir) => !existsSync(join(SYSTEM_MAVEN_REPO, dir)));
  return missing.length > 0
    ? `${SYSTEM_MAVEN_REPO} lacks ${missing.join(', ')} (Debian packages libmaven-resources-plugin-java, libmaven-compiler-plugin-java, libsurefire-java, junit4)`
    : undefined;
}

const FILES = {
  'package.json': '{\n  "name": "calc",\n  "version": "1.0.0",\n  "scripts": { "test": "node --test" }\n}\n',
  'src/add.js': '// Adds two numbers.\nexports.add = (a, b) => a + b;\n',
  'test/add.test.js':
    "const test = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('../src/add.js');\n\ntest('add sums its arguments', () => assert.strictEqual(add(1, 2), 3));\n",
};
const policy = (verify: string) => `version: 1\nagent:\n  verify:\n    runner: local\n${verify}`;
const task = (find: string, replace: string, path = 'src/add.js') =>
  [
    `Change ${path}`,
    '',
    '```agent',
    'steps:',
    '  - recipe: replace',
    `    find: "${find}"`,
    `    replace: "${replace}"`,
    `    paths: ["${path}"]`,
    '```',
    '',
  ].join('\n');

describe.skipIf(!sandbox.ok)('the project checks run on the change in the sandbox', () => {
  let root: string;
  beforeAll(() => {
    root = tempRoot('project-checks');
  });
  afterAll(() => removeRoot(root));

  const run = (name: string, policyText: string, find: string, replace: string, env: Record<string, string> = {}, model?: OpenAiChatProvider) => {
    const repo = join(root, name);
    makeWorkingCopy(repo, { ...FILES, '.agent-policy.yaml': policyText });
    return cli(['run', repo, '--task', task(find, replace), '--out', join(root, `state-${name}`), '--json'], { env, model });
  };

  it('a change that breaks a test is refused, naming the failing test; nothing is published', async () => {
    const result = await run('breaks', policy(''), 'a + b', 'a - b');
    expect(result.code).toBe(1);
    expect(result.json).toMatchObject({ status: 'FAILED', reason: 'CHECKS_FAILED' });
    const text = JSON.stringify(result.json);
    expect(text).toContain('npm run test');
    expect(text).toContain('add sums its arguments');
    expect(result.json!.artifacts?.['pr-candidate.json']).toBeUndefined();
  }, 120_000);

  it('a change that passes says so in the PR body, with what ran, where, and the end of its real output', async () => {
    const result = await run('passes', policy(''), 'Adds two numbers.', 'Returns the sum of two numbers.');
    expect(result.json).toMatchObject({ status: 'COMPLETED' });
    const body = readFileSync(result.json!.artifacts['pr-body.md'], 'utf8');
    expect(body).toContain('**Run by draftsman** on the change (local sandbox (bubblewrap)):');
    expect(body).toMatch(/\| `npm run test` \| `\.` \| ✅ passed \| 0 \| \d+\.\d s \|/);
    expect(body).toContain('# pass 1');
    expect(body).not.toContain('no build or test was run');
    const trailer = readFileSync(result.json!.artifacts['pr-candidate.json'], 'utf8');
    expect(trailer).toMatch(/ran npm run test \(local sandbox \(bubblewrap\)\): passed, exit 0/);
  }, 120_000);

  it('with required: false a failing change publishes, the failure first in the body and the judge asking for review', async () => {
    const result = await run('optional', policy('    required: false\n'), 'a + b', 'a - b');
    expect(result.json).toMatchObject({ status: 'COMPLETED' });
    const body = readFileSync(result.json!.artifacts['pr-body.md'], 'utf8');
    expect(body).toContain('Checks failing: `npm run test` failed (exit 1). Published because agent.verify.required is false');
    expect(body).toMatch(/\| `npm run test` \| `\.` \| ❌ failed \| 1 \|/);
    expect(body).toContain('add sums its arguments');
    const candidate = JSON.parse(readFileSync(result.json!.artifacts['pr-candidate.json'], 'utf8'));
    expect(candidate.judge).toMatchObject({ verdict: 'NEEDS_REVIEW', reasons: expect.arrayContaining(['project check failing: npm run test (failed)']) });
  }, 120_000);

  it('where no sandbox can start, runner local refuses with the reason', async () => {
    const result = await run('nosandbox', policy(''), 'Adds two numbers.', 'Returns the sum.', { DRAFTSMAN_BWRAP: '/nonexistent/bwrap' });
    expect(result.code).toBe(1);
    expect(result.json).toMatchObject({ status: 'FAILED', reason: 'VERIFIER_UNAVAILABLE' });
    expect(JSON.stringify(result.json)).toContain('bubblewrap (bwrap) is not installed here');
  }, 120_000);

  it('with a model, a failing check goes to repair with its failures, and the repaired change publishes with the checks passing', async () => {
    const requests: string[] = [];
    const fixed = '// Adds two numbers.\nexports.sum = (a, b) => a + b;\nexports.add = exports.sum;\n';
    const server = await startScriptedModelServer({
      script: (body, index) => {
        requests.push(JSON.stringify(body));
        return index === 0 ? callTools({ name: 'file_write', arguments: { path: 'src/add.js', content: fixed } }) : answer('Kept add as an alias of sum.');
      },
    });
    try {
      const model = new OpenAiChatProvider({ baseUrl: server.baseUrl, model: 'scripted-1', maxRetries: 0 });
      const result = await run('repaired', policy(''), 'exports.add =', 'exports.sum =', {}, model);
      expect(result.json).toMatchObject({ status: 'COMPLETED' });
      // The repair segment was told what failed: the command, the failing test, the end of its output.
      expect(requests[0]).toContain('npm run test');
      expect(requests[0]).toContain('add sums its arguments');
      // It may run the checks itself, within its budget.
      expect(requests[0]).toMatch(/"verify[._]commands"/);
      const body = readFileSync(result.json!.artifacts['pr-body.md'], 'utf8');
      expect(body).toMatch(/\| `npm run test` \| `\.` \| ✅ passed \| 0 \|/);
    } finally {
      await server.close();
    }
  }, 120_000);

  const python = pythonWithPytest();
  it.skipIf(!python)(
    'pytest: a change that breaks a test is refused with the failing test named; the passing change shows pytest passed',
    async () => {
      const files = {
        // The project declares its test runner: the map takes pytest from its dependencies.
        'pyproject.toml': '[project]\nname = "calc"\nversion = "1.0.0"\n\n[dependency-groups]\ndev = ["pytest>=8"]\n',
        'calc/__init__.py': '',
        'calc/ops.py': 'def add(a, b):\n    """Adds two numbers."""\n    return a + b\n',
        'tests/test_ops.py': 'from calc.ops import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n',
      };
      const pyTask = (find: string, replace: string) =>
        [
          'Change calc/ops.py',
          '',
          '```agent',
          'steps:',
          '  - recipe: replace',
          `    find: "${find}"`,
          `    replace: "${replace}"`,
          '    paths: ["calc/ops.py"]',
          '```',
          '',
        ].join('\n');
      const env = { DRAFTSMAN_VERIFY_TOOLCHAINS: python! };
      const runPy = (name: string, find: string, replace: string) => {
        const repo = join(root, name);
        makeWorkingCopy(repo, { ...files, '.agent-policy.yaml': policy('') });
        return cli(['run', repo, '--task', pyTask(find, replace), '--out', join(root, `state-${name}`), '--json'], { env });
      };
      const broken = await runPy('py-breaks', 'a + b', 'a - b');
      expect(broken.json).toMatchObject({ status: 'FAILED', reason: 'CHECKS_FAILED' });
      expect(JSON.stringify(broken.json)).toContain('"test":"test_add"');
      const fine = await runPy('py-passes', 'Adds two numbers.', 'Returns the sum of two numbers.');
      expect(fine.json).toMatchObject({ status: 'COMPLETED' });
      const body = readFileSync(fine.json!.artifacts['pr-body.md'], 'utf8');
      expect(body).toMatch(/\| `python -m pytest -q` \| `\.` \| ✅ passed \| 0 \|/);
      expect(body).toContain('1 passed');
    },
    120_000,
  );

  const mavenMissing = offlineMavenMissing();
  it.skipIf(mavenMissing !== undefined)(
    `maven: a change that breaks a test is refused with the failing test named; the passing change shows Surefire's real output${mavenMissing ? ` (skipped: ${mavenMissing})` : ''}`,
    async () => {
      const files = {
        'pom.xml': [
          '<?xml version="1.0" encoding="UTF-8"?>',
          '<project xmlns="http://maven.apache.org/POM/4.0.0">',
          '  <modelVersion>4.0.0</modelVersion>',
          '  <groupId>example</groupId>',
          '  <artifactId>calc</artifactId>',
          '  <version>1.0.0</version>',
          '  <properties>',
          '    <maven.compiler.source>17</maven.compiler.source>',
          '    <maven.compiler.target>17</maven.compiler.target>',
          '    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>',
          '  </properties>',
          '  <dependencies>',
          '    <dependency>',
          '      <groupId>junit</groupId>',
          '      <artifactId>junit</artifactId>',
          '      <version>4.13.2</version>',
          '      <scope>test</scope>',
          '    </dependency>',
          '  </dependencies>',
          '</project>',
          '',
        ].join('\n'),
        'src/main/java/calc/Ops.java':
          'package calc;\n\npublic final class Ops {\n  /** Adds two numbers. */\n  public static int add(int a, int b) {\n    return a + b;\n  }\n}\n',
        'src/test/java/calc/OpsTest.java':
          'package calc;\n\nimport static org.junit.Assert.assertEquals;\n\nimport org.junit.Test;\n\npublic class OpsTest {\n  @Test\n  public void addSumsItsArguments() {\n    assertEquals(3, Ops.add(1, 2));\n  }\n}\n',
      };
      // The map infers `mvn -q test`, which resolves plugins from Maven Central (the sandbox's HOME
      // has no ~/.m2): offline, the policy names the command with the machine's repository instead
      // (read-only, which Maven accepts when everything is already there; -B keeps ANSI colours
      // out of the output, -q is left off so that a passing run shows Surefire's summary).
      const command = `mvn -B -o -Dmaven.repo.local=${SYSTEM_MAVEN_REPO} test`;
      const mvnPolicy = `${policy('')}  build:\n    commands:\n      - "${command}"\n`;
      const mvnTask = (find: string, replace: string) => task(find, replace, 'src/main/java/calc/Ops.java');
      const runMvn = (name: string, find: string, replace: string) => {
        const repo = join(root, name);
        makeWorkingCopy(repo, { ...files, '.agent-policy.yaml': mvnPolicy });
        return cli(['run', repo, '--task', mvnTask(find, replace), '--out', join(root, `state-${name}`), '--json']);
      };
      const broken = await runMvn('mvn-breaks', 'a + b', 'a - b');
      expect(broken.json).toMatchObject({ status: 'FAILED', reason: 'CHECKS_FAILED' });
      const text = JSON.stringify(broken.json);
      expect(text).toContain(command);
      // Named once, as Surefire's summary names it (the JUnit report's calc.OpsTest.addSumsItsArguments is the same test).
      expect(broken.json!.details).toMatchObject({
        commands: [{ command, status: 'FAILED', failures: [{ test: 'OpsTest.addSumsItsArguments', line: 10, message: 'expected:<3> but was:<-1>' }] }],
      });
      expect(text).not.toContain('calc.OpsTest.addSumsItsArguments');
      expect(broken.json!.artifacts?.['pr-candidate.json']).toBeUndefined();
      const fine = await runMvn('mvn-passes', 'Adds two numbers.', 'Returns the sum of two numbers.');
      expect(fine.json).toMatchObject({ status: 'COMPLETED' });
      const body = readFileSync(fine.json!.artifacts['pr-body.md'], 'utf8');
      expect(body).toContain('**Run by draftsman** on the change (local sandbox (bubblewrap)):');
      expect(body).toContain(`| \`${command}\` | \`.\` | ✅ passed | 0 |`);
      expect(body).toContain('Tests run: 1, Failures: 0, Errors: 0, Skipped: 0');
      expect(body).toContain('BUILD SUCCESS');
      expect(body).toContain('| **Verification** | static checks: 5 passed, 0 failed · project commands run by draftsman: 1 of 1 passed |');
    },
    300_000,
  );
});
