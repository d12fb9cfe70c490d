import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliIo } from '../../src/app/cli/run-cli.js';
import { LocalRepoSource } from '../../src/app/git/local-repo-source.js';
import { HttpRepoSource } from '../../src/app/git/http-repo-source.js';
import { createMemoryFs } from '../../src/app/local/memfs-adapter.js';
import { IngestionError } from '../../src/core/errors.js';
import type { IngestionArtifact, PolicyScanArtifact } from '../../src/core/ingestion/artifacts.js';
import { ingestRepository, type IngestResult } from '../../src/core/ingestion/ingest-repository.js';
import { DEFAULT_INGESTION_POLICY, type IngestionPolicy } from '../../src/core/ingestion/ingestion-policy.js';
import type { RepoSource } from '../../src/core/ingestion/repo-source.js';
import { HOSTILE_TREES, makeBareRepo, makeLfsRepo, makeRawTreeRepo, makeSubmoduleRepo } from '../fixtures/make-repo.js';
import { startGitHttpServer, type GitHttpServer } from '../helpers/git-http-server.js';
import { MAX_HOSTILE_HEAP_MB, MAX_HOSTILE_MS, measure, treeSnapshot } from './bounds.js';
import { makeDeepChainRepo, makeIdenticalBlobsRepo, makeManyFilesRepo, makeTreeBombRepo } from './hostile-fixtures.js';
import { removeRoot, tempRoot } from './temp-root.js';

/**
 * Hostile repositories through ingestion (issue 8, scaled sizes; the full sizes are in
 * `npm run bench`): each is refused with its reason code, in bounded time and heap, and nothing
 * is written outside the in-memory object store.
 */
let root: string;
let repos: string;
let server: GitHttpServer;
const NOW = Date.UTC(2026, 1, 3, 4, 5, 6);
const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** Scaled sizes: big enough to show the bound holds, small enough for `npm test`. */
const SIZES = { identicalFiles: 400, identicalBlobMb: 8, bombFanout: 12, bombLevels: 6, manyFiles: 5_000, manyLimit: 1_000, depth: 400 };

interface Case {
  repo: string;
  expected: { reason: string; kind?: string } | { status: 'READY_WITH_WARNINGS'; warning: string };
  policy?: Partial<IngestionPolicy>;
  ref?: string;
  paths?: string[];
}

const CASES: Record<string, Case> = {
  ...Object.fromEntries(Object.entries(HOSTILE_TREES).map(([name, spec]) => [name, { repo: name, expected: { reason: spec.reason, kind: spec.kind } }])),
  submodule: { repo: 'submodule', expected: { reason: 'SUBMODULE_BLOCKED' }, policy: { submodules: 'block' } },
  submoduleInScope: { repo: 'submodule', expected: { reason: 'SUBMODULE_IN_SCOPE' }, paths: ['vendor/lib/**'] },
  lfs: { repo: 'lfs', expected: { reason: 'LFS_BLOCKED' } },
  identicalBlobs: { repo: 'identical', expected: { status: 'READY_WITH_WARNINGS', warning: 'FILE_TOO_LARGE' } },
  treeBomb: { repo: 'bomb', expected: { reason: 'FILE_COUNT_EXCEEDED' }, policy: { maxFileCount: SIZES.manyLimit } },
  treeBombDefaultLimit: { repo: 'bomb', expected: { reason: 'FILE_COUNT_EXCEEDED' } },
  emptyTreeBomb: { repo: 'empty-bomb', expected: { reason: 'FILE_COUNT_EXCEEDED' }, policy: { maxFileCount: SIZES.manyLimit } },
  manyFiles: { repo: 'many', expected: { reason: 'FILE_COUNT_EXCEEDED' }, policy: { maxFileCount: SIZES.manyLimit } },
  deepChain: { repo: 'deep', expected: { reason: 'HOSTILE_TREE_ENTRY', kind: 'TOO_DEEP' } },
  tooLarge: { repo: 'plain', expected: { reason: 'REPO_TOO_LARGE' }, policy: { maxRepoSizeMb: 1 / 1024 / 1024 } },
  refMissing: { repo: 'plain', expected: { reason: 'BASE_REF_NOT_FOUND' }, ref: 'no-such-branch' },
  forbiddenScope: { repo: 'plain', expected: { reason: 'FORBIDDEN_PATH_IN_SCOPE' }, paths: ['.github/workflows'] },
  scopeMissing: { repo: 'plain', expected: { reason: 'SCOPE_PATH_MISSING' }, paths: ['nowhere'] },
};

beforeAll(async () => {
  root = tempRoot('hostile');
  repos = join(root, 'repos');
  mkdirSync(repos);
  for (const [name, spec] of Object.entries(HOSTILE_TREES)) makeRawTreeRepo(join(repos, `${name}.git`), spec.entries);
  makeSubmoduleRepo(join(repos, 'submodule.git'));
  makeLfsRepo(join(repos, 'lfs.git'));
  makeIdenticalBlobsRepo(join(repos, 'identical.git'), SIZES.identicalFiles, SIZES.identicalBlobMb);
  makeTreeBombRepo(join(repos, 'bomb.git'), SIZES.bombFanout, SIZES.bombLevels);
  makeTreeBombRepo(join(repos, 'empty-bomb.git'), SIZES.bombFanout, SIZES.bombLevels, 'empty-trees');
  makeManyFilesRepo(join(repos, 'many.git'), SIZES.manyFiles);
  makeDeepChainRepo(join(repos, 'deep.git'), SIZES.depth);
  makeBareRepo(join(repos, 'plain.git'), { 'README.md': '# plain\n', 'src/a.ts': 'export const a = 1;\n', '.github/workflows/ci.yml': 'on: push\n' });
  server = await startGitHttpServer({ root: repos });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  removeRoot(root);
});

async function ingestCase(c: Case, source: RepoSource) {
  const fs = createMemoryFs();
  const measured = await measure<IngestResult>(() =>
    ingestRepository({
      source,
      fs,
      gitdir: '/repo/.git',
      ref: c.ref,
      paths: c.paths,
      policy: { ...DEFAULT_INGESTION_POLICY, ...c.policy },
      clock: { now: () => NOW },
      logger: silent,
    }),
  );
  return { fs, measured };
}

function expectOutcome(c: Case, measured: Awaited<ReturnType<typeof ingestCase>>['measured']): void {
  const expected = c.expected;
  if ('reason' in expected) {
    expect(measured.error, `expected ${expected.reason}, got ${measured.value?.status}`).toBeInstanceOf(IngestionError);
    const error = measured.error as IngestionError;
    expect(error.reason).toBe(expected.reason);
    const report = error.data.report as IngestionArtifact;
    expect(report.error?.reason).toBe(expected.reason);
    if (expected.kind) {
      const scan = error.data.policyScan as PolicyScanArtifact;
      expect(scan.findings.some((f) => f.code === expected.reason && (f.data as { kind?: string } | undefined)?.kind === expected.kind)).toBe(true);
    }
  } else {
    expect(measured.error).toBeUndefined();
    expect(measured.value?.status).toBe(expected.status);
    expect(measured.value?.warnings.map((w) => w.code)).toContain(expected.warning);
  }
  expect(measured.ms).toBeLessThan(MAX_HOSTILE_MS);
  expect(measured.heapPeakDeltaMb).toBeLessThan(MAX_HOSTILE_HEAP_MB);
}

describe('hostile repositories through ingestion (local source): reason code, bounded, nothing written', () => {
  it.each(Object.entries(CASES))('%s', async (_name, c) => {
    const source = join(repos, `${c.repo}.git`);
    const before = treeSnapshot(root);
    const { fs, measured } = await ingestCase(c, new LocalRepoSource(source));
    expectOutcome(c, measured);
    expect(treeSnapshot(root)).toEqual(before);
    expect(Object.keys(fs.volume.toJSON()).every((p) => p.startsWith('/repo/.git/'))).toBe(true);
  });
});

describe('the large hostile repositories over smart HTTP (git http-backend)', () => {
  it.each(['identicalBlobs', 'treeBomb', 'manyFiles', 'deepChain'])('%s', async (name) => {
    const c = CASES[name];
    const before = treeSnapshot(root);
    const { fs, measured } = await ingestCase(c, new HttpRepoSource({ url: `${server.url}/${c.repo}.git` }));
    expectOutcome(c, measured);
    expect(treeSnapshot(root)).toEqual(before);
    expect(Object.keys(fs.volume.toJSON()).every((p) => p.startsWith('/repo/.git/'))).toBe(true);
  });
});

it('the identical-blobs tree reports its logical size and reads one of its files lazily', async () => {
  const { measured } = await ingestCase(CASES.identicalBlobs, new LocalRepoSource(join(repos, 'identical.git')));
  const result = measured.value!;
  expect(result.policyScan.fileCount).toBe(SIZES.identicalFiles + 1);
  expect(result.policyScan.totalBytes).toBe(SIZES.identicalFiles * SIZES.identicalBlobMb * 1048576 + '# fixture\n'.length);
  expect(result.policyScan.counts.FILE_TOO_LARGE).toBe(SIZES.identicalFiles);
  expect((await result.workspace.read('d3/blob170.bin')).byteLength).toBe(SIZES.identicalBlobMb * 1048576);
});

describe('the CLI on hostile repositories: exit 1, the reason in --json, writes only under --out', () => {
  it.each([
    ['dotGit', 'HOSTILE_TREE_ENTRY', []],
    ['symlinkEtcPasswd', 'FORBIDDEN_SYMLINK', []],
    ['submodule', 'SUBMODULE_IN_SCOPE', ['--paths', 'vendor/lib']],
    ['deep', 'HOSTILE_TREE_ENTRY', []],
    ['plain', 'FORBIDDEN_PATH_IN_SCOPE', ['--paths', '.github/workflows']],
  ] as const)('%s -> %s', async (repo, reason, extra) => {
    const out = join(root, `cli-out-${repo}`);
    const before = treeSnapshot(root);
    let stdout = '';
    const io: CliIo = {
      stdout: (t) => void (stdout += t),
      stderr: () => undefined,
      env: {},
      cwd: root,
      clock: { now: () => NOW },
      isTty: false,
      logger: silent,
    };
    const measured = await measure(() => runCli(['ingest', join(repos, `${repo}.git`), '--json', '--out', out, ...extra], io));
    expect(measured.value).toBe(1);
    const json = JSON.parse(stdout.trim().split('\n').pop()!);
    expect(json).toMatchObject({ status: 'BLOCKED', reason });
    expect(measured.ms).toBeLessThan(MAX_HOSTILE_MS);
    // Everything new is under --out; nothing else in the root (the source included) changed.
    const outside = (rel: string) => rel === `cli-out-${repo}` || rel.startsWith(`cli-out-${repo}/`);
    expect(treeSnapshot(root, outside)).toEqual(before.filter((line) => !outside(line.split(' ')[0].replace(/\/$/, ''))));
    const written = treeSnapshot(out);
    expect(written.some((line) => line.includes('/attempts/1/ingestion.json '))).toBe(true);
  });
});
