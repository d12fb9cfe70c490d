import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { commitStaged } from '../../../src/core/git/commit-staged.js';
import { createAgentBranch } from '../../../src/core/git/create-agent-branch.js';
import { diffBaseToHead, diffUnstaged } from '../../../src/core/git/git-diff.js';
import { stagePaths } from '../../../src/core/git/stage-paths.js';
import { VirtualIndex } from '../../../src/core/git/virtual-index.js';
import { writePolicyFor } from '../../helpers/path-rules.js';
import { copyOut, materialize, nativeGit, removeDir } from '../../helpers/git-materialize.js';
import { createMemoryRepo } from '../../helpers/memory-repo.js';
import { defaultPathRules } from '../../../src/core/paths/path-rules.js';

const policy = writePolicyFor({ allowGenerated: true, allowLockfiles: true });
const identity = { name: 'draftsman[bot]', email: 'draftsman@example.invalid' };
const createdAt = '2026-07-03T10:15:00.000Z';
const verification = {
  status: 'PASSED' as const,
  checks: [{ name: 'parse changed files', status: 'PASSED' as const }],
  notRun: [{ name: 'build', why: 'build commands run in CI' }],
};
const message = {
  type: 'fix' as const,
  scope: 'core',
  summary: 'update the numbers',
  task: 'Update numbers',
  intent: 'Change a few lines.',
  risk: ['small text change'],
  runId: 'abcdefghijkl',
  taskId: 'https://github.com/o/r/issues/7',
};
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(removeDir));
const numbered = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `  ${i + from}\n`).join('');

async function scenario() {
  const repo = await createMemoryRepo({
    'nums.txt': numbered(40),
    'with space.txt': '  a\n  b\n',
    'ünï.txt': '  x',
    'gone.txt': '  bye\n',
    'run.sh': '  #!/bin/sh\n',
    'bin.dat': new Uint8Array([0, 1, 2, 3]),
    link: { symlink: 'nums.txt' },
    'quote"d.txt': '  q\n',
  });
  const ws = repo.workspace;
  const index = await VirtualIndex.fromCommit(repo.fs, repo.gitdir, repo.commitSha);
  await createAgentBranch({
    workspace: ws,
    index,
    branch: 'agent/local/rabcdefghijkl',
    runId: 'abcdefghijkl',
    ingestionBaseSha: repo.commitSha,
    policy: writePolicyFor(),
  });
  await ws.write('nums.txt', numbered(40).replace('  5\n', '  five\n').replace('  30\n', '').concat('  end'));
  await ws.write('with space.txt', '  a\n  c\n');
  await ws.write('ünï.txt', '  y\n');
  await ws.delete('gone.txt');
  await ws.write('run.sh', '  #!/bin/sh\n', '100755');
  await ws.write('bin.dat', new Uint8Array([0, 9, 9, 3, 4]));
  await ws.write('link', 'with space.txt', '120000');
  await ws.write('new dir/new.txt', '  new\n');
  await ws.write('empty.txt', '');
  await ws.write('quote"d.txt', '  q2\n');
  return { repo, ws, index };
}
const allPaths = ['nums.txt', 'with space.txt', 'ünï.txt', 'gone.txt', 'run.sh', 'bin.dat', 'link', 'new dir/new.txt', 'empty.txt', 'quote"d.txt'];

describe('patches and commits against native git', () => {
  it('our unstaged patch is byte-identical to native git diff --full-index --no-renames', async () => {
    const { ws, index } = await scenario();
    const ours = await diffUnstaged(ws, index, { rules: defaultPathRules() });
    const dir = await materialize(ws, index);
    dirs.push(dir);
    const native = nativeGit(dir, ['diff', '--full-index', '--no-renames', '--no-ext-diff']);
    expect(Buffer.from(ours.patch).toString('latin1')).toBe(native.toString('latin1'));
    const numstat = nativeGit(dir, ['diff', '--numstat', '--no-renames']);
    expect(ours.numstat).toBe(numstat.toString('utf8'));
  });

  it('the committed patch applies on the base with git apply and yields our tree; the commit equals git commit-tree', async () => {
    const { repo, ws, index } = await scenario();
    await stagePaths({ workspace: ws, index, paths: allPaths, policy });
    const result = await commitStaged({ workspace: ws, index, message, verification, policy, identity, createdAt });
    expect(result.parentSha).toBe(repo.commitSha);
    const diff = await diffBaseToHead(ws, { rules: defaultPathRules() });
    expect(diff.summary.filesChanged).toBe(10);

    const dir = mkdtempSync(join(tmpdir(), 'draftsman-apply-'));
    dirs.push(dir);
    await copyOut(repo.fs, repo.gitdir, join(dir, '.git'));
    writeFileSync(join(dir, '.git', 'config'), '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tsymlinks = true\n');
    nativeGit(dir, ['read-tree', '--reset', '-u', repo.commitSha]);
    writeFileSync(join(dir, 'change.patch'), diff.patch);
    nativeGit(dir, ['apply', '--check', '--index', 'change.patch']);
    nativeGit(dir, ['apply', '--index', 'change.patch']);
    expect(nativeGit(dir, ['write-tree']).toString().trim()).toBe(result.treeSha);

    writeFileSync(join(dir, 'msg.txt'), result.message);
    const env = {
      GIT_AUTHOR_NAME: identity.name,
      GIT_AUTHOR_EMAIL: identity.email,
      GIT_AUTHOR_DATE: '@1783073700 +0000',
      GIT_COMMITTER_NAME: identity.name,
      GIT_COMMITTER_EMAIL: identity.email,
      GIT_COMMITTER_DATE: '@1783073700 +0000',
    };
    const native = nativeGit(dir, ['commit-tree', result.treeSha, '-p', repo.commitSha, '-F', 'msg.txt'], { env }).toString().trim();
    expect(result.commitSha).toBe(native);
    expect(result.message).toContain('Verification:\n- parse changed files: passed\n- not run: build: build commands run in CI\n');
    expect(result.message.endsWith('Generated-by: draftsman\nRun-id: abcdefghijkl\nTask-id: https://github.com/o/r/issues/7\n')).toBe(true);
  });

  it('gives the same commit SHA on two runs with the same input and createdAt, and another with another createdAt', async () => {
    const shas: string[] = [];
    for (const at of [createdAt, createdAt, '2026-07-03T10:16:00.000Z']) {
      const { ws, index } = await scenario();
      await stagePaths({ workspace: ws, index, paths: allPaths, policy });
      shas.push((await commitStaged({ workspace: ws, index, message, verification, policy, identity, createdAt: at })).commitSha);
    }
    expect(shas[0]).toBe(shas[1]);
    expect(shas[2]).not.toBe(shas[0]);
  });
});
