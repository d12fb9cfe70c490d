import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalRepoSource } from '../../../src/app/git/local-repo-source.js';
import { checkTreeBounds } from '../../../src/app/git/tree-bounds.js';
import { IngestionError } from '../../../src/core/errors.js';
import { git } from '../../fixtures/make-repo.js';
import { makeDeepChainRepo, makeTreeBombRepo } from '../../reliability/hostile-fixtures.js';
import { ingest, policy, removeRoot, tempRoot } from './ingestion-harness.js';

/**
 * A local checkout is the user's own directory, but its `.git/config` may come from anywhere:
 * ingesting it must run none of the commands that config names, and must not let a tree bomb
 * at HEAD make `git status` list billions of paths.
 */
let root: string;

function checkout(name: string): string {
  const dir = join(root, name);
  mkdirSync(dir);
  git(['init', '-q', '-b', 'main'], { cwd: dir });
  writeFileSync(join(dir, 'README.md'), '# checkout\n');
  writeFileSync(join(dir, 'notes.txt'), 'notes\n');
  git(['add', '-A'], { cwd: dir });
  git(['commit', '-qm', 'initial'], { cwd: dir });
  return dir;
}

async function outcome(source: LocalRepoSource, options: Parameters<typeof ingest>[1] = {}): Promise<unknown> {
  const { run } = await ingest(source, options);
  return run.then(
    (result) => result,
    (e: unknown) => e,
  );
}

beforeAll(() => {
  root = tempRoot('local-git-safety');
});

afterAll(() => removeRoot(root));

describe("local git never runs the checkout's own configuration", () => {
  it('core.fsmonitor and a clean filter named in .git/config are not executed', async () => {
    const dir = checkout('hostile-config');
    const fsmonitorMarker = join(root, 'fsmonitor-ran');
    const filterMarker = join(root, 'filter-ran');
    writeFileSync(join(dir, '.gitattributes'), '*.txt filter=evil\n');
    git(['add', '.gitattributes'], { cwd: dir });
    git(['commit', '-qm', 'attributes'], { cwd: dir });
    git(['config', 'core.fsmonitor', `touch '${fsmonitorMarker}'; false`], { cwd: dir });
    git(['config', 'filter.evil.clean', `touch '${filterMarker}'; cat`], { cwd: dir });
    git(['config', 'core.hooksPath', join(root, 'hooks')], { cwd: dir });
    // Same content, new mtime: status must re-read the file, which is when a clean filter runs.
    utimesSync(join(dir, 'notes.txt'), new Date(Date.UTC(2030, 0, 1)), new Date(Date.UTC(2030, 0, 1)));
    writeFileSync(join(dir, 'untracked.md'), 'new\n');

    const result = await outcome(new LocalRepoSource(dir));

    expect(result).not.toBeInstanceOf(Error);
    expect((result as { warnings: { code: string }[] }).warnings.map((w) => w.code)).toContain('LOCAL_CHANGES_IGNORED');
    expect(existsSync(fsmonitorMarker)).toBe(false);
    expect(existsSync(filterMarker)).toBe(false);
  });
});

describe('a tree bomb at HEAD is measured, not listed', () => {
  it('refuses with FILE_COUNT_EXCEEDED before `git status` expands it, even when another ref is ingested', async () => {
    const dir = checkout('bomb-at-head');
    const bomb = join(root, 'bomb.git');
    makeTreeBombRepo(bomb, 10, 4);
    git(['fetch', '-q', bomb, 'main:refs/heads/bomb'], { cwd: dir });
    // HEAD at the bomb with the index of the small commit: status would report 10^5 deletions.
    git(['update-ref', '--no-deref', 'HEAD', 'refs/heads/bomb'], { cwd: dir });

    const error = await outcome(new LocalRepoSource(dir), { ref: 'main', policy: policy({ maxFileCount: 1_000 }) });

    expect(error).toBeInstanceOf(IngestionError);
    expect((error as IngestionError).reason).toBe('FILE_COUNT_EXCEEDED');
    expect((error as IngestionError).data).toMatchObject({ treeish: 'HEAD', limit: 1_000, complete: false });
  });

  it('measures 10^7 paths from a few objects, and stops deep chains at the depth limit', async () => {
    const bomb = join(root, 'big-bomb.git');
    makeTreeBombRepo(bomb, 10, 6);
    const started = performance.now();
    await expect(checkTreeBounds(bomb, 'main', { maxFileCount: 100_000, maxPathDepth: 32 })).rejects.toMatchObject({ reason: 'FILE_COUNT_EXCEEDED' });
    await expect(checkTreeBounds(bomb, 'main', { maxFileCount: 10 ** 8, maxPathDepth: 32 })).resolves.toBeUndefined();
    expect(performance.now() - started).toBeLessThan(5_000);
    const deep = join(root, 'deep.git');
    makeDeepChainRepo(deep, 50);
    await expect(checkTreeBounds(deep, 'main', { maxFileCount: 1_000, maxPathDepth: 32 })).rejects.toMatchObject({
      reason: 'HOSTILE_TREE_ENTRY',
      data: { kind: 'TOO_DEEP' },
    });
  });
});
