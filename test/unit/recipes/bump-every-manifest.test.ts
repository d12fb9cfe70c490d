import { beforeAll, describe, expect, it } from 'vitest';
import { createNodeSyntaxService } from '../../../src/app/local/node-grammar-loader.js';
import { buildRepoMap } from '../../../src/core/repomap/build-repo-map.js';
import { selectTargets } from '../../../src/core/targets/select-targets.js';
import type { TaskContract } from '../../../src/core/task/task-contract.js';
import { pathRulesFor } from '../../helpers/path-rules.js';
import type { TreeSyntaxService } from '../../../src/core/syntax/create-syntax-service.js';
import { RecipeStep } from '../../../src/core/task/recipe-steps.js';
import { goNestedModuleRepo, pnpmWorkspaceRepo } from '../../fixtures/realistic-repos.js';
import { createMemoryRepo } from '../../helpers/memory-repo.js';
import { runRecipeStep } from '../../helpers/run-recipe.js';

let syntax: TreeSyntaxService;
beforeAll(async () => {
  syntax = await createNodeSyntaxService();
});

const bump = (files: Record<string, string>, step: Record<string, unknown>, scope?: string[], isEditable?: (p: string) => boolean) =>
  runRecipeStep(syntax, files, { recipe: 'bump-dependency', ...step }, { scope, isEditable });

const SETUP_PY = `from setuptools import setup, find_packages

# "requests==1.0" in a comment is not a requirement
REQUIRES = [
    "requests==2.31.0",
    'click>=8.0',
]

setup(
    name="acme-billing",
    version="2.31.0",
    install_requires=REQUIRES,
    extras_require={"http2": ["requests[socks]>=2.31.0; python_version>'3.8'"]},
)
`;

const SETUP_CFG = `[metadata]
name = acme-billing

[options]
packages = find:
install_requires =
    click>=8.0
    requests==2.31.0
python_requires = >=3.9

[options.extras_require]
socks = requests[socks]==2.31.0

[tool:pytest]
addopts = --requests==2.31.0
`;

const COMPILED = 'requirements/base.txt is compiled from requirements/base.in: rerun `pip-compile requirements/base.in` to refresh its other pins';

const PYPROJECT = '[project]\nname = "acme-billing"\ndependencies = [\n  "requests==2.31.0",\n  "click>=8.0",\n]\n';

/** A Python project with a requirements/ directory (pip-tools inputs and compiled pins), setup.py, setup.cfg and pyproject.toml. */
const pythonProject = (): Record<string, string> => ({
  'requirements/base.in': 'requests>=2.31.0\nclick\n',
  'requirements/base.txt': '# compiled by pip-compile\nclick==8.1.7\nrequests==2.31.0\n    # via -r requirements/base.in\n',
  'requirements/dev.txt': '-r base.txt\npytest==8.0.0\nRequests==2.31.0\n',
  'setup.py': SETUP_PY,
  'setup.cfg': SETUP_CFG,
  'pyproject.toml': PYPROJECT,
  'docs/requirements.txt': 'sphinx==7.2.0\nrequests==2.30.0\n',
  'src/acme/api.py': 'import requests\n',
});

describe('bump-dependency: every Python manifest that pins the package', () => {
  it('edits requirements/*.txt and *.in, setup.py strings, setup.cfg lists and pyproject.toml, and nothing else', async () => {
    const { changed, text, result } = await bump(pythonProject(), { package: 'requests', to: '2.32.3' });
    expect(changed).toEqual([
      'docs/requirements.txt',
      'pyproject.toml',
      'requirements/base.in',
      'requirements/base.txt',
      'requirements/dev.txt',
      'setup.cfg',
      'setup.py',
    ]);
    expect(await text('setup.py')).toBe(
      SETUP_PY.replace('"requests==2.31.0"', '"requests==2.32.3"').replace('requests[socks]>=2.31.0;', 'requests[socks]>=2.32.3;'),
    );
    expect(await text('setup.cfg')).toBe(
      SETUP_CFG.replace('    requests==2.31.0', '    requests==2.32.3').replace('socks = requests[socks]==2.31.0', 'socks = requests[socks]==2.32.3'),
    );
    expect(await text('requirements/base.in')).toBe('requests>=2.32.3\nclick\n');
    expect(await text('requirements/dev.txt')).toBe('-r base.txt\npytest==8.0.0\nRequests==2.32.3\n');
    expect(await text('pyproject.toml')).toBe(PYPROJECT.replace('2.31.0', '2.32.3'));
    expect(result.notes).toEqual([COMPILED]);
  });

  it('with from, leaves a pin at another version and says where', async () => {
    const { changed, result } = await bump(pythonProject(), { package: 'requests', from: '2.31.0', to: '2.32.3' });
    expect(changed).not.toContain('docs/requirements.txt');
    expect(changed).toContain('setup.py');
    expect(result.notes).toEqual(['docs/requirements.txt:2 also pins requests (requests==2.30.0): not at 2.31.0; left as it is', COMPILED]);
  });

  it('a requirements/ directory scope selects the pins under it and names those it left outside', async () => {
    const { changed, paths, result } = await bump(pythonProject(), { package: 'requests', to: '2.32.3' }, ['requirements/']);
    expect(paths).toEqual(['requirements/base.in', 'requirements/base.txt', 'requirements/dev.txt']);
    expect(changed).toEqual(paths);
    expect(result.notes).toEqual([
      'docs/requirements.txt:2 also pins requests (requests==2.30.0): outside the scope; left as it is',
      'pyproject.toml:4 also pins requests ("requests==2.31.0",): outside the scope; left as it is',
      'setup.cfg:8 also pins requests (requests==2.31.0): outside the scope; left as it is',
      'setup.py:5 also pins requests ("requests==2.31.0",): outside the scope; left as it is',
      COMPILED,
    ]);
  });

  it('target selection with a task scope of requirements/ selects the .txt and .in pins', async () => {
    const repo = await createMemoryRepo(pythonProject());
    const rules = pathRulesFor({});
    const map = await buildRepoMap({ workspace: repo.workspace, owner: 'acme', repo: 'billing', rules, policyDigest: 'p' });
    const task: TaskContract = {
      ...{ schemaVersion: 1, title: 't', objective: 'o', mode: 'draft_pr', budgets: {}, searchTerms: [], kind: 'specific', blockSource: 'none', digest: 'd' },
      paths: ['requirements/'],
      steps: [RecipeStep.parse({ recipe: 'bump-dependency', package: 'requests', to: '2.32.3' })],
    };
    const selection = await selectTargets({ workspace: repo.workspace, task, map, rules, syntax });
    expect(selection.status).toBe('READY');
    expect(selection.selectedFiles.map((f) => f.path).sort()).toEqual(['requirements/base.in', 'requirements/base.txt', 'requirements/dev.txt']);
  });

  it.each([
    ['services/api', ['services/api/package.json', 'services/api/tools/package.json'], 'express'],
    ['services/api/', ['services/api/package.json', 'services/api/tools/package.json'], 'express'],
    ['core', ['core/pom.xml'], 'com.google.guava:guava'],
  ])('a directory scope %s selects the nested manifests under it', async (scope, expected, pkg) => {
    const npm = (deps: Record<string, string>) => JSON.stringify({ name: 'x', dependencies: deps }, null, 2);
    const files: Record<string, string> = {
      ...jvmRepo(),
      'services/api/package.json': npm({ express: '^4.19.2' }),
      'services/api/tools/package.json': npm({ express: '4.19.2' }),
      'services/web/package.json': npm({ express: '^4.19.2' }),
    };
    files['core/pom.xml'] = child('core', '32.0.0-jre');
    const repo = await createMemoryRepo(files);
    const rules = pathRulesFor({});
    const map = await buildRepoMap({ workspace: repo.workspace, owner: 'acme', repo: 'mono', rules, policyDigest: 'p' });
    const task: TaskContract = {
      ...{ schemaVersion: 1, title: 't', objective: 'o', mode: 'draft_pr', budgets: {}, searchTerms: [], kind: 'specific', blockSource: 'none', digest: 'd' },
      paths: [scope],
      // An upgrade for each: 5.0.0 would be a downgrade of guava 32.0.0-jre, which the step leaves alone.
      steps: [RecipeStep.parse({ recipe: 'bump-dependency', package: pkg, to: pkg.includes(':') ? '33.0.0-jre' : '5.0.0' })],
    };
    const selection = await selectTargets({ workspace: repo.workspace, task, map, rules, syntax });
    expect(selection.selectedFiles.map((f) => f.path).sort()).toEqual(expected);
  });

  it('says when the policy refused a pinning manifest', async () => {
    const { changed, result } = await bump(pythonProject(), { package: 'requests', to: '2.32.3' }, undefined, (p) => p !== 'setup.py');
    expect(changed).not.toContain('setup.py');
    expect(result.notes).toEqual(['setup.py:5 also pins requests ("requests==2.31.0",): the policy does not let recipes edit it; left as it is', COMPILED]);
  });
});

const POM = (body: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<project xmlns="http://maven.apache.org/POM/4.0.0">\n  <modelVersion>4.0.0</modelVersion>\n${body}\n</project>\n`;
const dep = (version: string) =>
  `    <dependency>\n      <groupId>com.google.guava</groupId>\n      <artifactId>guava</artifactId>\n      <version>${version}</version>\n    </dependency>`;
const child = (name: string, version?: string) =>
  POM(
    `  <parent>\n    <groupId>com.acme</groupId>\n    <artifactId>parent</artifactId>\n    <version>1.0.0</version>\n  </parent>\n  <artifactId>${name}</artifactId>\n  <dependencies>\n${version ? dep(version) : ''}\n  </dependencies>`,
  );

/** A parent pom with a version property and modules that use it, pin a literal, or are outside the scope; plus a Gradle build with a version catalog. */
const jvmRepo = (): Record<string, string> => ({
  'pom.xml': POM(
    '  <groupId>com.acme</groupId>\n  <artifactId>parent</artifactId>\n  <version>1.0.0</version>\n  <properties>\n    <guava.version>32.0.0-jre</guava.version>\n  </properties>',
  ),
  'core/pom.xml': child('core', '${guava.version}'),
  'web/pom.xml': child('web', '32.0.0-jre'),
  'tools/pom.xml': child('tools', '31.1-jre'),
  'gradle/libs.versions.toml': '[versions]\nguava = "32.0.0-jre"\n\n[libraries]\nguava = { module = "com.google.guava:guava", version.ref = "guava" }\n',
  'android/app/build.gradle': "dependencies {\n    implementation 'com.google.guava:guava:32.0.0-jre'\n}\n",
});

describe('bump-dependency: every Maven module and Gradle build', () => {
  it('edits the parent property, module literals, the version catalog and Gradle strings', async () => {
    const { changed, text, result } = await bump(jvmRepo(), { package: 'com.google.guava:guava', to: '33.2.1-jre' });
    expect(changed).toEqual(['android/app/build.gradle', 'gradle/libs.versions.toml', 'pom.xml', 'tools/pom.xml', 'web/pom.xml']);
    expect(await text('pom.xml')).toContain('<guava.version>33.2.1-jre</guava.version>');
    expect(await text('gradle/libs.versions.toml')).toContain('guava = "33.2.1-jre"');
    expect(result.notes).toEqual([]);
  });

  it('with a module scope and from, names the modules it left and why', async () => {
    const { changed, result } = await bump(jvmRepo(), { package: 'com.google.guava:guava', from: '32.0.0-jre', to: '33.2.1-jre' }, ['web', 'tools']);
    expect(changed).toEqual(['web/pom.xml']);
    expect(result.notes).toEqual([
      "android/app/build.gradle:2 also pins com.google.guava:guava (implementation 'com.google.guava:guava:32.0.0-jre'): outside the scope; left as it is",
      'gradle/libs.versions.toml:2 also pins com.google.guava:guava (guava = "32.0.0-jre"): outside the scope; left as it is',
      'tools/pom.xml:14 also pins com.google.guava:guava (<version>31.1-jre</version>): not at 32.0.0-jre; left as it is',
    ]);
  });
});

describe('bump-dependency: workspaces and nested modules', () => {
  it('edits every package.json of a pnpm workspace that pins the package; the lockfile is refreshed at the root', async () => {
    const files = pnpmWorkspaceRepo();
    files['apps/cli/package.json'] = JSON.stringify({ name: '@acme/cli', dependencies: { '@acme/core': 'workspace:^', express: '~4.19.2' } }, null, 2);
    const { changed, text, result } = await bump(files, { package: 'express', to: '4.21.2' });
    expect(changed).toEqual(['apps/cli/package.json', 'packages/web/package.json']);
    expect(await text('apps/cli/package.json')).toContain('"express": "~4.21.2"');
    expect(result.lockfilesToRefresh).toEqual([{ lockfile: 'pnpm-lock.yaml', command: 'pnpm install --lockfile-only' }]);
  });

  it('names at most twenty pins left, and counts the rest', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 25; i++)
      files[`packages/p${String(i).padStart(2, '0')}/package.json`] = JSON.stringify({ dependencies: { express: '^4.19.2' } }, null, 2);
    const { changed, result } = await bump(files, { package: 'express', to: '5.0.0' }, ['packages/p00']);
    expect(changed).toEqual(['packages/p00/package.json']);
    expect(result.notes).toHaveLength(21);
    expect(result.notes[0]).toBe('packages/p01/package.json:3 also pins express ("express": "^4.19.2"): outside the scope; left as it is');
    expect(result.notes[20]).toBe('… and 4 more like these');
  });

  it('edits a nested Go module too, and refreshes each go.sum in its own module directory', async () => {
    const files = goNestedModuleRepo();
    files['tools/go.mod'] = 'module github.com/acme/svc/tools\n\ngo 1.22\n\nrequire github.com/google/uuid v1.6.0\n';
    const { changed, text, result } = await bump(files, { package: 'github.com/google/uuid', to: 'v1.6.1' });
    expect(changed).toEqual(['go.mod', 'tools/go.mod']);
    expect(await text('tools/go.mod')).toBe('module github.com/acme/svc/tools\n\ngo 1.22\n\nrequire github.com/google/uuid v1.6.1\n');
    expect(result.lockfilesToRefresh).toEqual([
      { lockfile: 'go.sum', command: 'go mod tidy' },
      { lockfile: 'tools/go.sum', command: 'go mod tidy (in tools)' },
    ]);
  });
});
