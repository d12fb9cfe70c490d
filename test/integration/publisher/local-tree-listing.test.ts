import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listTree } from '../../../src/app/local/local-publisher.js';
import { nodeFs } from '../../../src/app/local/node-fs.js';
import { readTreeFiles } from '../../../src/core/workspace/workspace.js';
import { makeBareRepo } from '../../fixtures/make-repo.js';

const root = mkdtempSync(join(tmpdir(), 'local-tree-listing-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('listTree (the local publisher reads the base tree with one git ls-tree)', () => {
  it('lists what an object-by-object walk lists: modes, symlinks, gitlinks, nested, spaces, tabs and non-ASCII names, in the same order', async () => {
    const { gitdir, commit } = makeBareRepo(join(root, 'r.git'), {
      'b.txt': 'b\n',
      'a/z.txt': 'z\n',
      'a-b.txt': 'dash\n',
      'a/deep/er/c.txt': 'c\n',
      'run.sh': { content: '#!/bin/sh\n', mode: '100755' },
      link: { symlink: 'a/z.txt' },
      'vendor/lib': { gitlink: 'f'.repeat(40) },
      'dir with space/t\tab.txt': 'tab\n',
      'ünï/çødé.txt': 'x\n',
    });
    const tree = (await import('isomorphic-git')).default.readCommit({ fs: nodeFs, gitdir, oid: commit }).then((c) => c.commit.tree);
    const walked = await readTreeFiles(nodeFs, gitdir, await tree);
    expect(walked.length).toBe(9);
    expect(await listTree(gitdir, await tree)).toEqual(walked);
  });
});
