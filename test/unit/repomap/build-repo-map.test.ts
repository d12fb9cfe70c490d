import { describe, expect, it } from 'vitest';
import { buildRepoMap } from '../../../src/core/repomap/build-repo-map.js';
import { FileContents } from '../../../src/core/repomap/file-contents.js';
import { pathRulesFor } from '../../helpers/path-rules.js';
import { REPO_MAP_SCANNER_VERSION, type RepoMap } from '../../../src/core/repomap/repo-map-schema.js';
import { goNestedModuleRepo, mavenMultiModuleRepo, pnpmWorkspaceRepo, pythonPackageRepo } from '../../fixtures/realistic-repos.js';
import { createMemoryRepo, type MemoryRepoFile } from '../../helpers/memory-repo.js';

async function mapOf(files: Record<string, MemoryRepoFile>, rules = pathRulesFor({ forbidden: ['.github/workflows/**'] })): Promise<RepoMap> {
  const repo = await createMemoryRepo(files);
  return buildRepoMap({ workspace: repo.workspace, owner: 'acme', repo: 'demo', rules, policyDigest: 'p1' });
}

const mod = (map: RepoMap, id: string) => map.modules.find((m) => m.id === id);
const hint = (map: RepoMap, kind: string, path: string) => map.navigationHints.find((h) => h.kind === kind && h.path === path);
const build = (map: RepoMap, id: string) => map.build.find((b) => b.moduleId === id);

describe('buildRepoMap on the Maven multi-module example', () => {
  it('finds the modules, their roots and the module dependency from the manifests', async () => {
    const map = await mapOf(mavenMultiModuleRepo());
    expect(map.modules.map((m) => m.id)).toEqual(['maven:.', 'maven:order-api', 'maven:order-service']);
    expect(mod(map, 'maven:order-service')).toMatchObject({
      name: 'com.acme:order-service',
      language: 'Java',
      sourceRoots: ['order-service/src/main/java'],
      testRoots: ['order-service/src/test/java'],
      resourceRoots: ['order-service/src/main/resources'],
      manifests: ['order-service/pom.xml'],
      dependsOn: ['maven:order-api'],
    });
    expect(mod(map, 'maven:order-api')).toMatchObject({ sourceRoots: ['order-api/src/main/java'], testRoots: [], dependsOn: [] });
    expect(map.dependencies.modules).toEqual([
      expect.objectContaining({ from: 'maven:order-service', to: 'maven:order-api', via: 'maven dependency: com.acme:order-api' }),
    ]);
    const root = map.manifests.find((m) => m.path === 'pom.xml')!;
    expect(root.members).toEqual(['order-api', 'order-service']);
    expect(root.parent).toEqual({ name: 'org.springframework.boot:spring-boot-starter-parent', version: '3.1.5', relativePath: '' });
    expect(root.properties).toEqual({ 'java.version': '17' });
  });

  it('infers module-specific Maven commands with the wrapper', async () => {
    const map = await mapOf(mavenMultiModuleRepo());
    expect(build(map, 'maven:order-service')).toMatchObject({
      compile: { cwd: '.', argv: ['./mvnw', '-q', '-pl', 'order-service', '-am', '-DskipTests', 'compile'] },
      unitTest: { cwd: '.', argv: ['./mvnw', '-q', '-pl', 'order-service', '-am', 'test'] },
      needsNetwork: true,
    });
    expect(build(map, 'maven:order-service')!.focusedTestTemplate!.argv).toContain('-Dtest={className}');
  });

  it('gives hints with evidence: JAX-RS API, Spring Boot entrypoint, config, test, Flyway migration', async () => {
    const map = await mapOf(mavenMultiModuleRepo());
    expect(hint(map, 'api', 'order-service/src/main/java/com/acme/order/api/OrderResource.java')).toMatchObject({
      confidence: 0.92,
      framework: 'jax-rs',
      origin: 'detected',
    });
    expect(hint(map, 'entrypoint', 'order-service/src/main/java/com/acme/order/OrderApplication.java')?.reason).toContain('@SpringBootApplication');
    expect(hint(map, 'config', 'order-service/src/main/resources/application.yml')).toBeDefined();
    expect(hint(map, 'test', 'order-service/src/test/java/com/acme/order/OrderServiceTest.java')).toBeDefined();
    expect(hint(map, 'migration', 'db/migration/V001__init.sql')?.reason).toBe('Flyway-style migration path');
    expect(map.navigationHints.some((h) => h.path.includes('OrderService.java') && h.kind === 'api')).toBe(false);
    const ids = new Set(map.evidence.map((e) => e.id));
    for (const h of map.navigationHints) for (const ref of h.evidenceRefs) expect(ids.has(ref)).toBe(true);
    const apiEvidence = map.evidence.find(
      (e) => e.id === hint(map, 'api', 'order-service/src/main/java/com/acme/order/api/OrderResource.java')!.evidenceRefs[0],
    )!;
    expect(apiEvidence).toMatchObject({ path: 'order-service/src/main/java/com/acme/order/api/OrderResource.java', type: 'parsed_symbol' });
    expect(apiEvidence.digest).toMatch(/^git:[0-9a-f]{40}$/);
  });

  it('lists filesystem facts, CODEOWNERS rules and risk with reasons', async () => {
    const map = await mapOf(mavenMultiModuleRepo());
    expect(map.filesystem.topLevelDirs).toEqual(['.github', 'db', 'order-api', 'order-service', 'target']);
    expect(map.filesystem.ignoredDirs).toEqual([{ path: 'target', reason: 'build output', files: 1 }]);
    expect(map.filesystem.importantFiles).toEqual(['.github/CODEOWNERS', 'README.md', 'mvnw', 'pom.xml']);
    expect(map.ownership.source).toBe('.github/CODEOWNERS');
    expect(map.ownership.rules.map((r) => r.pattern)).toEqual([
      '*',
      '*.sql',
      '/db/migration/',
      '/order-service/',
      '/order-service/src/main/java/com/acme/auth/',
    ]);
    const risk = (p: string) => map.risk.paths.find((r) => r.path === p);
    expect(risk('db/migration/V001__init.sql')).toMatchObject({ level: 'high', reason: 'database migration' });
    expect(risk('.github/workflows/ci.yml')?.level).toBe('blocked');
    expect(risk('pom.xml')).toMatchObject({ level: 'medium', reason: 'dependency/build config' });
    expect(risk('target')).toMatchObject({ level: 'blocked', isDirectory: true });
    expect(map.languages[0]).toMatchObject({ language: 'Java', files: 7, confidence: 1 });
  });

  it('is deterministic and commit-bound', async () => {
    const a = await mapOf(mavenMultiModuleRepo());
    const b = await mapOf(mavenMultiModuleRepo());
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(a.identity).toMatchObject({ owner: 'acme', repo: 'demo', commit: a.baseCommitSha, scannerVersion: REPO_MAP_SCANNER_VERSION, policyDigest: 'p1' });
    expect(a.identity.workspaceDigest).toMatch(/^tree:[0-9a-f]{40}$/);
  });

  it('records a broken manifest as a warning, not a crash', async () => {
    const files = { ...mavenMultiModuleRepo(), 'order-api/pom.xml': '<project><artifactId>broken</artifactId>', 'web/package.json': '{ "name": ' };
    const map = await mapOf(files);
    expect(
      map.warnings
        .filter((w) => w.code === 'MANIFEST_PARSE_ERROR')
        .map((w) => w.path)
        .sort(),
    ).toEqual(['order-api/pom.xml', 'web/package.json']);
    expect(map.manifests.find((m) => m.path === 'order-api/pom.xml')!.parseError).toBeTruthy();
    expect(mod(map, 'maven:order-service')).toBeDefined();
  });

  it('treats directories named like object properties (constructor, toString) as ordinary code', async () => {
    // spring-framework has .../mockito/constructor/...: a prototype lookup once took it for an ignored dir and crashed the map.
    const map = await mapOf({ 'src/main/java/a/constructor/Foo.java': 'class Foo {}\n', 'lib/toString/x.js': 'export {};\n', 'node_modules/p/index.js': '' });
    expect(map.filesystem.ignoredDirs).toEqual([{ path: 'node_modules', reason: 'installed dependencies', files: 1 }]);
    expect(map.languages.map((l) => [l.language, l.files])).toEqual([
      ['Java', 1],
      ['JavaScript', 1],
    ]);
  });

  it('reports symlinks with withinWorkspace', async () => {
    const map = await mapOf({ 'config/prod/app.yml': 'a: 1\n', 'config/current': { symlink: 'prod' }, escape: { symlink: '../../etc/passwd' } });
    expect(map.filesystem.symlinks).toEqual([
      { path: 'config/current', target: 'prod', withinWorkspace: true },
      { path: 'escape', target: '../../etc/passwd', withinWorkspace: false },
    ]);
  });
});

describe('buildRepoMap: classification of every file', () => {
  it('classifies every path once, from the path rules, in sorted lists', async () => {
    const map = await mapOf({
      'src/app.ts': 'export {};\n',
      'src/app.test.ts': 'test;\n',
      'package.json': '{"name":"x"}\n',
      'package-lock.json': '{}\n',
      'dist/app.js': 'x\n',
      'node_modules/left-pad/index.js': 'x\n',
      '.github/workflows/ci.yml': 'on: push\n',
      'infra/main.tf': 'x\n',
      'README.md': '# x\n',
      'CHANGELOG.md': '# 1.0\n',
      'logo.png': 'png',
      LICENSE: 'MIT\n',
      'src/a+b/@scope/x.ts': 'export {};\n',
    });
    expect(map.classification).toEqual({
      vendored: ['node_modules/left-pad/index.js'],
      lockfile: ['package-lock.json'],
      generated: ['dist/app.js'],
      ci: ['.github/workflows/ci.yml'],
      test: ['src/app.test.ts'],
      history: ['CHANGELOG.md'],
      infra: ['infra/main.tf'],
      docs: ['README.md'],
      binary: ['logo.png'],
      config: ['package.json'],
      source: ['src/a+b/@scope/x.ts', 'src/app.ts'],
      other: ['LICENSE'],
    });
    const total = Object.values(map.classification).reduce((n, list) => n + list.length, 0);
    expect(total).toBe(map.filesystem.fileCount);
  });

  it('follows the policy: its own lockfile pattern, its forbidden paths in the risk list', async () => {
    const map = await mapOf(
      { 'deps/my.lock': 'x\n', 'src/a.ts': 'x\n', 'secrets/key.txt': 'x\n' },
      pathRulesFor({ forbidden: ['secrets'], lockfiles: ['**/my.lock'] }),
    );
    expect(map.classification.lockfile).toEqual(['deps/my.lock']);
    expect(map.risk.paths.find((r) => r.path === 'secrets/key.txt')).toMatchObject({ level: 'blocked', ruleId: 'policy-forbidden' });
  });
});

describe('buildRepoMap on other ecosystems', () => {
  it('pnpm workspaces: packages, workspace-protocol dependencies, pnpm commands, node_modules ignored', async () => {
    const map = await mapOf(pnpmWorkspaceRepo());
    expect(map.modules.map((m) => m.id)).toEqual(['pnpm:.', 'pnpm:apps/cli', 'pnpm:packages/core', 'pnpm:packages/web']);
    expect(mod(map, 'pnpm:packages/web')!.dependsOn).toEqual(['pnpm:packages/core']);
    expect(mod(map, 'pnpm:apps/cli')!.dependsOn).toEqual(['pnpm:packages/core']);
    expect(map.dependencies.modules.find((e) => e.from === 'pnpm:packages/web')!.via).toBe('workspace protocol: @acme/core');
    expect(mod(map, 'pnpm:packages/core')).toMatchObject({ sourceRoots: ['packages/core/src'], testRoots: ['packages/core/test'], language: 'TypeScript' });
    expect(build(map, 'pnpm:packages/core')).toMatchObject({
      compile: { argv: ['pnpm', '--filter', '@acme/core', 'run', 'build'] },
      focusedTestTemplate: { cwd: 'packages/core', argv: ['npx', 'vitest', 'run', '{testFile}'] },
    });
    expect(build(map, 'pnpm:packages/web')!.focusedTestTemplate!.argv).toEqual(['npx', 'jest', '{testFile}']);
    expect(map.filesystem.ignoredDirs).toEqual([{ path: 'node_modules', reason: 'installed dependencies', files: 2 }]);
    expect(map.manifests.some((m) => m.path.startsWith('node_modules/'))).toBe(false);
    expect(map.manifests.find((m) => m.path === 'pnpm-workspace.yaml')!.members).toEqual(['packages/*', 'apps/*']);
    expect(hint(map, 'api', 'packages/web/src/server.ts')?.framework).toBe('express');
    expect(hint(map, 'test', 'packages/web/src/routes/users.test.ts')).toBeDefined();
    expect(map.ownership.source).toBe('CODEOWNERS');
  });

  it('does not read manifests of test fixtures (fixtures, __fixtures__, testdata): counted in a warning, not modules', async () => {
    const files = {
      ...pnpmWorkspaceRepo(),
      'packages/core/test/fixtures/broken-project/package.json': '{ "name": ',
      'packages/web/__fixtures__/app/package.json': '{ "name": "fixture-app", "dependencies": { "@acme/core": "workspace:*" } }',
      'testdata/openapi.yaml': 'openapi: 3.1.0\ninfo: { title: Golden, version: "1" }\npaths: {}\n',
    };
    const map = await mapOf(files);
    expect(map.modules.map((m) => m.id)).toEqual(['pnpm:.', 'pnpm:apps/cli', 'pnpm:packages/core', 'pnpm:packages/web']);
    expect(map.manifests.filter((m) => /fixtures|testdata/.test(m.path))).toEqual([]);
    expect(map.warnings.filter((w) => w.code !== 'FIXTURE_MANIFESTS_SKIPPED').map((w) => w.code)).not.toContain('MANIFEST_PARSE_ERROR');
    expect(map.warnings.find((w) => w.code === 'FIXTURE_MANIFESTS_SKIPPED')?.message).toMatch(/^3 manifest\(s\)/);
    expect((await mapOf(pnpmWorkspaceRepo())).warnings.map((w) => w.code)).not.toContain('FIXTURE_MANIFESTS_SKIPPED');
  });

  it('gives a JavaScript/TypeScript entry file its hint from the path, without reading it', async () => {
    const repo = await createMemoryRepo(pnpmWorkspaceRepo());
    const contents = new FileContents(repo.workspace);
    const map = await buildRepoMap({ workspace: repo.workspace, owner: 'acme', repo: 'demo', rules: pathRulesFor({}), policyDigest: 'p1', contents });
    const entries = map.navigationHints.filter((h) => h.kind === 'entrypoint' && /\.[cm]?[jt]s$/.test(h.path));
    expect(entries.length).toBeGreaterThan(0);
    for (const h of entries) {
      expect(h).toMatchObject({ confidence: 0.6, reason: 'conventional JavaScript/TypeScript entry file' });
      if (!map.navigationHints.some((o) => o.path === h.path && o.kind === 'api')) expect(contents.sizeOf(h.path), h.path).toBeUndefined();
    }
  });

  it('Go: a nested module is its own module and the root depends on it through require + replace', async () => {
    const map = await mapOf(goNestedModuleRepo());
    expect(map.modules.map((m) => [m.id, m.name])).toEqual([
      ['go:.', 'github.com/acme/svc'],
      ['go:tools', 'github.com/acme/svc/tools'],
    ]);
    expect(mod(map, 'go:.')!.dependsOn).toEqual(['go:tools']);
    expect(build(map, 'go:tools')).toMatchObject({ compile: { cwd: 'tools', argv: ['go', 'build', './...'] }, needsNetwork: false });
    expect(build(map, 'go:.')!.needsNetwork).toBe(true);
    expect(hint(map, 'entrypoint', 'cmd/server/main.go')?.confidence).toBe(0.95);
    expect(hint(map, 'generated', 'api/items.pb.go')).toBeDefined();
    expect(hint(map, 'schema', 'api/items.proto')).toBeDefined();
    expect(map.ownership.source).toBe('docs/CODEOWNERS');
  });

  it('Python: src layout, pytest commands, FastAPI route, alembic migration', async () => {
    const map = await mapOf(pythonPackageRepo());
    expect(map.modules).toEqual([
      expect.objectContaining({ id: 'python:.', name: 'acme-billing', language: 'Python', sourceRoots: ['src'], testRoots: ['tests'] }),
    ]);
    const py = map.manifests.find((m) => m.path === 'pyproject.toml')!;
    expect(py.dependencies.map((d) => `${d.name}${d.version ?? ''}`)).toEqual(['requests>=2.31', 'fastapi>=0.110', 'pydantic', 'pytest==8.0.0', 'hatchling']);
    expect(map.manifests.find((m) => m.path === 'requirements-dev.txt')!.dependencies.map((d) => d.name)).toEqual(['pytest', 'ruff']);
    expect(build(map, 'python:.')!.focusedTestTemplate!.argv).toEqual(['python', '-m', 'pytest', '-q', '{testFile}']);
    expect(hint(map, 'api', 'src/acme_billing/api.py')?.framework).toBe('fastapi');
    expect(hint(map, 'migration', 'alembic/versions/001_init.py')).toBeDefined();
  });
});
