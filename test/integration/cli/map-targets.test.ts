import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, makeBareRepo } from '../../fixtures/make-repo.js';
import { goNestedModuleRepo, mavenMultiModuleRepo, pnpmWorkspaceRepo, pythonPackageRepo } from '../../fixtures/realistic-repos.js';
import { removeRoot, tempRoot } from '../pipeline/pipeline-harness.js';
import { cli } from './cli-harness.js';

/** `draftsman map` and `draftsman targets` (issue 3) on the realistic fixtures, with hand-written expectations. */
const FIXTURES = { maven: mavenMultiModuleRepo, pnpm: pnpmWorkspaceRepo, go: goNestedModuleRepo, python: pythonPackageRepo };
type Fixture = keyof typeof FIXTURES;

let root: string;
let out: string;
const gitdirOf = (name: Fixture) => join(root, `${name}.git`);
const read = (path: string) => JSON.parse(readFileSync(path, 'utf8'));

beforeAll(() => {
  root = tempRoot('cli-map');
  out = join(root, 'state');
  for (const [name, files] of Object.entries(FIXTURES)) makeBareRepo(gitdirOf(name as Fixture), files());
});

afterAll(() => removeRoot(root));

describe('draftsman map', () => {
  it.each([
    [
      'maven',
      [
        ['.', 'com.acme:order-parent', 'maven'],
        ['order-api', 'com.acme:order-api', 'maven'],
        ['order-service', 'com.acme:order-service', 'maven'],
      ],
    ],
    [
      'pnpm',
      [
        ['.', 'acme-monorepo', 'pnpm'],
        ['apps/cli', '@acme/cli', 'pnpm'],
        ['packages/core', '@acme/core', 'pnpm'],
        ['packages/web', '@acme/web', 'pnpm'],
      ],
    ],
    [
      'go',
      [
        ['.', 'github.com/acme/svc', 'go'],
        ['tools', 'github.com/acme/svc/tools', 'go'],
      ],
    ],
    ['python', [['.', 'acme-billing', 'python']]],
  ] as const)('%s: READY, repo-map.json with its modules, bound to the base commit', async (name, modules) => {
    const result = await cli(['map', gitdirOf(name), '--out', out, '--json']);
    expect(result.code).toBe(0);
    expect(result.json!.status).toBe('READY');
    const map = read(result.json!.artifacts['repo-map.json']);
    expect(map.baseCommitSha).toBe(git(['--git-dir', gitdirOf(name), 'rev-parse', 'main']));
    expect(result.json!.baseCommitSha).toBe(map.baseCommitSha);
    expect(map.modules.map((m: { path: string; name: string; buildSystem: string }) => [m.path, m.name, m.buildSystem])).toEqual(modules);
  });

  it('pnpm: workspace links are module dependencies; node_modules is no module', async () => {
    const result = await cli(['map', gitdirOf('pnpm'), '--out', join(root, 'state-pnpm'), '--json']);
    const map = read(result.json!.artifacts['repo-map.json']);
    const byPath = Object.fromEntries(map.modules.map((m: { path: string }) => [m.path, m]));
    expect(byPath['apps/cli'].dependsOn).toEqual(['pnpm:packages/core']);
    expect(byPath['packages/web'].dependsOn).toEqual(['pnpm:packages/core']);
    expect(map.modules.some((m: { path: string }) => m.path.startsWith('node_modules'))).toBe(false);
  });

  it('the second map of the same commit comes from the cache', async () => {
    const state = join(root, 'state-cache');
    await cli(['map', gitdirOf('go'), '--out', state, '--json']);
    const again = await cli(['map', gitdirOf('go'), '--out', state, '--json']);
    expect(again.json!.attempt).toBe(2);
    const discovery = read(join(again.json!.runDir, 'attempts', '2', 'checkpoints', '000001-discovery.json'));
    expect(discovery.output.mapCacheHit).toBe(true);
  });
});

async function targets(name: Fixture, task: string, extra: string[] = []) {
  const result = await cli(['targets', gitdirOf(name), '--out', out, '--json', '--task', task, ...extra]);
  expect(result.code).toBe(0);
  const selection = read(result.json!.artifacts['target-selection.json']);
  const rank = (path: string): number => selection.selectedFiles.find((f: { path: string }) => f.path === path)?.rank ?? -1;
  const selected: string[] = selection.selectedFiles.map((f: { path: string }) => f.path);
  return { result, selection, rank, selected };
}

describe('draftsman targets --task', () => {
  it('maven: the LegacyAuthClient.exchangeToken call site ranks above the unrelated same-name method', async () => {
    const { result, selection, rank, selected } = await targets('maven', 'Replace LegacyAuthClient.exchangeToken with TokenExchangeService');
    expect(['READY', 'READY_WITH_WARNINGS']).toContain(result.json!.status);
    expect(selection.searchTerms).toEqual(expect.arrayContaining(['LegacyAuthClient', 'exchangeToken']));
    const callSite = 'order-service/src/main/java/com/acme/order/OrderService.java';
    const definition = 'order-service/src/main/java/com/acme/auth/LegacyAuthClient.java';
    const unrelated = 'order-service/src/main/java/com/acme/order/ReportJob.java';
    expect(selected.slice(0, 2).sort()).toEqual([definition, callSite]);
    expect(rank(callSite)).toBeGreaterThan(rank(unrelated));
    expect(selected).not.toContain('target/classes/com/acme/order/OrderService.class');
    expect(selection.excludedFiles).toEqual(expect.arrayContaining([expect.objectContaining({ path: '.github/workflows/ci.yml' })]));
  });

  it('maven: --paths limits the targets to the scope', async () => {
    const { result, selected } = await targets('maven', 'Migrate javax.persistence to jakarta.persistence', ['--paths', 'order-api']);
    expect(result.json!.status).toBe('READY');
    expect(selected).toContain('order-api/src/main/java/com/acme/order/api/OrderRequest.java');
    expect(selected.filter((p) => !p.startsWith('order-api/'))).toEqual([]);
  });

  it('pnpm: usersRouter finds its definition, its user and its test, nothing vendored', async () => {
    const { selected } = await targets('pnpm', 'The usersRouter should return 404 for unknown users');
    expect([...selected].sort()).toEqual(['packages/web/src/routes/users.test.ts', 'packages/web/src/routes/users.ts', 'packages/web/src/server.ts']);
  });

  it('go: Store.Handle ranks its definition first, then its caller, the test covering it, then what it calls and the test of that file', async () => {
    const { selected } = await targets('go', 'Fix Store.Handle in internal/store');
    expect(selected).toEqual(['internal/store/store.go', 'cmd/server/main.go', 'internal/store/store_test.go', 'tools/version.go', 'tools/version_test.go']);
  });

  it('python: `total` in invoice.py selects the module, its caller and its test; migrations stay out', async () => {
    const { selected } = await targets('python', 'Make `total` in src/acme_billing/invoice.py round to cents');
    expect([...selected].sort()).toEqual(['src/acme_billing/api.py', 'src/acme_billing/invoice.py', 'tests/test_invoice.py']);
  });
});

describe('draftsman targets on a terminal', () => {
  it('the running stage line counts the files read, on a terminal only', async () => {
    const files: Record<string, string> = { 'package.json': '{ "name": "many", "version": "1.0.0" }\n' };
    for (let i = 0; i < 600; i++) files[`src/part${String(i).padStart(3, '0')}.ts`] = `export const part${i} = computeTotal(${i});\n`;
    const gitdir = join(root, 'many.git');
    makeBareRepo(gitdir, files);
    const args = ['targets', gitdir, '--out', out, '--task', 'Fix computeTotal rounding'];
    const live = await cli(args, { isTty: true });
    expect(live.code).toBe(0);
    const counts = [...live.stderr.matchAll(/\r\u001b\[K {2}… discovery {16}files read: ([\d,]+)/g)].map((m) => m[1]);
    expect(counts.slice(0, 2)).toEqual(['250', '500']);
    const piped = await cli(args);
    expect(piped.code).toBe(0);
    expect(piped.stderr).not.toContain('files read');
  });
});
