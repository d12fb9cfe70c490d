import git from 'isomorphic-git';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpRepoSource } from '../../../src/app/git/http-repo-source.js';
import { IngestionError } from '../../../src/core/errors.js';
import { IngestionArtifact } from '../../../src/core/ingestion/artifacts.js';
import { HISTORY_DEPTH } from '../../../src/core/ingestion/clone-plan.js';
import { generateHistoryRepo, type HistoryRepo } from '../../fixtures/history-repo.js';
import { makeBareRepo } from '../../fixtures/make-repo.js';
import { startGitHttpServer, type GitHttpServer } from '../../helpers/git-http-server.js';
import { ingest, policy, removeRoot, tempRoot } from './ingestion-harness.js';

let root: string;
let repo: HistoryRepo;
let withFilter: GitHttpServer;
let withoutFilter: GitHttpServer;
const BINARY = 300_000;

beforeAll(async () => {
  root = tempRoot('ingest-history');
  repo = generateHistoryRepo(`${root}/hist.git`, { commits: 8, files: 30, binaryBytes: BINARY });
  makeBareRepo(`${root}/links.git`, { 'README.md': '# r\n', 'docs/link.md': { symlink: '../README.md' }, 'big.bin': 'x'.repeat(50_000) });
  withFilter = await startGitHttpServer({ root, config: { 'uploadpack.allowFilter': 'true' } });
  withoutFilter = await startGitHttpServer({ root });
});

afterAll(async () => {
  await withFilter.stop();
  await withoutFilter.stop();
  removeRoot(root);
});

const source = (server: GitHttpServer, name = 'hist.git', sizeKb?: number) =>
  new HttpRepoSource({ url: `${server.url}/${name}`, ...(sizeKb !== undefined ? { sizeKb: async () => sizeKb } : {}) });

async function commitsIn(fs: Parameters<typeof git.log>[0]['fs'], head: string): Promise<string[]> {
  return (await git.log({ fs, gitdir: '/repo/.git', ref: head })).map((c) => c.oid);
}

async function failure(promise: Promise<unknown>): Promise<IngestionError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(IngestionError);
  return error as IngestionError;
}

const head = () => repo.commits[repo.commits.length - 1];

describe('history when the task needs it, over git http-backend', () => {
  it('fetches depth 1 when the task does not ask for history', async () => {
    const { run, fs } = await ingest(source(withFilter), { taskText: 'Rename value3 to valueThree' });
    const result = await run;
    expect(result.report.clonePlan).toMatchObject({ strategy: 'shallow-object-backed', depth: 1, applied: { depth: 1 } });
    expect(await commitsIn(fs, head())).toEqual([head()]);
    expect(String(await fs.promises.readFile('/repo/.git/shallow', 'utf8')).trim()).toBe(head());
  });

  it('deepens with protocol v2 `deepen` when the task speaks of a regression, and records why', async () => {
    const { run, fs } = await ingest(source(withFilter), { taskText: 'Fix the regression in calc' });
    const result = await run;
    const plan = IngestionArtifact.parse(result.report).clonePlan;
    expect(plan).toMatchObject({ strategy: 'deepened', depth: HISTORY_DEPTH, historyTriggers: ['regression'], applied: { depth: HISTORY_DEPTH } });
    expect(plan?.applied?.fallback).toBeUndefined();
    expect(plan?.reasons[0]).toBe(`depth ${HISTORY_DEPTH}: the task speaks of a regression`);
    // The whole 8-commit history is within the depth: nothing is shallow any more.
    expect(await commitsIn(fs, head())).toEqual([...repo.commits].reverse());
    await expect(fs.promises.readFile('/repo/.git/shallow')).rejects.toThrow();
    expect(withFilter.requests.some((r) => r.method === 'GET' && r.query === 'service=git-upload-pack')).toBe(true);
  });

  it('deepens with `deepen-since` to the date the task names', async () => {
    const { run, fs } = await ingest(source(withFilter), { taskText: 'Totals are wrong since 2024-01-05' });
    const result = await run;
    expect(result.report.clonePlan).toMatchObject({
      strategy: 'deepened',
      deepenSince: '2024-01-05T00:00:00Z',
      applied: { deepenSince: '2024-01-05T00:00:00Z' },
    });
    // Commits 5..8 are dated on or after 2024-01-05.
    expect(await commitsIn(fs, head())).toEqual(repo.commits.slice(4).reverse());
    expect(String(await fs.promises.readFile('/repo/.git/shallow', 'utf8')).trim()).toBe(repo.commits[4]);
  });

  it('falls back to the plan depth when no commit is newer than the date', async () => {
    const { run, fs } = await ingest(source(withFilter), { taskText: 'broken since 2030-01-01' });
    const result = await run;
    expect(result.report.clonePlan?.applied).toMatchObject({ depth: HISTORY_DEPTH });
    expect(result.report.clonePlan?.applied?.fallback).toMatch(/^deepen-since 2030-01-01T00:00:00Z refused/);
    expect(await commitsIn(fs, head())).toHaveLength(8);
  });

  it('fetches without blobs over the size threshold and fetches each blob when its file is read', async () => {
    const full = await (await ingest(source(withFilter))).run;
    const { run } = await ingest(source(withFilter, 'hist.git', 2048), { policy: policy({ bloblessOverMb: 1 }) });
    const result = await run;
    expect(result.report.clonePlan).toMatchObject({ strategy: 'blobless', depth: 1, filter: 'blob:none', applied: { depth: 1, filter: 'blob:none' } });
    expect(result.report.clonePlan?.reasons.some((r) => /^\d+ blob\(s\) not fetched/.test(r))).toBe(true);
    const fullBytes = full.report.fetch?.bytes ?? 0;
    const bloblessBytes = result.report.fetch?.bytes ?? 0;
    expect(fullBytes).toBeGreaterThan(BINARY);
    expect(bloblessBytes).toBeLessThan(fullBytes / 10);

    const posts = () => withFilter.requests.filter((r) => r.method === 'POST').length;
    const before = posts();
    expect(await result.workspace.readText('src/calc.ts')).toContain("export const line8 = 'changed in commit 8';");
    expect(posts()).toBe(before + 1);
    expect(await result.workspace.readText('src/calc.ts')).toContain('line1');
    expect(posts()).toBe(before + 1); // fetched once, then read from the object store
    expect((await result.workspace.read('assets/data.bin')).byteLength).toBe(BINARY);
    expect(result.workspace.paths()).toEqual(full.workspace.paths());
  });

  it('still scans symlink targets of a blobless fetch (fetched for the scan)', async () => {
    const { run } = await ingest(source(withFilter, 'links.git', 2048), { policy: policy({ bloblessOverMb: 1 }) });
    const result = await run;
    expect(result.report.clonePlan?.filter).toBe('blob:none');
    expect(result.policyScan.symlinks).toEqual([{ path: 'docs/link.md', target: '../README.md', resolved: 'README.md', allowed: true }]);
  });

  it('refuses blob:none clearly when the server does not advertise filter, and fetches the whole commit', async () => {
    const { run } = await ingest(source(withoutFilter, 'hist.git', 2048), { policy: policy({ bloblessOverMb: 1 }) });
    const result = await run;
    expect(result.report.clonePlan?.applied).toEqual({
      depth: 1,
      fallback: 'the server does not advertise filter in its v2 fetch capabilities: blobs fetched with the commit',
    });
    expect(result.warnings.map((w) => w.code)).toContain('CLONE_PLAN_FALLBACK');
    expect(result.report.fetch?.bytes).toBeGreaterThan(BINARY);
  });

  it('keeps the byte cap for blobs fetched on demand', async () => {
    // Cap about 200 KiB: the commits and trees fit, the 300 KB asset fetched later does not.
    const { run } = await ingest(source(withFilter, 'hist.git', 150), { policy: policy({ bloblessOverMb: 0.1, maxRepoSizeMb: 0.2 }) });
    const result = await run;
    expect(result.report.clonePlan?.strategy).toBe('blobless');
    expect(await result.workspace.readText('src/calc.ts')).toContain('line1');
    const error = await failure(result.workspace.read('assets/data.bin'));
    expect(error.reason).toBe('REPO_TOO_LARGE');
  });

  it('keeps the file size limit for blobs fetched on demand', async () => {
    const { run } = await ingest(source(withFilter, 'hist.git', 2048), { policy: policy({ bloblessOverMb: 1, maxFileSizeMb: 0.1 }) });
    const result = await run;
    const error = await failure(result.workspace.read('assets/data.bin'));
    expect(error.reason).toBe('FILE_TOO_LARGE');
  });
});
