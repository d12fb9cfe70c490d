import { writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalRepoSource } from '../../../src/app/git/local-repo-source.js';
import { IngestionError } from '../../../src/core/errors.js';
import { generateLargeRepo, git, makeBareRepo } from '../../fixtures/make-repo.js';
import { diskSnapshot, ingest, policy, removeRoot, tempRoot } from './ingestion-harness.js';

let root: string;
let bareSha: string;

beforeAll(() => {
  root = tempRoot('ingest-local');
  bareSha = makeBareRepo(`${root}/bare.git`, { 'README.md': '# bare\n', 'src/a.ts': 'export const a = 1;\n', link: { symlink: 'src/a.ts' } }).commit;
  git(['clone', '-q', `${root}/bare.git`, `${root}/work`]);
});

afterAll(() => removeRoot(root));

describe('local path source', () => {
  it('copies the objects of a bare repository: every SHA is the source one', async () => {
    const before = diskSnapshot(root);
    const result = await (await ingest(new LocalRepoSource(`${root}/bare.git`))).run;
    expect(result.status).toBe('READY');
    expect(result.baseRef.baseCommitSha).toBe(bareSha);
    expect(result.workspace.baseTreeSha).toBe(git(['--git-dir', `${root}/bare.git`, 'rev-parse', 'HEAD^{tree}']));
    for (const path of result.workspace.paths()) {
      expect(result.workspace.entry(path)?.oid).toBe(git(['--git-dir', `${root}/bare.git`, 'rev-parse', `HEAD:${path}`]));
    }
    expect(await result.workspace.readText('src/a.ts')).toBe('export const a = 1;\n');
    expect(result.baseRef.repository).toEqual({
      owner: 'local',
      repo: `bare.git-${createHash('sha256').update(`${root}/bare.git`).digest('hex').slice(0, 8)}`,
      displayUrl: `file://${root}/bare.git`,
    });
    expect(result.report.repository.sizeKb).toBeGreaterThanOrEqual(0);
    expect(diskSnapshot(root)).toEqual(before); // the source is read, never written
  });

  it('ignores uncommitted changes of a working copy and says so', async () => {
    writeFileSync(`${root}/work/src/a.ts`, 'export const a = 2; // dirty\n');
    writeFileSync(`${root}/work/untracked.txt`, 'new\n');
    const result = await (await ingest(new LocalRepoSource(`${root}/work`))).run;
    expect(result.status).toBe('READY_WITH_WARNINGS');
    const warning = result.warnings.find((w) => w.code === 'LOCAL_CHANGES_IGNORED');
    expect(warning?.data).toEqual({ count: 2, paths: ['src/a.ts', 'untracked.txt'] });
    expect(result.baseRef.baseCommitSha).toBe(bareSha);
    expect(await result.workspace.readText('src/a.ts')).toBe('export const a = 1;\n');
    expect(result.workspace.paths()).not.toContain('untracked.txt');
  });

  it('resolves tags, SHAs and refuses option-like refs', async () => {
    git(['--git-dir', `${root}/bare.git`, 'tag', '-a', 'v1', '-m', 'v1', bareSha]);
    const source = new LocalRepoSource(`${root}/bare.git`);
    expect(await source.resolveRef('v1')).toEqual({ ref: 'refs/tags/v1', sha: bareSha });
    expect(await source.resolveRef(bareSha)).toEqual({ ref: bareSha, sha: bareSha });
    expect(await source.resolveRef('--output=/tmp/x')).toBeUndefined();
    const error = (await (await ingest(source, { ref: 'gone' })).run.catch((e: unknown) => e)) as IngestionError;
    expect(error.reason).toBe('BASE_REF_NOT_FOUND');
  });

  it('enforces the byte cap on the copied pack', async () => {
    const error = (await (
      await ingest(new LocalRepoSource(`${root}/bare.git`), { policy: policy({ maxRepoSizeMb: 100 / (1024 * 1024) }) })
    ).run.catch((e: unknown) => e)) as IngestionError;
    expect(error).toBeInstanceOf(IngestionError);
    expect(error.reason).toBe('REPO_TOO_LARGE');
  });

  it('scans a generated repository with deltas and nested directories completely', async () => {
    const { commit } = generateLargeRepo(`${root}/gen.git`, 600);
    const result = await (await ingest(new LocalRepoSource(`${root}/gen.git`))).run;
    expect(result.baseRef.baseCommitSha).toBe(commit);
    expect(result.policyScan.fileCount).toBe(600);
    const native = git(['--git-dir', `${root}/gen.git`, 'ls-tree', '-r', '-l', 'HEAD']).split('\n');
    const nativeBytes = native.reduce((sum, line) => sum + Number(line.split(/\s+/)[3]), 0);
    expect(result.policyScan.totalBytes).toBe(nativeBytes);
    const sample = native[123].split('\t')[1];
    expect(await result.workspace.readText(sample)).toBe(git(['--git-dir', `${root}/gen.git`, 'show', `HEAD:${sample}`]) + '\n');
  });
});
