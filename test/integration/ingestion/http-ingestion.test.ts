import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryFs } from '../../../src/app/local/memfs-adapter.js';
import { HttpRepoSource } from '../../../src/app/git/http-repo-source.js';
import { IngestionError } from '../../../src/core/errors.js';
import { BaseRefArtifact, IngestionArtifact, PolicyScanArtifact } from '../../../src/core/ingestion/artifacts.js';
import { commitFiles, git, makeBareRepo, makeLfsRepo, makeSubmoduleRepo } from '../../fixtures/make-repo.js';
import { startGitHttpServer, type GitHttpServer } from '../../helpers/git-http-server.js';
import { captureLogger, ingest, policy, removeRoot, tempRoot } from './ingestion-harness.js';

const CANARY = 'ghs_CANARY0123456789abcdefCANARY';

let root: string;
let server: GitHttpServer;
let mainSha: string;

beforeAll(async () => {
  root = tempRoot('ingest-http');
  mainSha = makeBareRepo(`${root}/app.git`, {
    'README.md': '# app\n',
    'src/index.ts': 'export const x = 1;\n',
    'src/lib/util.ts': 'export const y = 2;\n',
    'bin/run.sh': { content: '#!/bin/sh\necho hi\n', mode: '100755' },
    'docs/link.md': { symlink: '../README.md' },
    '.github/workflows/ci.yml': 'on: push\n',
  }).commit;
  commitFiles(`${root}/app.git`, { 'README.md': '# release\n' }, { branch: 'release', parent: null });
  makeSubmoduleRepo(`${root}/submodule.git`);
  makeLfsRepo(`${root}/lfs.git`);
  server = await startGitHttpServer({ root, tokens: [CANARY], deniedTokens: ['ghs_denied'] });
});

afterAll(async () => {
  await server.stop();
  removeRoot(root);
});

const source = (repo: string, token: string | null = CANARY, extra: Partial<ConstructorParameters<typeof HttpRepoSource>[0]> = {}) =>
  new HttpRepoSource({ url: `${server.url}/${repo}`, token: async () => token ?? undefined, ...extra });

async function failure(promise: Promise<unknown>): Promise<IngestionError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(IngestionError);
  return error as IngestionError;
}

describe('ingestion over smart HTTP (git http-backend)', () => {
  it('pins the base to the SHA native git reports and opens an object-backed workspace', async () => {
    const { run, logger } = await ingest(source('app.git'), { ref: 'main' });
    const result = await run;
    expect(result.status).toBe('READY');
    expect(result.baseRef.baseCommitSha).toBe(git(['--git-dir', `${root}/app.git`, 'rev-parse', 'main']));
    expect(result.baseRef.baseCommitSha).toBe(mainSha);
    expect(result.baseRef.baseRef).toBe('refs/heads/main');
    expect(result.workspace.baseTreeSha).toBe(git(['--git-dir', `${root}/app.git`, 'rev-parse', 'main^{tree}']));
    expect(result.workspace.paths()).toEqual(['.github/workflows/ci.yml', 'README.md', 'bin/run.sh', 'docs/link.md', 'src/index.ts', 'src/lib/util.ts']);
    expect(await result.workspace.readText('src/lib/util.ts')).toBe('export const y = 2;\n');
    expect(result.workspace.entry('bin/run.sh')?.mode).toBe('100755');
    expect(result.workspace.entry('docs/link.md')?.mode).toBe('120000');
    expect(result.policyScan.symlinks).toEqual([{ path: 'docs/link.md', target: '../README.md', resolved: 'README.md', allowed: true }]);
    expect(() => IngestionArtifact.parse(result.report)).not.toThrow();
    expect(() => PolicyScanArtifact.parse(result.policyScan)).not.toThrow();
    expect(() => BaseRefArtifact.parse(result.baseRef)).not.toThrow();
    expect(result.report.statusHistory.map((h) => h.status)).toEqual(['REQUESTED', 'AUTHORIZING', 'CLONING', 'READY']);
    expect(result.report.clonePlan?.depth).toBe(1);
    // one structured line per ingestion, with metrics
    expect(logger.lines).toHaveLength(1);
    expect(logger.lines[0].meta).toMatchObject({ event: 'repository_ingestion_completed', baseCommitSha: mainSha, fileCount: 6, status: 'READY' });
    expect(logger.lines[0].meta?.fetchBytes).toBeGreaterThan(0);
  });

  it('resolves HEAD and other branches', async () => {
    const head = await (await ingest(source('app.git'))).run;
    expect(head.baseRef.baseRef).toBe('refs/heads/main');
    const release = await (await ingest(source('app.git'), { ref: 'release' })).run;
    expect(release.baseRef.baseCommitSha).toBe(git(['--git-dir', `${root}/app.git`, 'rev-parse', 'release']));
    expect(release.workspace.paths()).toEqual(['README.md']);
  });

  it('never lets the token reach an artifact, a log line, an error or the object store', async () => {
    const fs = createMemoryFs();
    const logger = captureLogger();
    const requestsBefore = server.requests.length;
    const { run } = await ingest(source('app.git'), { fs, logger });
    const result = await run;
    const newRequests = server.requests.slice(requestsBefore);
    expect(newRequests.some((r) => r.authorized)).toBe(true); // the token was really used
    const everything = [
      JSON.stringify(result.report),
      JSON.stringify(result.policyScan),
      JSON.stringify(result.baseRef),
      JSON.stringify(result.warnings),
      JSON.stringify(logger.lines),
    ];
    for (const [path, content] of Object.entries(fs.volume.toJSON(undefined, undefined, false, true))) {
      everything.push(path, typeof content === 'string' ? content : '');
    }
    const config = String(await fs.promises.readFile('/repo/.git/config', 'utf8'));
    expect(config).not.toContain('url');
    for (const text of everything) expect(text).not.toContain(CANARY);
    // a failing run too: the error and its data
    const failed = await failure((await ingest(source('app.git'), { ref: 'no-such-branch', logger })).run);
    expect(JSON.stringify(failed)).not.toContain(CANARY);
    expect(JSON.stringify(logger.lines)).not.toContain(CANARY);
  });

  it('refuses a URL that carries credentials', () => {
    expect(() => new HttpRepoSource({ url: `http://x-access-token:${CANARY}@127.0.0.1:1/app.git` })).toThrow(/credentials/);
  });

  it.each([
    ['a wrong token', 'ghs_wrong', 'CLONE_AUTH_FAILED'],
    ['no token at all', null, 'CLONE_AUTH_FAILED'],
    ['a token without access', 'ghs_denied', 'REPOSITORY_ACCESS_DENIED'],
  ])('maps %s to its reason without retrying', async (_label, token, reason) => {
    const before = server.requests.length;
    const error = await failure((await ingest(source('app.git', token))).run);
    expect(error.reason).toBe(reason);
    expect(server.requests.length - before).toBeLessThanOrEqual(3);
    expect((error.data.report as IngestionArtifact).status).toBe('FAILED');
  });

  it('maps a missing repository to REPOSITORY_NOT_FOUND', async () => {
    const error = await failure((await ingest(source('nope.git'))).run);
    expect(error.reason).toBe('REPOSITORY_NOT_FOUND');
  });

  it('drill 1: a deleted base branch fails BASE_REF_NOT_FOUND, with no fetch and no retry', async () => {
    const before = server.requests.length;
    const error = await failure((await ingest(source('app.git'), { ref: 'feature/old' })).run);
    expect(error.reason).toBe('BASE_REF_NOT_FOUND');
    const made = server.requests.slice(before);
    expect(made.filter((r) => r.method === 'POST' && r.service === 'git-upload-pack')).toHaveLength(0);
    expect(made.filter((r) => r.path.endsWith('/info/refs')).length).toBeLessThanOrEqual(2); // one anonymous 401 + one authenticated
    expect((error.data.report as IngestionArtifact).statusHistory.map((h) => h.status)).toEqual(['REQUESTED', 'AUTHORIZING', 'FAILED']);
  });

  it('drill 2a: a repository over the size limit by its reported size is refused before fetching', async () => {
    const before = server.requests.length;
    const error = await failure((await ingest(source('app.git', CANARY, { sizeKb: async () => 5 * 1024 }), { policy: policy({ maxRepoSizeMb: 1 }) })).run);
    expect(error.reason).toBe('REPO_TOO_LARGE');
    expect(server.requests.length).toBe(before);
    expect((error.data.report as IngestionArtifact).status).toBe('BLOCKED');
  });

  it('drill 2b: a pack over the byte cap aborts the transfer with REPO_TOO_LARGE', async () => {
    const error = await failure((await ingest(source('app.git'), { policy: policy({ maxRepoSizeMb: 200 / (1024 * 1024) }) })).run);
    expect(error.reason).toBe('REPO_TOO_LARGE');
    expect(error.data.maxBytes).toBe(200);
  });

  it('drill 3: a submodule is ingested opaque (kept, reported, never fetched); blocked when the policy says so', async () => {
    const before = server.requests.length;
    const opaque = await (await ingest(source('submodule.git'))).run;
    expect(opaque.status).toBe('READY_WITH_WARNINGS');
    expect(opaque.warnings.find((w) => w.code === 'SUBMODULE_PRESENT')).toMatchObject({ data: { paths: ['.gitmodules', 'vendor/lib'] } });
    expect(opaque.workspace.entry('vendor/lib')).toMatchObject({ path: 'vendor/lib', mode: '160000', oid: '0123456789abcdef0123456789abcdef01234567' });
    expect(opaque.policyScan.submodules).toEqual([
      { path: 'vendor/lib', oid: '0123456789abcdef0123456789abcdef01234567', url: 'https://example.test/lib.git' },
    ]);
    expect(server.requests.slice(before).every((r) => r.path.startsWith('/submodule.git/'))).toBe(true);
    expect(JSON.stringify(opaque.report)).not.toContain('secret');

    const error = await failure((await ingest(source('submodule.git'), { policy: policy({ submodules: 'block' }) })).run);
    expect(error.reason).toBe('SUBMODULE_BLOCKED');
    const scan = error.data.policyScan as PolicyScanArtifact;
    expect(scan.decision).toBe('BLOCKED');
    expect(JSON.stringify(error)).not.toContain('secret');
  });

  it('drill 3b: a scope reaching into a submodule is refused with the entry and the submodule named', async () => {
    const error = await failure((await ingest(source('submodule.git'), { paths: ['README.md', 'vendor/lib/src'] })).run);
    expect(error.reason).toBe('SUBMODULE_IN_SCOPE');
    expect(error.message).toContain('vendor/lib/src (submodule vendor/lib)');
    expect(error.data.paths).toEqual([{ pattern: 'vendor/lib/src', submodule: 'vendor/lib' }]);
    // A scope around the submodule (not into it) is fine.
    expect((await (await ingest(source('submodule.git'), { paths: ['vendor/**'] })).run).status).toBe('READY_WITH_WARNINGS');
  });

  it('LFS: blocked by default, a pointer warning when allowed', async () => {
    const error = await failure((await ingest(source('lfs.git'))).run);
    expect(error.reason).toBe('LFS_BLOCKED');
    expect((error.data.policyScan as PolicyScanArtifact).lfs).toEqual({ attributeFiles: ['.gitattributes'], pointers: ['data/model.bin'] });
    const allowed = await (await ingest(source('lfs.git'), { policy: policy({ allowLfs: true }) })).run;
    expect(allowed.warnings.map((w) => w.code).sort()).toEqual(['LFS_POINTER']);
  });

  it('drill 5: a scoped path that matches nothing fails, or warns when the policy says so', async () => {
    const error = await failure((await ingest(source('app.git'), { paths: ['src', 'services/billing'] })).run);
    expect(error.reason).toBe('SCOPE_PATH_MISSING');
    expect(error.data.paths).toEqual(['services/billing']);
    const warned = await (await ingest(source('app.git'), { paths: ['src', 'services/billing'], policy: policy({ scopeMissing: 'warn' }) })).run;
    expect(warned.status).toBe('READY_WITH_WARNINGS');
    expect(warned.scopedPaths).toEqual(['src/index.ts', 'src/lib/util.ts']);
    expect(warned.report.scope).toEqual({ patterns: ['src', 'services/billing'], matchedFileCount: 2, missing: ['services/billing'] });
  });

  it('a scope naming a forbidden path is FORBIDDEN_PATH_IN_SCOPE', async () => {
    const error = await failure((await ingest(source('app.git'), { paths: ['src', '.github/workflows/ci.yml'] })).run);
    expect(error.reason).toBe('FORBIDDEN_PATH_IN_SCOPE');
    expect(error.data.paths).toEqual(['.github/workflows/ci.yml']);
    expect((error.data.report as IngestionArtifact).status).toBe('BLOCKED');
  });

  it('times out a stalled server with CLONE_TIMEOUT', async () => {
    server.onRequest = async (record) => {
      if (record.method === 'POST') await new Promise((resolve) => setTimeout(resolve, 1500));
    };
    try {
      const error = await failure((await ingest(source('app.git', CANARY, { timeoutMs: 300 }))).run);
      expect(error.reason).toBe('CLONE_TIMEOUT');
    } finally {
      server.onRequest = undefined;
    }
  });
});

describe('drill 6: the base branch moves between resolve and fetch', () => {
  let moveRoot: string;
  let moving: GitHttpServer;

  beforeAll(async () => {
    moveRoot = tempRoot('ingest-move');
    moving = await startGitHttpServer({ root: moveRoot });
  });
  afterAll(async () => {
    await moving.stop();
    removeRoot(moveRoot);
  });

  it('a branch moving forward keeps the base pinned to the resolved commit', async () => {
    const gitdir = `${moveRoot}/forward.git`;
    const base = makeBareRepo(gitdir, { 'a.txt': 'one\n' }).commit;
    let moved: string | undefined;
    moving.onRequest = (record) => {
      if (record.method === 'POST' && !moved) moved = commitFiles(gitdir, { 'a.txt': 'two\n' }, { message: 'moved' });
    };
    const result = await (await ingest(new HttpRepoSource({ url: `${moving.url}/forward.git` }), { ref: 'main' })).run;
    moving.onRequest = undefined;
    expect(moved).toBeDefined();
    expect(moved).not.toBe(base);
    expect(result.baseRef.baseCommitSha).toBe(base);
    expect(await result.workspace.readText('a.txt')).toBe('one\n');
  });

  it('a branch rewritten to an unrelated commit: protocol v2 still fetches the resolved commit, so the base stays pinned', async () => {
    const gitdir = `${moveRoot}/rewrite-v2.git`;
    const base = makeBareRepo(gitdir, { 'a.txt': 'one\n' }).commit;
    let moved = false;
    moving.onRequest = (record) => {
      if (record.method === 'POST' && !moved) {
        moved = true;
        commitFiles(gitdir, { 'a.txt': 'rewritten\n' }, { parent: null, message: 'force-pushed' });
      }
    };
    const before = moving.requests.length;
    const result = await (await ingest(new HttpRepoSource({ url: `${moving.url}/rewrite-v2.git` }), { ref: 'main' })).run;
    moving.onRequest = undefined;
    expect(moved).toBe(true);
    expect(result.baseRef.baseCommitSha).toBe(base);
    expect(await result.workspace.readText('a.txt')).toBe('one\n');
    expect(moving.requests.slice(before).filter((r) => r.method === 'POST')).toHaveLength(1); // one v2 fetch by SHA
  });

  it('without protocol v2, a branch rewritten to an unrelated commit fails BASE_MOVED_DURING_FETCH after one retry', async () => {
    const gitdir = `${moveRoot}/rewrite.git`;
    makeBareRepo(gitdir, { 'a.txt': 'one\n' });
    let moved = false;
    moving.onRequest = (record) => {
      if (record.method === 'POST' && !moved) {
        moved = true;
        commitFiles(gitdir, { 'a.txt': 'rewritten\n' }, { parent: null, message: 'force-pushed' });
      }
    };
    const before = moving.requests.length;
    const error = await failure((await ingest(new HttpRepoSource({ url: `${moving.url}/rewrite.git`, protocolV2: false }), { ref: 'main' })).run);
    moving.onRequest = undefined;
    expect(error.reason).toBe('BASE_MOVED_DURING_FETCH');
    const posts = moving.requests.slice(before).filter((r) => r.method === 'POST');
    expect(posts).toHaveLength(3); // by SHA (refused), by branch, one retry
  });
});
