import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeDeepChainRepo, makeManyFilesRepo } from '../../../bench/hostile.bench.js';
import { git } from '../../fixtures/make-repo.js';

const root = mkdtempSync(join(tmpdir(), 'bench-fixtures-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('hostile benchmark fixtures', () => {
  it('the deep chain, written as raw loose objects, is a valid repository exactly that deep', () => {
    const gitdir = join(root, 'deep.git');
    const commit = makeDeepChainRepo(gitdir, 60);
    expect(git(['--git-dir', gitdir, 'rev-parse', 'refs/heads/main'])).toBe(commit);
    git(['--git-dir', gitdir, 'fsck', '--strict', '--no-dangling']);
    const paths = git(['--git-dir', gitdir, 'ls-tree', '-r', '--name-only', 'main']).split('\n');
    expect(paths).toEqual(['README.md', `${'d/'.repeat(60)}leaf.txt`]);
    expect(git(['--git-dir', gitdir, 'cat-file', '-p', `main:${'d/'.repeat(60)}leaf.txt`])).toBe('deep');
  });

  it('the many-files repository has that many distinct files', () => {
    const gitdir = join(root, 'many.git');
    makeManyFilesRepo(gitdir, 2500);
    const paths = git(['--git-dir', gitdir, 'ls-tree', '-r', '--name-only', 'main']).split('\n');
    expect(paths).toHaveLength(2500);
    expect(new Set(paths).size).toBe(2500);
    expect(paths).toContain('d2/f2499.txt');
    const blobs = new Set(
      git(['--git-dir', gitdir, 'ls-tree', '-r', 'main'])
        .split('\n')
        .map((l) => l.split(/\s+/)[2]),
    );
    expect(blobs.size).toBe(2500);
  });
});
