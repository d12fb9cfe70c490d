import git from 'isomorphic-git';
import { afterEach, describe, expect, it } from 'vitest';
import { formatPorcelainStatus } from '../../helpers/format-porcelain-status.js';
import { gitStatus } from '../../../src/core/git/git-status.js';
import { stagePaths } from '../../../src/core/git/stage-paths.js';
import { VirtualIndex } from '../../../src/core/git/virtual-index.js';
import { writePolicyFor } from '../../helpers/path-rules.js';
import { createMemoryRepo } from '../../helpers/memory-repo.js';
import { materialize, nativeGit, removeDir } from '../../helpers/git-materialize.js';

const open = writePolicyFor({ allowGenerated: true, allowLockfiles: true });
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(removeDir));

const lines = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag} line ${i}\n`).join('');

async function compare(repo: Awaited<ReturnType<typeof createMemoryRepo>>, index: VirtualIndex) {
  const ours = await gitStatus({ workspace: repo.workspace, index, policy: writePolicyFor() });
  const dir = await materialize(repo.workspace, index);
  dirs.push(dir);
  const native = nativeGit(dir, ['status', '--porcelain=v1', '-z', '--branch']);
  return { ours, oursBytes: Buffer.from(formatPorcelainStatus(ours)), native };
}

describe('gitStatus against native git status --porcelain=v1 -z --branch', () => {
  it('is clean and byte-identical on an untouched workspace', async () => {
    const repo = await createMemoryRepo({ 'a.txt': 'a\n', 'dir/b.txt': 'b\n' });
    const { ours, oursBytes, native } = await compare(repo, await VirtualIndex.fromCommit(repo.fs, repo.gitdir, repo.commitSha));
    expect(ours.clean).toBe(true);
    expect(ours.branch).toBe('main');
    expect(oursBytes.toString('latin1')).toBe(native.toString('latin1'));
  });

  it('matches on unusual paths, modifications, deletions, untracked dirs, staged adds, mode changes and symlinks', async () => {
    const repo = await createMemoryRepo({
      'with space.txt': 'one\n',
      'quote"d.txt': 'q\n',
      'new\nline.txt': 'nl\n',
      'ünïcödé/файл.txt': 'u\n',
      'gone.txt': 'bye\n',
      'staged-gone.txt': 'bye too\n',
      'run.sh': '#!/bin/sh\n',
      link: { symlink: 'with space.txt' },
      'becomes-link.txt': 'file\n',
      'src/keep.ts': 'keep\n',
    });
    const ws = repo.workspace;
    const index = await VirtualIndex.fromCommit(repo.fs, repo.gitdir, repo.commitSha);
    await ws.write('with space.txt', 'two\n');
    await ws.write('quote"d.txt', 'q2\n');
    await ws.write('new\nline.txt', 'nl2\n');
    await ws.write('ünïcödé/файл.txt', 'u2\n');
    await ws.delete('gone.txt');
    await ws.delete('staged-gone.txt');
    await ws.write('run.sh', '#!/bin/sh\n', '100755');
    await ws.write('link', 'quote"d.txt', '120000');
    await ws.write('becomes-link.txt', 'with space.txt', '120000');
    await ws.write('untracked dir/x.txt', 'x\n');
    await ws.write('untracked dir/deeper/y.txt', 'y\n');
    await ws.write('src/new file.ts', 'n\n');
    await ws.write('staged-new.txt', 'sn\n');
    await stagePaths({ workspace: ws, index, paths: ['staged-new.txt', 'staged-gone.txt', 'quote"d.txt'], policy: open });
    await ws.write('quote"d.txt', 'q3\n');

    const { ours, oursBytes, native } = await compare(repo, index);
    expect(oursBytes.toString('latin1')).toBe(native.toString('latin1'));
    expect(ours.clean).toBe(false);
    const byPath = (p: string) => ours.changes.filter((c) => c.path === p).map((c) => `${c.kind}:${c.staged}`);
    expect(byPath('quote"d.txt')).toEqual(['MODIFIED:true', 'MODIFIED:false']);
    expect(byPath('becomes-link.txt')).toEqual(['TYPE_CHANGED:false']);
    expect(byPath('untracked dir/x.txt')).toEqual(['UNTRACKED:false']);
    expect(byPath('staged-gone.txt')).toEqual(['DELETED:true']);
  });

  it('matches on staged exact and similar renames', async () => {
    const repo = await createMemoryRepo({ 'old.txt': lines(20, 'same'), 'edit-old.txt': lines(20, 'edit'), 'other.txt': 'o\n' });
    const ws = repo.workspace;
    const index = await VirtualIndex.fromCommit(repo.fs, repo.gitdir, repo.commitSha);
    await ws.delete('old.txt');
    await ws.write('moved/new.txt', lines(20, 'same'));
    await ws.delete('edit-old.txt');
    await ws.write('edit-new.txt', lines(20, 'edit').replace('edit line 3', 'changed'));
    await stagePaths({ workspace: ws, index, paths: ['old.txt', 'moved/new.txt', 'edit-old.txt', 'edit-new.txt'], policy: open });
    const { ours, oursBytes, native } = await compare(repo, index);
    expect(oursBytes.toString('latin1')).toBe(native.toString('latin1'));
    expect(ours.entries.filter((e) => e.x === 'R').map((e) => `${e.origPath}->${e.path}`)).toEqual(['edit-old.txt->edit-new.txt', 'old.txt->moved/new.txt']);
  });

  it('matches on a detached HEAD', async () => {
    const repo = await createMemoryRepo({ 'a.txt': 'a\n' });
    await git.writeRef({ fs: repo.fs, gitdir: repo.gitdir, ref: 'HEAD', value: repo.commitSha, force: true });
    await repo.workspace.write('a.txt', 'b\n');
    const { ours, oursBytes, native } = await compare(repo, await VirtualIndex.fromCommit(repo.fs, repo.gitdir, repo.commitSha));
    expect(ours.detachedHead).toBe(true);
    expect(ours.branch).toBeUndefined();
    expect(oursBytes.toString('latin1')).toBe(native.toString('latin1'));
  });
});
