import { describe, expect, it } from 'vitest';
import { buildRepoMap } from '../../../src/core/repomap/build-repo-map.js';
import { inferBuildProfiles } from '../../../src/core/repomap/build-profiles.js';
import { buildTreeIndex } from '../../../src/core/repomap/detect-modules.js';
import { shellCommands } from '../../../src/core/repomap/js-test-runner.js';
import type { BuildProfile, ManifestRecord, ModuleRecord } from '../../../src/core/repomap/repo-map-schema.js';
import { pathRulesFor } from '../../helpers/path-rules.js';
import { createMemoryRepo } from '../../helpers/memory-repo.js';

async function profileOf(files: Record<string, string>, moduleId: string): Promise<BuildProfile> {
  const repo = await createMemoryRepo(files);
  const map = await buildRepoMap({ workspace: repo.workspace, owner: 'acme', repo: 'demo', rules: pathRulesFor({}), policyDigest: 'p1' });
  const profile = map.build.find((b) => b.moduleId === moduleId);
  if (!profile) throw new Error(`no build profile for ${moduleId}: ${map.build.map((b) => b.moduleId).join(', ')}`);
  return profile;
}

const pkg = (scripts: Record<string, string>, devDependencies: Record<string, string> = {}, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ name: 'demo', version: '1.0.0', type: 'module', ...extra, scripts, devDependencies }, null, 2);

const npmRoot = (packageJson: string, more: Record<string, string> = {}): Record<string, string> => ({
  'package.json': packageJson,
  'package-lock.json': '{ "lockfileVersion": 3 }\n',
  'src/index.js': 'export const x = 1;\n',
  'test/index.test.js': "import test from 'ava';\n",
  ...more,
});

interface Row {
  name: string;
  files: Record<string, string>;
  module: string;
  unitTest: string[] | undefined;
  focused: string[] | undefined;
  runner: string | undefined;
  /** What the recorded reason must say, where the row is about where the runner was read. */
  reason?: RegExp;
}

const NPM_TEST = ['npm', 'run', 'test'];

const javascript: Row[] = [
  {
    name: 'ava behind a linter (xo && ava)',
    files: npmRoot(pkg({ test: 'xo && ava' }, { ava: '^6.1.2', xo: '^0.58.0' })),
    module: 'npm:.',
    unitTest: NPM_TEST,
    focused: ['npx', 'ava', '{testFile}'],
    runner: 'ava',
  },
  {
    name: 'ava under c8 coverage',
    files: npmRoot(pkg({ test: 'c8 ava' }, { ava: '^6.1.2', c8: '^9.1.0' })),
    module: 'npm:.',
    unitTest: NPM_TEST,
    focused: ['npx', 'ava', '{testFile}'],
    runner: 'ava',
    reason: /^the test script runs ava$/,
  },
  {
    name: 'jest under cross-env keeps the environment',
    files: npmRoot(
      pkg({ test: 'cross-env NODE_ENV=test jest --runInBand --forceExit', 'test:ci': 'jest --coverage' }, { jest: '^29.7.0', 'cross-env': '^7.0.3' }),
    ),
    module: 'npm:.',
    unitTest: NPM_TEST,
    focused: ['env', 'NODE_ENV=test', 'npx', 'jest', '{testFile}'],
    runner: 'jest',
  },
  {
    name: 'jest with its own config file',
    files: npmRoot(pkg({ test: "jest --config jest.config.unit.js --testMatch='**/*.unit.test.js'" }, { jest: '^29.7.0' })),
    module: 'npm:.',
    unitTest: NPM_TEST,
    focused: ['npx', 'jest', '--config', 'jest.config.unit.js', '{testFile}'],
    runner: 'jest',
  },
  {
    name: 'vitest run',
    files: npmRoot(pkg({ test: 'vitest run', 'test:watch': 'vitest' }, { vitest: '^1.6.0' })),
    module: 'npm:.',
    unitTest: NPM_TEST,
    focused: ['npx', 'vitest', 'run', '{testFile}'],
    runner: 'vitest',
  },
  {
    name: 'vitest through npx',
    files: npmRoot(pkg({ test: 'npx vitest --run' }, { vitest: '^1.6.0' })),
    module: 'npm:.',
    unitTest: NPM_TEST,
    focused: ['npx', 'vitest', 'run', '{testFile}'],
    runner: 'vitest',
    reason: /^the test script runs vitest$/,
  },
  {
    name: 'npm run test:unit indirection, with a Playwright suite beside it',
    files: npmRoot(
      pkg(
        { test: 'npm run test:unit && npm run test:e2e', 'test:unit': 'vitest run', 'test:e2e': 'playwright test', build: 'tsc -b && vite build' },
        { vitest: '^3.0.0', '@playwright/test': '^1.45.0' },
      ),
    ),
    module: 'npm:.',
    unitTest: NPM_TEST,
    focused: ['npx', 'vitest', 'run', '{testFile}'],
    runner: 'vitest',
    reason: /^the test script runs vitest$/,
  },
  {
    name: 'run-s over a glob of scripts',
    files: npmRoot(
      pkg({ test: 'run-s lint test:*', lint: 'eslint .', 'test:unit': 'ava', 'test:types': 'tsd' }, { ava: '^6.0.0', 'npm-run-all': '^4.1.5', tsd: '^0.31.0' }),
    ),
    module: 'npm:.',
    unitTest: NPM_TEST,
    focused: ['npx', 'ava', '{testFile}'],
    runner: 'ava',
    reason: /^the test script runs ava$/,
  },
  {
    name: 'mocha with a require hook keeps the hook',
    files: npmRoot(pkg({ test: "mocha -r ts-node/register 'test/**/*.spec.ts'" }, { mocha: '^10.4.0', 'ts-node': '^10.9.2' })),
    module: 'npm:.',
    unitTest: NPM_TEST,
    focused: ['npx', 'mocha', '-r', 'ts-node/register', '{testFile}'],
    runner: 'mocha',
  },
  {
    name: 'nyc mocha (nyc options with separate values)',
    files: npmRoot(pkg({ test: 'nyc --reporter lcov --reporter text mocha --exit' }, { mocha: '^10.4.0', nyc: '^15.1.0' })),
    module: 'npm:.',
    unitTest: NPM_TEST,
    focused: ['npx', 'mocha', '{testFile}'],
    runner: 'mocha',
    reason: /^the test script runs mocha$/,
  },
  {
    name: 'tap after standard',
    files: npmRoot(pkg({ test: 'standard && tap test/*.js' }, { tap: '^18.7.0', standard: '^17.1.0' })),
    module: 'npm:.',
    unitTest: NPM_TEST,
    focused: ['npx', 'tap', '{testFile}'],
    runner: 'tap',
  },
  {
    name: 'node --test, as the script says',
    files: npmRoot(pkg({ test: 'node --test' })),
    module: 'npm:.',
    unitTest: NPM_TEST,
    focused: ['node', '--test', '{testFile}'],
    runner: 'node:test',
  },
  {
    name: 'node --test with a loader keeps the loader and drops the glob',
    files: npmRoot(pkg({ test: "node --import tsx --test --experimental-test-coverage 'test/**/*.test.ts'" }, { tsx: '^4.7.0' })),
    module: 'npm:.',
    unitTest: NPM_TEST,
    focused: ['node', '--import', 'tsx', '--experimental-test-coverage', '--test', '{testFile}'],
    runner: 'node:test',
  },
  {
    name: 'a script given --test as its own argument is not node:test',
    files: npmRoot(pkg({ test: 'node scripts/run-tests.js --test' })),
    module: 'npm:.',
    unitTest: NPM_TEST,
    focused: undefined,
    runner: undefined,
  },
  {
    name: 'make test: the project script, no runner',
    files: npmRoot(pkg({ test: 'make test' }), { Makefile: 'test:\n\t./run-tests.sh\n' }),
    module: 'npm:.',
    unitTest: NPM_TEST,
    focused: undefined,
    runner: undefined,
  },
  {
    name: 'a custom script with mocha declared: mocha from the dependencies',
    files: npmRoot(pkg({ test: 'node test/run.js' }, { mocha: '^10.4.0' })),
    module: 'npm:.',
    unitTest: NPM_TEST,
    focused: ['npx', 'mocha', '{testFile}'],
    runner: 'mocha',
    reason: /the test script names no runner; mocha is a declared dependency/,
  },
  {
    name: 'karma runs mocha in a browser: no one-file command, whatever the dependencies say',
    files: npmRoot(pkg({ test: 'karma start --single-run' }, { karma: '^6.4.3', 'karma-mocha': '^2.0.1', mocha: '^10.4.0' })),
    module: 'npm:.',
    unitTest: NPM_TEST,
    focused: undefined,
    runner: undefined,
    reason: /runs karma/,
  },
  {
    name: 'two runners in one test script',
    files: npmRoot(pkg({ test: 'jest && node --test test/legacy' }, { jest: '^29.7.0' })),
    module: 'npm:.',
    unitTest: NPM_TEST,
    focused: undefined,
    runner: undefined,
    reason: /runs jest and node:test/,
  },
  {
    name: 'a cycle of scripts ends',
    files: npmRoot(pkg({ test: 'npm run check', check: 'npm test' })),
    module: 'npm:.',
    unitTest: NPM_TEST,
    focused: undefined,
    runner: undefined,
  },
  {
    name: "npm init's placeholder is no test script",
    files: npmRoot(pkg({ test: 'echo "Error: no test specified" && exit 1' })),
    module: 'npm:.',
    unitTest: undefined,
    focused: undefined,
    runner: undefined,
  },
  {
    name: 'no test script, jest declared',
    files: npmRoot(pkg({ build: 'tsc' }, { jest: '^29.7.0', typescript: '^5.4.0' })),
    module: 'npm:.',
    unitTest: undefined,
    focused: ['npx', 'jest', '{testFile}'],
    runner: 'jest',
    reason: /^no test script; jest is a declared dependency$/,
  },
  {
    name: 'no test script, no runner: nothing guessed',
    files: npmRoot(pkg({ start: 'node src/index.js' })),
    module: 'npm:.',
    unitTest: undefined,
    focused: undefined,
    runner: undefined,
  },
  {
    name: 'yarn: `yarn test:unit` runs the script',
    files: {
      'package.json': pkg({ test: 'yarn lint && yarn test:unit', lint: 'eslint .', 'test:unit': 'jest --selectProjects unit' }, { jest: '^29.7.0' }),
      'yarn.lock': '# yarn lockfile v1\n',
      'src/index.js': 'module.exports = 1;\n',
    },
    module: 'yarn:.',
    unitTest: ['yarn', 'run', 'test'],
    focused: ['npx', 'jest', '--selectProjects', 'unit', '{testFile}'],
    runner: 'jest',
    reason: /^the test script runs jest$/,
  },
  {
    name: 'pnpm -r at a workspace root: fan-out, not the root devDependency',
    files: {
      'package.json': pkg({ test: 'pnpm -r test' }, { vitest: '^1.6.0' }),
      'pnpm-workspace.yaml': "packages:\n  - 'packages/*'\n",
      'pnpm-lock.yaml': "lockfileVersion: '9.0'\n",
      'packages/a/package.json': JSON.stringify({ name: '@acme/a', scripts: { test: 'vitest run' }, devDependencies: { vitest: '^1.6.0' } }),
      'packages/a/src/a.ts': 'export const a = 1;\n',
    },
    module: 'pnpm:.',
    unitTest: ['pnpm', 'run', 'test'],
    focused: undefined,
    runner: undefined,
    reason: /pnpm over workspaces/,
  },
];

const pyproject = (deps: string[], tail = ''): string =>
  `[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n[project]\nname = "acme-tools"\nversion = "0.1.0"\ndependencies = [${deps.map((d) => `"${d}"`).join(', ')}]\n${tail}`;

const pyRoot = (more: Record<string, string>): Record<string, string> => ({
  'src/acme_tools/__init__.py': '',
  'src/acme_tools/core.py': 'def f():\n    return 1\n',
  'tests/test_core.py': 'from acme_tools.core import f\n\n\ndef test_f():\n    assert f() == 1\n',
  ...more,
});

const PYTEST = ['python', '-m', 'pytest', '-q'];
const PYTEST_FILE = ['python', '-m', 'pytest', '-q', '{testFile}'];
const UNITTEST_FILE = ['python', '-m', 'unittest', '{testFile}'];

const python: Row[] = [
  {
    name: 'pytest in an optional dependency group',
    files: pyRoot({ 'pyproject.toml': pyproject(['requests>=2.31'], '\n[project.optional-dependencies]\ntest = ["pytest>=8", "pytest-cov"]\n') }),
    module: 'python:.',
    unitTest: PYTEST,
    focused: PYTEST_FILE,
    runner: 'pytest',
  },
  {
    name: 'pytest in requirements-dev.txt',
    files: pyRoot({ 'requirements.txt': 'requests==2.31.0\n', 'requirements-dev.txt': '-r requirements.txt\npytest==8.1.1\nruff==0.4.2\n' }),
    module: 'python:.',
    unitTest: PYTEST,
    focused: PYTEST_FILE,
    runner: 'pytest',
  },
  {
    name: 'a pytest plugin in requirements/test.txt',
    files: pyRoot({ 'requirements.txt': 'django==5.0.4\n', 'requirements/test.txt': '-r ../requirements.txt\npytest-django==4.8.0\n' }),
    module: 'python:.',
    unitTest: PYTEST,
    focused: PYTEST_FILE,
    runner: 'pytest',
    reason: /^requirements\/test\.txt declares pytest$/,
  },
  {
    name: '[tool.pytest.ini_options] in pyproject.toml',
    files: pyRoot({ 'pyproject.toml': pyproject([], '\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\naddopts = "-ra"\n') }),
    module: 'python:.',
    unitTest: PYTEST,
    focused: PYTEST_FILE,
    runner: 'pytest',
    reason: /^pyproject\.toml configures pytest$/,
  },
  {
    name: 'pytest.ini beside setup.py',
    files: pyRoot({ 'setup.py': 'from setuptools import setup\n\nsetup(name="acme-tools")\n', 'pytest.ini': '[pytest]\ntestpaths = tests\n' }),
    module: 'python:.',
    unitTest: PYTEST,
    focused: PYTEST_FILE,
    runner: 'pytest',
    reason: /^pytest\.ini is pytest's$/,
  },
  {
    name: 'conftest.py in the tests directory',
    files: pyRoot({ 'pyproject.toml': pyproject([]), 'tests/conftest.py': 'import pytest\n' }),
    module: 'python:.',
    unitTest: PYTEST,
    focused: PYTEST_FILE,
    runner: 'pytest',
    reason: /^tests\/conftest\.py is pytest's$/,
  },
  {
    name: 'tox.ini and pytest declared: pytest',
    files: pyRoot({ 'pyproject.toml': pyproject([], '\n[project.optional-dependencies]\ndev = ["pytest"]\n'), 'tox.ini': '[tox]\nenvlist = py311,py312\n' }),
    module: 'python:.',
    unitTest: PYTEST,
    focused: PYTEST_FILE,
    runner: 'pytest',
  },
  {
    name: 'tox.ini alone: unknown',
    files: pyRoot({
      'setup.py': 'from setuptools import setup\n\nsetup(name="acme-tools")\n',
      'tox.ini': '[tox]\nenvlist = py311\n\n[testenv]\ncommands = python -m whatever\n',
    }),
    module: 'python:.',
    unitTest: undefined,
    focused: undefined,
    runner: undefined,
    reason: /tox\.ini/,
  },
  {
    name: 'noxfile.py alone: unknown',
    files: pyRoot({ 'pyproject.toml': pyproject(['attrs']), 'noxfile.py': 'import nox\n\n\n@nox.session\ndef tests(session):\n    session.install(".")\n' }),
    module: 'python:.',
    unitTest: undefined,
    focused: undefined,
    runner: undefined,
    reason: /noxfile\.py/,
  },
  {
    name: 'nothing says pytest, tests/ is a package: unittest',
    files: pyRoot({ 'pyproject.toml': pyproject(['attrs']), 'tests/__init__.py': '' }),
    module: 'python:.',
    unitTest: ['python', '-m', 'unittest'],
    focused: UNITTEST_FILE,
    runner: 'unittest',
  },
  {
    name: 'nothing says pytest, tests/ is a plain directory: unittest discovers from it',
    files: pyRoot({ 'pyproject.toml': pyproject(['attrs']) }),
    module: 'python:.',
    unitTest: ['python', '-m', 'unittest', 'discover', '-s', 'tests'],
    focused: UNITTEST_FILE,
    runner: 'unittest',
  },
];

const jvmAndGo: Row[] = [
  {
    name: 'go test',
    files: { 'go.mod': 'module github.com/acme/svc\n\ngo 1.22\n', 'main.go': 'package main\n\nfunc main() {}\n', 'main_test.go': 'package main\n' },
    module: 'go:.',
    unitTest: ['go', 'test', './...'],
    focused: ['go', 'test', './...', '-run', '^{testName}$'],
    runner: 'go test',
  },
  {
    name: 'Maven through the mvnw wrapper',
    files: { 'pom.xml': '<project><groupId>com.acme</groupId><artifactId>app</artifactId><version>1</version></project>\n', mvnw: '#!/bin/sh\n' },
    module: 'maven:.',
    unitTest: ['./mvnw', '-q', 'test'],
    focused: ['./mvnw', '-q', '-Dtest={className}', '-Dsurefire.failIfNoSpecifiedTests=false', 'test'],
    runner: 'maven-surefire',
  },
  {
    name: 'Maven without a wrapper',
    files: { 'pom.xml': '<project><groupId>com.acme</groupId><artifactId>app</artifactId><version>1</version></project>\n' },
    module: 'maven:.',
    unitTest: ['mvn', '-q', 'test'],
    focused: ['mvn', '-q', '-Dtest={className}', '-Dsurefire.failIfNoSpecifiedTests=false', 'test'],
    runner: 'maven-surefire',
    reason: /no mvnw/,
  },
  {
    name: 'Gradle through the gradlew wrapper',
    files: { 'build.gradle.kts': 'plugins { java }\n', 'settings.gradle.kts': 'rootProject.name = "app"\n', gradlew: '#!/bin/sh\n' },
    module: 'gradle:.',
    unitTest: ['./gradlew', '-q', 'test'],
    focused: ['./gradlew', '-q', 'test', '--tests', '{className}'],
    runner: 'gradle test',
  },
  {
    name: 'Gradle without a wrapper',
    files: { 'build.gradle': "plugins { id 'java' }\n" },
    module: 'gradle:.',
    unitTest: ['gradle', '-q', 'test'],
    focused: ['gradle', '-q', 'test', '--tests', '{className}'],
    runner: 'gradle test',
    reason: /no gradlew/,
  },
];

describe('test commands come from what the project declares', () => {
  it.each([...javascript, ...python, ...jvmAndGo])('$name', async (row) => {
    const profile = await profileOf(row.files, row.module);
    expect(profile.unitTest?.argv).toEqual(row.unitTest);
    expect(profile.focusedTestTemplate?.argv).toEqual(row.focused);
    expect(profile.testRunner?.name).toBe(row.runner);
    expect(profile.testRunner?.reason).toMatch(row.reason ?? /\w/);
  });

  it('a workspace package runs its focused command in its own directory', async () => {
    const profile = await profileOf(
      {
        'package.json': pkg({ test: 'npm test --workspaces' }),
        'package-lock.json': '{ "lockfileVersion": 3 }\n',
        'packages/web/package.json': JSON.stringify({ name: '@acme/web', scripts: { test: 'c8 --reporter=lcov node --test' } }),
        'packages/web/src/a.js': 'export {};\n',
      },
      'npm:packages/web',
    );
    expect(profile.unitTest).toEqual({ cwd: '.', argv: ['npm', 'run', 'test', '--workspace', 'packages/web'] });
    expect(profile.focusedTestTemplate).toEqual({ cwd: 'packages/web', argv: ['node', '--test', '{testFile}'] });
  });

  it('setup.cfg [tool:pytest], read as the testRunner fact, says pytest', () => {
    const manifest: ManifestRecord = { path: 'setup.cfg', kind: 'setup-cfg', evidenceRef: 'e1', dependencies: [], facts: { testRunner: 'pytest' } };
    const mod: ModuleRecord = {
      id: 'python:.',
      path: '.',
      buildSystem: 'python',
      sourceRoots: ['acme'],
      testRoots: ['tests'],
      resourceRoots: [],
      manifests: ['setup.cfg'],
      dependsOn: [],
      evidenceRefs: ['e1'],
    };
    const [profile] = inferBuildProfiles([mod], [manifest], buildTreeIndex(['setup.cfg', 'acme/__init__.py', 'tests/test_a.py']));
    expect(profile.focusedTestTemplate?.argv).toEqual(PYTEST_FILE);
    expect(profile.testRunner).toEqual({ name: 'pytest', reason: 'setup.cfg configures pytest' });
  });
});

describe('shellCommands', () => {
  it('splits at operators, keeps quoted words whole and drops the quotes', () => {
    expect(shellCommands(`cross-env A="x y" jest 'a b' && tsd; (cd x || exit 1) | tee log & wait`)).toEqual([
      ['cross-env', 'A=x y', 'jest', 'a b'],
      ['tsd'],
      ['cd', 'x'],
      ['exit', '1'],
      ['tee', 'log'],
      ['wait'],
    ]);
  });

  it('reads only the first 1000 characters of a hostile line, in one pass', () => {
    const cut = shellCommands(`${'x '.repeat(600)}&& jest`);
    expect(cut.flat()).not.toContain('jest');
    expect(cut.flat()).toHaveLength(500);
    const line = `${'"'.repeat(20_000)}${'&|'.repeat(20_000)}${"a'".repeat(20_000)}`;
    const started = performance.now();
    shellCommands(line);
    expect(performance.now() - started).toBeLessThan(200);
  });
});
