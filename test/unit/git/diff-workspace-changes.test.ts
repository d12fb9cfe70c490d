import { describe, expect, it } from 'vitest';
import { diffWorkspaceChanges, diffWorkspaceToBase } from '../../../src/core/git/git-diff.js';
import { createMemoryRepo } from '../../helpers/memory-repo.js';
import { defaultPathRules } from '../../../src/core/paths/path-rules.js';

describe('diffWorkspaceChanges', () => {
  it('gives byte for byte the diff of the whole tree walk, reading only changed paths', async () => {
    const { workspace } = await createMemoryRepo({
      'a/one.txt': 'one\ntwo\nthree\n',
      'a/two.txt': 'keep\n',
      'b/run.sh': { content: 'echo hi\n', mode: '100644' },
      'c/link': { symlink: '../a/one.txt' },
      'd/gone.txt': 'bye\n',
      'e/no-newline.txt': 'last',
    });
    await workspace.write('a/one.txt', 'one\n2\nthree\n');
    await workspace.write('b/run.sh', 'echo hi\n', '100755');
    await workspace.write('c/link', 'now a file\n', '100644');
    await workspace.delete('d/gone.txt');
    await workspace.write('e/no-newline.txt', 'last line');
    await workspace.write('f/new.bin', new Uint8Array([0, 1, 2, 3]));
    const fast = await diffWorkspaceChanges(workspace, { rules: defaultPathRules() });
    const full = await diffWorkspaceToBase(workspace, { rules: defaultPathRules() });
    expect(new TextDecoder().decode(fast.patch)).toBe(new TextDecoder().decode(full.patch));
    expect(fast.summary).toEqual(full.summary);
    expect(fast.numstat).toBe(full.numstat);
    expect(fast.summary.filesChanged).toBe(6);
  });
});
