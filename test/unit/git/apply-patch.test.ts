import { describe, expect, it } from 'vitest';
import { applyPatch } from '../../../src/core/git/apply-patch.js';
import { diffWorkspaceToBase } from '../../../src/core/git/git-diff.js';
import { openWorkspace } from '../../../src/core/workspace/workspace.js';
import { createMemoryRepo } from '../../helpers/memory-repo.js';
import git from 'isomorphic-git';
import { defaultPathRules } from '../../../src/core/paths/path-rules.js';

const files = {
  'a.txt': Array.from({ length: 30 }, (_, i) => `line ${i}\n`).join(''),
  'with space/ünï "q".txt': 'x\ny',
  'gone.txt': 'bye\n',
  'run.sh': 'echo\n',
  link: { symlink: 'a.txt' },
};

describe('applyPatch', () => {
  it('replays our patch onto a fresh workspace and reproduces the exact view', async () => {
    const repo = await createMemoryRepo(files);
    const ws = repo.workspace;
    await ws.write('a.txt', files['a.txt'].replace('line 3\n', 'LINE THREE\n').replace('line 25\n', '').concat('tail'));
    await ws.write('with space/ünï "q".txt', 'x\ny\n');
    await ws.delete('gone.txt');
    await ws.write('run.sh', 'echo\n', '100755');
    await ws.write('link', 'run.sh', '120000');
    await ws.write('new/bin.dat', new Uint8Array([0, 1, 2]));
    await git.writeBlob({ fs: repo.fs, gitdir: repo.gitdir, blob: new Uint8Array([0, 1, 2]) });
    await ws.write('empty.txt', '');
    const { patch } = await diffWorkspaceToBase(ws, { rules: defaultPathRules() });

    // A fresh view of the same base; the binary post-image comes from the shared object store.
    const replay = await openWorkspace({ fs: repo.fs, gitdir: repo.gitdir, commitSha: repo.commitSha });
    await applyPatch(replay, patch);
    for (const p of ws.paths()) {
      expect(replay.entry(p)?.mode).toBe(ws.entry(p)?.mode);
      expect(Buffer.from(await replay.read(p)).equals(Buffer.from(await ws.read(p)))).toBe(true);
    }
    expect(replay.paths()).toEqual(ws.paths());
  });

  it('refuses on a context mismatch and writes nothing', async () => {
    const repo = await createMemoryRepo(files);
    await repo.workspace.write('a.txt', files['a.txt'].replace('line 3\n', 'LINE THREE\n'));
    await repo.workspace.write('run.sh', 'echo hi\n');
    const { patch } = await diffWorkspaceToBase(repo.workspace, { rules: defaultPathRules() });
    const other = await createMemoryRepo(files);
    await other.workspace.write('a.txt', files['a.txt'].replace('line 4\n', 'changed by someone\n'));
    await expect(applyPatch(other.workspace, patch)).rejects.toMatchObject({ reason: 'PATCH_MISMATCH' });
    expect(other.workspace.changes().map((c) => c.path)).toEqual(['a.txt']);
    expect(await other.workspace.readText('run.sh')).toBe('echo\n');
  });

  it('refuses a patch that is not a git patch', async () => {
    const repo = await createMemoryRepo(files);
    await expect(applyPatch(repo.workspace, 'hello\n')).rejects.toMatchObject({ reason: 'PATCH_INVALID' });
  });
});
