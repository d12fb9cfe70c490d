import { describe, expect, it } from 'vitest';
import { GitBoundaryError } from '../../../src/core/git/git-boundary-error.js';
import { stagePaths } from '../../../src/core/git/stage-paths.js';
import { VirtualIndex } from '../../../src/core/git/virtual-index.js';
import { writePolicyFor } from '../../helpers/path-rules.js';
import type { LedgerEvent } from '../../../src/core/git/ledger-sink.js';
import { createMemoryRepo } from '../../helpers/memory-repo.js';

async function setup() {
  const repo = await createMemoryRepo({
    'src/main/java/App.java': 'class App {}\n',
    '.github/workflows/deploy.yml': 'on: push\n',
    'package-lock.json': '{}\n',
    'infra/main.tf': 'x\n',
    'docs/readme.md': 'd\n',
    escape: { symlink: '../../etc' },
    inner: { symlink: 'src' },
    'dist/app.js': 'x\n',
  });
  const ws = repo.workspace;
  await ws.write('src/main/java/App.java', 'class App { int x; }\n');
  await ws.write('.github/workflows/deploy.yml', 'on: pull_request\n');
  await ws.write('package-lock.json', '{"a":1}\n');
  await ws.write('infra/main.tf', 'y\n');
  await ws.write('docs/readme.md', 'changed\n');
  await ws.write('escape', '../../etc/passwd', '120000');
  await ws.write('dist/app.js', 'y\n');
  const index = await VirtualIndex.fromCommit(repo.fs, repo.gitdir, repo.commitSha);
  const policy = writePolicyFor({ forbidden: ['infra/**'], scope: ['src', 'package-lock.json', '.github', 'escape', 'inner', 'dist', 'infra'] });
  return { repo, ws, index, policy };
}

describe('stagePaths policy table', () => {
  it.each([
    ['src/main/java/App.java', undefined],
    ['.github/workflows/deploy.yml', 'WORKFLOW_CHANGE_NOT_PERMITTED'],
    ['../x', 'PATH_OUTSIDE_WORKSPACE'],
    ['/etc/passwd', 'PATH_OUTSIDE_WORKSPACE'],
    ['.git/config', 'PATH_OUTSIDE_WORKSPACE'],
    ['escape', 'PATH_THROUGH_SYMLINK'],
    ['inner/main/java/App.java', 'PATH_THROUGH_SYMLINK'],
    ['package-lock.json', 'LOCKFILE_NOT_ALLOWED'],
    ['dist/app.js', 'GENERATED_NOT_ALLOWED'],
    ['infra/main.tf', 'FORBIDDEN_PATH'],
    ['docs/readme.md', 'OUT_OF_SCOPE'],
    ['src/unchanged.java', 'PATH_NOT_CHANGED'],
  ])('%s -> %s', async (path, reason) => {
    const { ws, index, policy } = await setup();
    const events: LedgerEvent[] = [];
    const ledger = { append: async (e: LedgerEvent) => void events.push(e) };
    if (reason === undefined) {
      const result = await stagePaths({ workspace: ws, index, paths: [path], policy, runId: 'r1', ledger });
      expect(result.staged.map((s) => s.path)).toEqual([path]);
      expect(index.get(path)?.oid).toBe(result.staged[0].oid);
      expect(events.map((e) => e.type)).toEqual(['git.staged']);
      return;
    }
    const before = index.files();
    const error = await stagePaths({ workspace: ws, index, paths: [path], policy, runId: 'r1', ledger }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitBoundaryError);
    expect((error as GitBoundaryError).reason).toBe(reason);
    expect((error as GitBoundaryError).data.denials).toEqual([expect.objectContaining({ reason })]);
    expect(index.files()).toEqual(before);
    expect(events.map((e) => e.type)).toEqual(['git.stage.refused']);
  });

  it('stages lockfiles and generated files when the policy allows them', async () => {
    const { ws, index } = await setup();
    const policy = writePolicyFor({ allowLockfiles: true, allowGenerated: true });
    const result = await stagePaths({ workspace: ws, index, paths: ['package-lock.json', 'dist/app.js'], policy });
    expect(result.staged.map((s) => s.change)).toEqual(['MODIFIED', 'MODIFIED']);
  });

  it('is all-or-nothing and refuses an empty list', async () => {
    const { ws, index, policy } = await setup();
    const before = index.files();
    await expect(stagePaths({ workspace: ws, index, paths: ['src/main/java/App.java', '../x'], policy })).rejects.toMatchObject({
      reason: 'PATH_OUTSIDE_WORKSPACE',
    });
    expect(index.files()).toEqual(before);
    await expect(stagePaths({ workspace: ws, index, paths: [], policy })).rejects.toMatchObject({ reason: 'NOTHING_STAGED' });
  });

  it('stages a deletion by removing the path from the index', async () => {
    const { ws, index, policy } = await setup();
    await ws.delete('src/main/java/App.java');
    const result = await stagePaths({ workspace: ws, index, paths: ['src/main/java/App.java'], policy });
    expect(result.staged).toEqual([{ path: 'src/main/java/App.java', change: 'DELETED' }]);
    expect(index.has('src/main/java/App.java')).toBe(false);
  });
});
