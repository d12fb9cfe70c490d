import { describe, expect, it } from 'vitest';
import { WorkspaceError, PathError } from '../../../src/core/errors.js';
import { ObjectWorkspace } from '../../../src/core/workspace/workspace.js';
import { createMemoryRepo } from '../../helpers/memory-repo.js';

describe('ObjectWorkspace', () => {
  const files = {
    'src/a.ts': 'export const a = 1;\n',
    'src/b.ts': 'export const b = 2;\n',
    'docs/readme.md': '# docs\n',
    link: { symlink: 'src' },
  };

  it('starts clean: the view is the base tree, read lazily from objects', async () => {
    const { workspace } = await createMemoryRepo(files);
    expect(workspace.changes()).toEqual([]);
    expect(workspace.paths()).toEqual(['docs/readme.md', 'link', 'src/a.ts', 'src/b.ts']);
    expect(await workspace.readText('src/a.ts')).toBe('export const a = 1;\n');
    expect(workspace.entry('link')?.mode).toBe('120000');
  });

  it('lists paths sorted whatever order its files come in', async () => {
    const { workspace } = await createMemoryRepo(files);
    const entries = ['src/b.ts', 'link', 'src/a.ts', 'docs/readme.md'].map((path) => ({
      path,
      mode: workspace.entry(path)!.mode,
      oid: workspace.entry(path)!.oid!,
    }));
    const shuffled = new ObjectWorkspace(workspace.fs, workspace.gitdir, workspace.baseCommitSha, workspace.baseTreeSha, entries);
    expect(shuffled.paths()).toEqual(['docs/readme.md', 'link', 'src/a.ts', 'src/b.ts']);
  });

  it('records edits, additions and deletions in the overlay and nowhere else', async () => {
    const { workspace } = await createMemoryRepo(files);
    await workspace.write('src/a.ts', 'export const a = 10;\n');
    await workspace.write('src/c.ts', 'export const c = 3;\n');
    await workspace.delete('docs/readme.md');
    expect(workspace.changes().map((c) => [c.path, c.kind])).toEqual([
      ['docs/readme.md', 'DELETED'],
      ['src/a.ts', 'MODIFIED'],
      ['src/c.ts', 'ADDED'],
    ]);
    expect(await workspace.readText('src/a.ts')).toBe('export const a = 10;\n');
    expect(new TextDecoder().decode(await workspace.readBase('src/a.ts'))).toBe('export const a = 1;\n');
    expect(workspace.paths()).toEqual(['link', 'src/a.ts', 'src/b.ts', 'src/c.ts']);
  });

  it('writing the base content back drops the change', async () => {
    const { workspace } = await createMemoryRepo(files);
    await workspace.write('src/a.ts', 'changed\n');
    await workspace.write('src/a.ts', 'export const a = 1;\n');
    expect(workspace.changes()).toEqual([]);
  });

  it.each([
    ['../escape.txt', 'PATH_DOT_DOT'],
    ['/etc/passwd', 'PATH_ABSOLUTE'],
    ['.git/config', 'PATH_DOT_GIT'],
    ['src/.GIT/hooks/x', 'PATH_DOT_GIT'],
    ['src\\a.ts', 'PATH_BACKSLASH'],
    ['a\u0000b', 'PATH_NUL'],
  ])('refuses to write %j (%s)', async (path, reason) => {
    const { workspace } = await createMemoryRepo(files);
    await expect(workspace.write(path, 'x')).rejects.toMatchObject({ reason });
    await expect(workspace.write(path, 'x')).rejects.toBeInstanceOf(PathError);
    expect(workspace.changes()).toEqual([]);
  });

  it('refuses writes through a symlink, onto a directory and under a file', async () => {
    const { workspace } = await createMemoryRepo(files);
    await expect(workspace.write('link/evil.ts', 'x')).rejects.toMatchObject({ reason: 'WRITE_THROUGH_SYMLINK' });
    await expect(workspace.write('src', 'x')).rejects.toMatchObject({ reason: 'IS_A_DIRECTORY' });
    await expect(workspace.write('src/a.ts/inner', 'x')).rejects.toMatchObject({ reason: 'IS_A_DIRECTORY' });
    await expect(workspace.delete('missing.txt')).rejects.toBeInstanceOf(WorkspaceError);
    expect(workspace.changes()).toEqual([]);
  });

  it('reset drops every overlay edit', async () => {
    const { workspace } = await createMemoryRepo(files);
    await workspace.write('src/a.ts', 'x');
    await workspace.delete('src/b.ts');
    workspace.reset();
    expect(workspace.changes()).toEqual([]);
    expect(await workspace.readText('src/b.ts')).toBe('export const b = 2;\n');
  });
});
