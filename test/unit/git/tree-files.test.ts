import git from 'isomorphic-git';
import { describe, expect, it } from 'vitest';
import { createMemoryFs } from '../../../src/app/local/memfs-adapter.js';
import { writeTreeFromFiles } from '../../../src/core/git/git-objects.js';
import { rememberBaseTree, rememberTreeFiles, treeFiles } from '../../../src/core/git/tree-files.js';
import { VirtualIndex } from '../../../src/core/git/virtual-index.js';
import { readTreeFiles } from '../../../src/core/workspace/workspace.js';
import { createMemoryRepo } from '../../helpers/memory-repo.js';

/** Only a remembered listing can answer once the objects are gone. */
function emptyObjectStore(repo: { fs: unknown; gitdir: string }): void {
  (repo.fs as ReturnType<typeof createMemoryFs>).volume.rmSync(`${repo.gitdir}/objects`, { recursive: true });
}

const FILES = { 'b.txt': 'b\n', 'a/z.txt': 'z\n', 'a/b/c.txt': 'c\n', 'a-b.txt': 'dash\n', link: { symlink: 'a/z.txt' } };

describe('tree listings by tree id', () => {
  it('lists a tree as a walk of the object store does', async () => {
    const repo = await createMemoryRepo(FILES);
    expect(await treeFiles(repo.fs, repo.gitdir, repo.treeSha)).toEqual(await readTreeFiles(repo.fs, repo.gitdir, repo.treeSha));
  });

  it('seeds the base tree from a clean workspace, which equals the walk, and walks nothing afterwards', async () => {
    const repo = await createMemoryRepo(FILES);
    rememberBaseTree(repo.workspace);
    const walked = await readTreeFiles(repo.fs, repo.gitdir, repo.treeSha);
    emptyObjectStore(repo);
    expect(await treeFiles(repo.fs, repo.gitdir, repo.treeSha)).toEqual(walked);
  });

  it('remembers nothing from a workspace with changes', async () => {
    const repo = await createMemoryRepo(FILES);
    await repo.workspace.write('b.txt', 'changed\n');
    rememberBaseTree(repo.workspace);
    emptyObjectStore(repo);
    await expect(treeFiles(repo.fs, repo.gitdir, repo.treeSha)).rejects.toThrow();
    rememberTreeFiles(repo.fs, 'f'.repeat(40), []);
    expect(await treeFiles(repo.fs, repo.gitdir, 'f'.repeat(40))).toEqual([]);
  });

  it('a written tree is listed exactly as the store would list it, and callers get copies', async () => {
    const repo = await createMemoryRepo(FILES);
    const index = await VirtualIndex.fromCommit(repo.fs, repo.gitdir, repo.commitSha);
    const oid = await git.writeBlob({ fs: repo.fs, gitdir: repo.gitdir, blob: new TextEncoder().encode('new\n') });
    index.set({ path: 'a/b/d.txt', mode: '100644', oid });
    index.remove('b.txt');
    const treeSha = await writeTreeFromFiles(repo.fs, repo.gitdir, index.files(), { changedPaths: ['a/b/d.txt', 'b.txt'] });
    const listed = await treeFiles(repo.fs, repo.gitdir, treeSha);
    expect(listed).toEqual(await readTreeFiles(repo.fs, repo.gitdir, treeSha));
    listed[0].oid = '0'.repeat(40);
    expect((await treeFiles(repo.fs, repo.gitdir, treeSha))[0].oid).not.toBe('0'.repeat(40));
  });
});
