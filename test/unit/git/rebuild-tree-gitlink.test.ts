import { describe, expect, it } from 'vitest';
import { rebuildTree } from '../../../src/core/git/rebuild-tree.js';
import { blobSha, computeTreeSha } from '../../../src/core/objects/tree-hash.js';

/** The publisher's tree rebuild keeps a gitlink of the base as it is and refuses to change it. */
const GITLINK = { path: 'libs/shared', mode: '160000', oid: '0123456789abcdef0123456789abcdef01234567' };
const readme = new TextEncoder().encode('# x\n');
const base = [GITLINK, { path: 'README.md', mode: '100644', oid: blobSha(new TextEncoder().encode('# old\n')) }];
const read = async () => readme;

describe('rebuildTree and gitlinks', () => {
  it('keeps the gitlink entry byte for byte when other files change', async () => {
    const files = [{ path: 'README.md', mode: '100644' as const, blobSha: blobSha(readme) }];
    const expected = computeTreeSha([GITLINK, { path: 'README.md', mode: '100644', oid: blobSha(readme) }]);
    const rebuilt = await rebuildTree(base, { files, headTreeSha: expected }, read);
    expect(rebuilt.files).toContainEqual(GITLINK);
  });

  it.each([
    ['replaced by a file', { path: 'libs/shared', mode: '100644' as const, blobSha: blobSha(readme) }],
    ['deleted', { path: 'libs/shared', deleted: true as const }],
  ])('refuses a gitlink %s', async (_name, file) => {
    await expect(rebuildTree(base, { files: [file], headTreeSha: 'f'.repeat(40) }, read)).rejects.toMatchObject({
      reason: 'SUBMODULE_CHANGE_NOT_PERMITTED',
      data: { path: 'libs/shared' },
    });
  });
});
