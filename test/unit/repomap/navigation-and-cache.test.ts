import { describe, expect, it } from 'vitest';
import { createLocalArtifactStoreForTest } from './store.js';
import { buildRepoMap } from '../../../src/core/repomap/build-repo-map.js';
import { codeownersMatcher, ownersFor, parseCodeowners } from '../../../src/core/repomap/codeowners.js';
import { FileContents } from '../../../src/core/repomap/file-contents.js';
import { resolveFileImports } from '../../../src/core/repomap/file-imports.js';
import { languageForPath } from '../../../src/core/repomap/language-table.js';
import { pathRulesFor } from '../../helpers/path-rules.js';
import { estimateTokens, projectRepoMap } from '../../../src/core/repomap/project-repo-map.js';
import { loadOrBuildRepoMap, repoMapCacheKey } from '../../../src/core/repomap/repo-map-cache.js';
import { REPO_MAP_SCANNER_VERSION } from '../../../src/core/repomap/repo-map-schema.js';
import { RepoNavigator } from '../../../src/core/repomap/repo-navigator.js';
import { SymbolIndex } from '../../../src/core/repomap/symbol-index.js';
import type { SyntaxService } from '../../../src/core/syntax/types.js';
import type { TaskContract } from '../../../src/core/task/task-contract.js';
import { mavenMultiModuleRepo, pnpmWorkspaceRepo } from '../../fixtures/realistic-repos.js';
import { createMemoryRepo } from '../../helpers/memory-repo.js';

const rules = pathRulesFor({ forbidden: ['.github/workflows/**'] });

async function maven() {
  const repo = await createMemoryRepo(mavenMultiModuleRepo());
  const contents = new FileContents(repo.workspace);
  const map = await buildRepoMap({ workspace: repo.workspace, owner: 'acme', repo: 'orders', rules, policyDigest: 'p1', contents });
  return { repo, map, nav: new RepoNavigator(map, repo.workspace, contents, rules) };
}

function task(partial: Partial<TaskContract>): TaskContract {
  return {
    schemaVersion: 1,
    title: 't',
    objective: 'o',
    mode: 'draft_pr',
    steps: [],
    budgets: {},
    searchTerms: [],
    kind: 'exploratory',
    blockSource: 'none',
    digest: 'd',
    ...partial,
  };
}

describe('navigation queries', () => {
  it('find_related_tests: name match in the same package ranks first', async () => {
    const { nav } = await maven();
    const res = await nav.findRelatedTests('order-service/src/main/java/com/acme/order/OrderService.java');
    expect(res.results[0]).toEqual({
      path: 'order-service/src/test/java/com/acme/order/OrderServiceTest.java',
      score: 0.91,
      reason: 'name match and same package',
      evidence: ['test_name_match', 'same_package'],
    });
    expect((await nav.findRelatedTests('order-api/src/main/java/com/acme/order/api/OrderRequest.java')).results).toEqual([]);
  });

  it('find_module_for_path, find_manifest_for_path, find_entrypoints', async () => {
    const { nav } = await maven();
    expect(nav.findModuleForPath('order-service/src/main/java/com/acme/order/OrderService.java').module?.id).toBe('maven:order-service');
    expect(nav.findModuleForPath('db/migration/V001__init.sql').module?.id).toBe('maven:.');
    expect(nav.findManifestForPath('order-service/src/main/java/com/acme/order/OrderService.java').results.map((r) => r.path)).toEqual([
      'order-service/pom.xml',
      'pom.xml',
    ]);
    expect(nav.findEntrypoints({ framework: 'jax-rs' }).results.map((r) => r.path)).toEqual([
      'order-service/src/main/java/com/acme/order/api/OrderResource.java',
    ]);
    expect(nav.findEntrypoints({ module: 'order-api' }).results).toEqual([]);
  });

  it('find_risky_paths and find_files_by_pattern', async () => {
    const { nav } = await maven();
    const risky = nav.findRiskyPaths([
      'order-service/src/main/java/com/acme/order/OrderService.java',
      'db/migration/V002__x.sql',
      '.github/workflows/ci.yml',
      'target/x.class',
    ]);
    expect(risky.results.map((r) => [r.path, r.reason])).toEqual([
      ['.github/workflows/ci.yml', 'blocked: forbidden by policy'],
      ['target/x.class', 'blocked: build output'],
      ['db/migration/V002__x.sql', 'high: database migration'],
    ]);
    expect(nav.findFilesByPattern('*Resource.java').results.map((r) => r.path)).toEqual(['order-service/src/main/java/com/acme/order/api/OrderResource.java']);
  });

  it('explain_path: module, manifest, role, owners by last match, risk, hints', async () => {
    const { nav } = await maven();
    expect(nav.explainPath('db/migration/V001__init.sql')).toMatchObject({
      exists: true,
      owners: ['@acme/dba'],
      ownersRule: '.github/CODEOWNERS:4 /db/migration/',
      risk: { level: 'high', reason: 'database migration' },
    });
    expect(nav.explainPath('db/seed/sample.sql').owners).toEqual(['@acme/sql-reviewers']);
    const auth = nav.explainPath('order-service/src/main/java/com/acme/auth/LegacyAuthClient.java');
    expect(auth).toMatchObject({ role: 'source', owners: ['@acme/security'], manifest: 'order-service/pom.xml', module: { id: 'maven:order-service' } });
  });
});

describe('CODEOWNERS matching', () => {
  it.each([
    ['*.js', 'src/app/a.js', true],
    ['/build/logs/', 'build/logs/x/y.log', true],
    ['docs/*', 'docs/getting-started.md', true],
    ['docs/*', 'docs/build-app/troubleshooting.md', false],
    ['apps/', 'x/apps/y.ts', true],
    ['/apps/', 'x/apps/y.ts', false],
  ])('%s vs %s -> %s', (pattern, path, expected) => {
    expect(codeownersMatcher(pattern)(path)).toBe(expected);
  });

  it('the last matching line wins; an owner-less line unowns', () => {
    const rules = parseCodeowners('* @all\n/src/ @src\n/src/vendor/\n', 'CODEOWNERS');
    expect(ownersFor(rules, 'src/a.ts').owners).toEqual(['@src']);
    expect(ownersFor(rules, 'src/vendor/a.ts').owners).toEqual([]);
    expect(ownersFor(rules, 'README.md').owners).toEqual(['@all']);
  });
});

describe('repo-map cache', () => {
  it('stores under maps/<owner>/<repo>/<commit>/<scanner>-<policy>.json and reuses on the same key only', async () => {
    const repo = await createMemoryRepo(mavenMultiModuleRepo());
    const store = createLocalArtifactStoreForTest();
    let builds = 0;
    const key = { owner: 'acme', repo: 'orders', commit: repo.commitSha, scannerVersion: REPO_MAP_SCANNER_VERSION, policyDigest: 'p1' };
    const build = async () => {
      builds++;
      return buildRepoMap({ workspace: repo.workspace, owner: 'acme', repo: 'orders', rules, policyDigest: 'p1' });
    };
    const first = await loadOrBuildRepoMap({ store, key, build });
    expect(first.cacheHit).toBe(false);
    expect(first.key).toBe(`maps/acme/orders/${repo.commitSha}/${REPO_MAP_SCANNER_VERSION}-p1.json`);
    const second = await loadOrBuildRepoMap({ store, key, build });
    expect(second.cacheHit).toBe(true);
    expect(second.map).toEqual(first.map);
    expect(builds).toBe(1);
    // Another policy digest is another key.
    const other = await loadOrBuildRepoMap({ store, key: { ...key, policyDigest: 'p2' }, build });
    expect(other.cacheHit).toBe(false);
    expect(() => repoMapCacheKey({ ...key, commit: 'main' })).toThrowError(expect.objectContaining({ reason: 'ARTIFACT_KEY_INVALID' }));
    expect(() => repoMapCacheKey({ ...key, repo: '../other' })).toThrowError(expect.objectContaining({ reason: 'ARTIFACT_KEY_INVALID' }));
  });

  it('ignores a stored map whose identity does not match the key', async () => {
    const repo = await createMemoryRepo(mavenMultiModuleRepo());
    const store = createLocalArtifactStoreForTest();
    const key = { owner: 'acme', repo: 'orders', commit: repo.commitSha, scannerVersion: REPO_MAP_SCANNER_VERSION, policyDigest: 'p1' };
    const map = await buildRepoMap({ workspace: repo.workspace, owner: 'acme', repo: 'orders', rules, policyDigest: 'p1' });
    await store.put(repoMapCacheKey(key), JSON.stringify({ ...map, identity: { ...map.identity, commit: 'f'.repeat(40) } }));
    const res = await loadOrBuildRepoMap({ store, key, build: async () => map });
    expect(res.cacheHit).toBe(false);
  });
});

describe('task projection', () => {
  it('keeps dependency locations first for a bump and respects the token budget', async () => {
    const { map } = await maven();
    const t = task({ kind: 'specific', steps: [{ recipe: 'bump-dependency', package: 'org.springframework.boot:spring-boot-starter-parent', to: '3.2.0' }] });
    const big = projectRepoMap(map, t, 100_000);
    expect(big.profile).toBe('dependency-upgrade');
    expect(big.omitted).toEqual([]);
    expect(big.sections.dependencyLocations).toEqual([{ path: 'pom.xml', matches: ['org.springframework.boot:spring-boot-starter-parent@3.1.5 (parent)'] }]);
    for (const budget of [120, 250, 400, 800]) {
      const p = projectRepoMap(map, t, budget);
      expect(p.estimatedTokens).toBeLessThanOrEqual(budget);
      expect(estimateTokens(p)).toBe(p.estimatedTokens);
    }
    const small = projectRepoMap(map, t, 250);
    expect(Object.keys(small.sections)[0]).toBe('identity');
    expect(small.omitted.length).toBeGreaterThan(0);
  });
});

describe('language table, file imports, symbol index', () => {
  it('maps extensions through Linguist data with confidence', () => {
    expect(languageForPath('a/B.java')).toEqual({ language: 'Java', type: 'programming', confidence: 1 });
    expect(languageForPath('README.md')?.language).toBe('Markdown');
    expect(languageForPath('Dockerfile')?.language).toBe('Dockerfile');
    expect(languageForPath('a.h')!.confidence).toBeLessThan(1);
  });

  it('resolves relative TS imports and Java imports against the tree', async () => {
    const files = pnpmWorkspaceRepo();
    const set = new Set(Object.keys(files));
    expect(resolveFileImports('packages/core/src/index.ts', files['packages/core/src/index.ts'], set, [])).toEqual([
      'packages/core/src/math.ts',
      'packages/core/src/shape.ts',
    ]);
    const { map } = await maven();
    const mvn = mavenMultiModuleRepo();
    const p = 'order-service/src/main/java/com/acme/order/OrderService.java';
    expect(resolveFileImports(p, mvn[p], new Set(Object.keys(mvn)), map.modules)).toEqual([
      'order-api/src/main/java/com/acme/order/api/OrderRequest.java',
      'order-service/src/main/java/com/acme/auth/LegacyAuthClient.java',
    ]);
  });

  it('extracts tags lazily and once per blob', async () => {
    const repo = await createMemoryRepo({ 'a/X.java': 'class X {}', 'b/Y.java': 'class X {}', 'c.txt': 'x' });
    let calls = 0;
    const syntax: SyntaxService = {
      languageFor: (p) => (p.endsWith('.java') ? 'java' : undefined),
      extractTags: () => {
        calls++;
        return [{ kind: 'definition', symbolKind: 'class', name: 'X', line: 1, column: 7, snippet: 'class X {}' }];
      },
      parseProblems: () => [],
    };
    const index = new SymbolIndex(syntax, new FileContents(repo.workspace));
    expect(calls).toBe(0);
    expect((await index.definitions('X', ['a/X.java', 'b/Y.java', 'c.txt'])).map((d) => d.path)).toEqual(['a/X.java', 'b/Y.java']);
    expect(calls).toBe(1);
  });
});
