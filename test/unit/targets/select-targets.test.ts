import { beforeAll, describe, expect, it } from 'vitest';
import { createNodeSyntaxService } from '../../../src/app/local/node-grammar-loader.js';
import { buildRepoMap } from '../../../src/core/repomap/build-repo-map.js';
import { FileContents } from '../../../src/core/repomap/file-contents.js';
import { pathRulesFor } from '../../helpers/path-rules.js';
import type { RepoMap } from '../../../src/core/repomap/repo-map-schema.js';
import { SymbolIndex } from '../../../src/core/repomap/symbol-index.js';
import type { TreeSyntaxService } from '../../../src/core/syntax/create-syntax-service.js';
import { selectTargets } from '../../../src/core/targets/select-targets.js';
import { TargetSelection } from '../../../src/core/targets/target-selection-schema.js';
import type { TaskContract } from '../../../src/core/task/task-contract.js';
import { mavenMultiModuleRepo, pnpmWorkspaceRepo } from '../../fixtures/realistic-repos.js';
import { createMemoryRepo, type MemoryRepo } from '../../helpers/memory-repo.js';

const rules = pathRulesFor({ forbidden: ['.github/workflows/**'], requireApproval: ['db/migration/**'] });

function task(partial: Partial<TaskContract>): TaskContract {
  return {
    schemaVersion: 1,
    title: 't',
    objective: 'o',
    mode: 'draft_pr',
    steps: [],
    budgets: {},
    searchTerms: [],
    kind: 'specific',
    blockSource: 'none',
    digest: 'd',
    ...partial,
  };
}

const exchangeTask = task({
  objective: 'Migrate LegacyAuthClient.exchangeToken to TokenExchangeService.exchange',
  searchTerms: [{ term: 'LegacyAuthClient.exchangeToken', kind: 'symbol', source: 'objective' }],
});

let syntax: TreeSyntaxService;
let repo: MemoryRepo;
let map: RepoMap;
beforeAll(async () => {
  syntax = await createNodeSyntaxService();
  repo = await createMemoryRepo(mavenMultiModuleRepo());
  map = await buildRepoMap({ workspace: repo.workspace, owner: 'acme', repo: 'orders', rules, policyDigest: 'p1' });
});

const rankOf = (sel: TargetSelection, path: string) => sel.selectedFiles.find((f) => f.path === path)?.rank ?? -1;
const CALL_SITE = 'order-service/src/main/java/com/acme/order/OrderService.java';
const LOCAL_METHOD = 'order-service/src/main/java/com/acme/order/ReportJob.java';
const DEFINITION = 'order-service/src/main/java/com/acme/auth/LegacyAuthClient.java';

describe('selectTargets: LegacyAuthClient.exchangeToken migration', () => {
  it.each([
    ['tree-sitter symbols', true],
    ['textual fallback', false],
  ])('ranks the real call site first and the unrelated local method below it (%s)', async (_label, withSyntax) => {
    const contents = new FileContents(repo.workspace);
    const symbols = withSyntax ? new SymbolIndex(syntax, contents) : undefined;
    const sel = await selectTargets({ workspace: repo.workspace, task: exchangeTask, map, rules, syntax, contents, symbols });
    expect(TargetSelection.parse(sel)).toEqual(sel);
    expect(sel.strategy).toBe('keyword_plus_symbol_search');
    expect(sel.selectedFiles[0].path).toBe(CALL_SITE);
    expect(rankOf(sel, CALL_SITE)).toBeGreaterThan(rankOf(sel, DEFINITION));
    expect(rankOf(sel, DEFINITION)).toBeGreaterThan(rankOf(sel, LOCAL_METHOD));
    const top = sel.selectedFiles[0];
    expect(top).toMatchObject({ classification: 'source', allowedToEdit: true, module: 'maven:order-service' });
    expect(top.reasons).toContain('exact method invocation: LegacyAuthClient.exchangeToken');
    expect(top.evidence).toContainEqual(expect.objectContaining({ type: 'symbol', line: 17, snippet: 'String token = legacyAuthClient.exchangeToken(code);' }));
    expect(sel.selectedFiles.find((f) => f.path === LOCAL_METHOD)!.reasons).toContain(
      'defines its own exchangeToken: same name, unrelated to LegacyAuthClient',
    );
    expect(sel.warnings.map((w) => w.code)).toContain('SYMBOL_RESOLUTION_PARTIAL');
    expect(sel.stats.filesParsed).toBe(withSyntax ? 3 : 0);
    expect(sel.baseCommitSha).toBe(repo.commitSha);
  });

  it('is deterministic', async () => {
    const a = await selectTargets({ workspace: repo.workspace, task: exchangeTask, map, rules, syntax });
    const b = await selectTargets({ workspace: repo.workspace, task: exchangeTask, map, rules, syntax });
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  });
});

describe('selectTargets: scope and policy', () => {
  it('excludes a forbidden path named in the scope with FORBIDDEN_PATH_IN_SCOPE', async () => {
    const t = task({
      paths: ['order-service', '.github/workflows/ci.yml'],
      searchTerms: [{ term: 'exchangeToken', kind: 'quoted-identifier', source: 'objective' }],
    });
    const sel = await selectTargets({ workspace: repo.workspace, task: t, map, rules, syntax });
    expect(sel.excludedFiles).toContainEqual({ path: '.github/workflows/ci.yml', reason: 'FORBIDDEN_PATH_IN_SCOPE: forbidden by policy' });
    expect(sel.warnings.map((w) => w.code)).toContain('FORBIDDEN_PATH_IN_SCOPE');
    expect(sel.selectedFiles.every((f) => f.path.startsWith('order-service/'))).toBe(true);
    expect(sel.strategy).toBe('explicit_scope_plus_keyword_plus_symbol_search');
    expect(sel.selectedFiles[0].reasons).toContain('inside explicit scope: order-service, .github/workflows/ci.yml');
  });

  it('reports forbidden files that match the search as excluded and never selects them', async () => {
    const t = task({ searchTerms: [{ term: 'actions/checkout', kind: 'path', source: 'objective' }] });
    const sel = await selectTargets({ workspace: repo.workspace, task: t, map, rules, syntax });
    expect(sel.selectedFiles).toEqual([]);
    expect(sel.excludedFiles).toContainEqual({ path: '.github/workflows/ci.yml', reason: 'forbidden path' });
    expect(sel).toMatchObject({ status: 'FAILED', reason: 'TARGET_SELECTION_EMPTY' });
  });

  it('TARGET_SELECTION_EMPTY fails a specific task and only warns for an exploratory one', async () => {
    const terms = [{ term: 'NoSuchThingAnywhere', kind: 'quoted-identifier' as const, source: 'objective' }];
    const specific = await selectTargets({ workspace: repo.workspace, task: task({ searchTerms: terms }), map, rules, syntax });
    expect(specific.status).toBe('FAILED');
    const exploratory = await selectTargets({ workspace: repo.workspace, task: task({ kind: 'exploratory', searchTerms: terms }), map, rules, syntax });
    expect(exploratory.status).toBe('READY_WITH_WARNINGS');
    expect(exploratory.warnings.map((w) => w.code)).toContain('TARGET_SELECTION_EMPTY');
  });

  it('marks paths needing approval as not editable and skips build output', async () => {
    const t = task({ searchTerms: [{ term: 'orders', kind: 'quoted-identifier', source: 'objective' }] });
    const sel = await selectTargets({ workspace: repo.workspace, task: t, map, rules, syntax });
    const migration = sel.selectedFiles.find((f) => f.path === 'db/migration/V001__init.sql')!;
    expect(migration).toMatchObject({ classification: 'migration', allowedToEdit: false });
    expect(migration.reasons).toContain('requires approval by policy');
    expect(sel.selectedFiles.some((f) => f.path.startsWith('target/'))).toBe(false);
  });
});

describe('selectTargets: recipe steps', () => {
  it('migrate-import selects exactly the files with the import', async () => {
    const t = task({ steps: [{ recipe: 'migrate-import', from: 'javax.persistence', to: 'jakarta.persistence' }] });
    const sel = await selectTargets({ workspace: repo.workspace, task: t, map, rules, syntax });
    expect(sel.strategy).toBe('recipe_candidates');
    expect(sel.selectedFiles.map((f) => f.path).sort()).toEqual(['order-api/src/main/java/com/acme/order/api/OrderRequest.java', CALL_SITE]);
    expect(sel.selectedFiles.find((f) => f.path === CALL_SITE)!.evidence).toContainEqual(
      expect.objectContaining({ type: 'recipe', line: 5, snippet: 'import javax.persistence.EntityManager;' }),
    );
  });

  it('migrate-import selects what the engine would edit: a package clause alone is no import', async () => {
    const t = task({ steps: [{ recipe: 'migrate-import', from: 'com.acme', to: 'org.acme' }] });
    const sel = await selectTargets({ workspace: repo.workspace, task: t, map, rules, syntax });
    expect(sel.selectedFiles.map((f) => f.path).sort()).toEqual([CALL_SITE, 'order-service/src/main/java/com/acme/order/api/OrderResource.java']);
  });

  it('bump-dependency selects the manifest that declares the package, not mentions elsewhere', async () => {
    const t = task({ steps: [{ recipe: 'bump-dependency', package: 'org.springframework.boot:spring-boot-starter-parent', to: '3.2.0' }] });
    const sel = await selectTargets({ workspace: repo.workspace, task: t, map, rules, syntax });
    expect(sel.selectedFiles.map((f) => [f.path, f.classification])).toEqual([['pom.xml', 'manifest']]);
  });

  it('bump-dependency in an npm monorepo excludes the lockfile and says how to refresh it', async () => {
    const npm = await createMemoryRepo(pnpmWorkspaceRepo());
    const npmMap = await buildRepoMap({ workspace: npm.workspace, owner: 'acme', repo: 'mono', rules, policyDigest: 'p1' });
    const t = task({ steps: [{ recipe: 'bump-dependency', package: 'express', to: '^5.0.0' }] });
    const sel = await selectTargets({ workspace: npm.workspace, task: t, map: npmMap, rules, syntax });
    expect(sel.selectedFiles.map((f) => f.path)).toEqual(['packages/web/package.json']);
    expect(sel.excludedFiles).toContainEqual({ path: 'pnpm-lock.yaml', reason: 'lockfile: not edited; refresh with pnpm install --lockfile-only' });
    expect(sel.warnings.map((w) => w.code)).toContain('LOCKFILE_NEEDS_REFRESH');
  });
});
