import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintInstallationToken } from '../../../src/app/tokens/mint-installation-token.js';
import { scopesFor } from '../../../src/app/tokens/token-scopes.js';
import { startGitHubStandin, type GitHubStandin } from '../../helpers/github-standin/index.js';
import { api, fixedClock, git, refereeRepo, refereeTree, testAppKey } from './standin-fixture.js';

const clock = fixedClock();
const keys = testAppKey();
let standin: GitHubStandin;
let write: string;
let read: string;
const R = '/repos/acme/widgets';

const seedFiles = {
  'README.md': '# widgets\n',
  'src/a.ts': 'export const a = 1;\n',
  'src/lib/b.ts': 'export const b = 2;\n',
  'src/lib/c.ts': 'export const c = 3;\n',
  'bin/run.sh': { content: '#!/bin/sh\necho hi\n', mode: '100755' as const },
  'docs/only.md': 'alone\n',
};

beforeAll(async () => {
  standin = await startGitHubStandin({
    appId: 4242,
    privateKeyPem: keys.privateKeyPem,
    clock,
    repos: [{ owner: 'acme', name: 'widgets', id: 11, files: seedFiles }],
  });
  const mint = (role: 'read' | 'write') =>
    mintInstallationToken({
      apiUrl: standin.url,
      appId: 4242,
      privateKey: keys.privateKeyPem,
      installationId: 1,
      repositoryId: 11,
      permissions: scopesFor(role),
      clock,
    });
  write = (await mint('write')).token;
  read = (await mint('read')).token;
});
afterAll(async () => {
  await standin.stop();
});

async function blob(content: string | Buffer): Promise<string> {
  const body = typeof content === 'string' ? { content, encoding: 'utf-8' } : { content: content.toString('base64'), encoding: 'base64' };
  const r = await api(standin.url, 'POST', `${R}/git/blobs`, write, body);
  expect(r.status).toBe(201);
  return r.body!.sha as string;
}

describe('GitHub stand-in: Git Data SHAs equal native git', () => {
  it('seeds a commit whose tree is the tree native git builds from the same files', async () => {
    const head = await standin.resolve('acme/widgets', 'main');
    const r = await api(standin.url, 'GET', `${R}/git/commits/${head}`, read);
    expect(r.body!.tree.sha).toBe(refereeTree(seedFiles));
  });

  it.each([
    ['utf-8 text', 'hello\nworld\n'],
    ['empty', ''],
    ['binary via base64', Buffer.from([0, 1, 2, 255, 254, 10, 13, 0])],
    ['non-ASCII text', 'naïve café ✓\n'],
  ])('blob SHA of %s equals git hash-object', async (_name, content) => {
    const ref = refereeRepo();
    try {
      expect(await blob(content)).toBe(git(ref.dir, ['hash-object', '--stdin'], Buffer.from(content)));
      const back = await api(standin.url, 'GET', `${R}/git/blobs/${await blob(content)}`, read);
      expect(Buffer.from(back.body!.content as string, 'base64').equals(Buffer.from(content))).toBe(true);
    } finally {
      ref.cleanup();
    }
  });

  it('builds a tree from nested paths, modes, symlinks and a submodule exactly as git does (git tree order)', async () => {
    const files = {
      'dir-x': { content: 'dash sorts before slash\n' },
      'dir/inner.txt': { content: 'inner\n' },
      'dir/deeper/x.sh': { content: '#!/bin/sh\n', mode: '100755' as const },
      dir0: { content: 'zero sorts after slash\n' },
      'link-to-dir': { content: 'dir/inner.txt', mode: '120000' as const },
      'vendor/mod': { submodule: 'a'.repeat(40) },
    };
    const tree = [
      { path: 'dir-x', mode: '100644', type: 'blob', content: 'dash sorts before slash\n' },
      { path: 'dir/inner.txt', mode: '100644', type: 'blob', sha: await blob('inner\n') },
      { path: 'dir/deeper/x.sh', mode: '100755', type: 'blob', content: '#!/bin/sh\n' },
      { path: 'dir0', mode: '100644', type: 'blob', content: 'zero sorts after slash\n' },
      { path: 'link-to-dir', mode: '120000', type: 'blob', content: 'dir/inner.txt' },
      { path: 'vendor/mod', mode: '160000', type: 'commit', sha: 'a'.repeat(40) },
    ];
    const r = await api(standin.url, 'POST', `${R}/git/trees`, write, { tree });
    expect(r.status).toBe(201);
    expect(r.body!.sha).toBe(refereeTree(files));
    expect((r.body!.tree as { path: string }[]).map((e) => e.path)).toEqual(['dir-x', 'dir', 'dir0', 'link-to-dir', 'vendor']);
  });

  it('applies changes on a base_tree: modify, add nested, chmod, delete (an emptied directory disappears)', async () => {
    const head = (await standin.resolve('acme/widgets', 'main'))!;
    const baseTree = (await api(standin.url, 'GET', `${R}/git/commits/${head}`, read)).body!.tree.sha as string;
    const r = await api(standin.url, 'POST', `${R}/git/trees`, write, {
      base_tree: baseTree,
      tree: [
        { path: 'src/lib/b.ts', mode: '100644', type: 'blob', content: 'export const b = 20;\n' },
        { path: 'src/lib/new/deep.ts', mode: '100644', type: 'blob', content: 'export {};\n' },
        { path: 'src/lib/c.ts', mode: '100644', type: 'blob', sha: null },
        { path: 'docs/only.md', mode: '100644', type: 'blob', sha: null },
        { path: 'README.md', mode: '100755', type: 'blob', content: '# widgets\n' },
      ],
    });
    expect(r.status).toBe(201);
    expect(r.body!.sha).toBe(
      refereeTree({
        'README.md': { content: '# widgets\n', mode: '100755' },
        'src/a.ts': { content: 'export const a = 1;\n' },
        'src/lib/b.ts': { content: 'export const b = 20;\n' },
        'src/lib/new/deep.ts': { content: 'export {};\n' },
        'bin/run.sh': { content: '#!/bin/sh\necho hi\n', mode: '100755' },
      }),
    );
  });

  it('refuses to delete a path that does not exist and malformed paths (422)', async () => {
    const head = (await standin.resolve('acme/widgets', 'main'))!;
    const baseTree = (await api(standin.url, 'GET', `${R}/git/commits/${head}`, read)).body!.tree.sha as string;
    for (const entry of [
      { path: 'nope/missing.txt', mode: '100644', type: 'blob', sha: null },
      { path: '../escape', mode: '100644', type: 'blob', content: 'x' },
      { path: '.git/config', mode: '100644', type: 'blob', content: 'x' },
    ]) {
      const r = await api(standin.url, 'POST', `${R}/git/trees`, write, { base_tree: baseTree, tree: [entry] });
      expect(r.status, entry.path).toBe(422);
    }
  });

  it('commit SHA equals git commit-tree for the same author, committer and dates; no author means the App signature', async () => {
    const head = (await standin.resolve('acme/widgets', 'main'))!;
    const tree = (await api(standin.url, 'GET', `${R}/git/commits/${head}`, read)).body!.tree.sha as string;
    const r = await api(standin.url, 'POST', `${R}/git/commits`, write, {
      message: 'Change things\n\nWith a body.\n',
      tree,
      parents: [head],
      author: { name: 'Ada', email: 'ada@example.com', date: '2025-01-02T03:04:05+02:00' },
      committer: { name: 'Bob', email: 'bob@example.com', date: '2025-01-02T04:00:00Z' },
    });
    expect(r.status).toBe(201);
    const gitdir = standin.repo('acme/widgets').git.gitdir;
    const expected = git(gitdir, ['commit-tree', tree, '-p', head], 'Change things\n\nWith a body.\n', {
      GIT_DIR: gitdir,
      GIT_AUTHOR_NAME: 'Ada',
      GIT_AUTHOR_EMAIL: 'ada@example.com',
      GIT_AUTHOR_DATE: `${Date.parse('2025-01-02T03:04:05+02:00') / 1000} +0200`,
      GIT_COMMITTER_NAME: 'Bob',
      GIT_COMMITTER_EMAIL: 'bob@example.com',
      GIT_COMMITTER_DATE: `${Date.parse('2025-01-02T04:00:00Z') / 1000} +0000`,
    });
    expect(r.body!.sha).toBe(expected);

    const plain = await api(standin.url, 'POST', `${R}/git/commits`, write, { message: 'By the App', tree, parents: [head] });
    expect(plain.body!.author.name).toBe('draftsman[bot]');
    expect(plain.body!.committer).toMatchObject({ name: 'GitHub', email: 'noreply@github.com', date: '2025-06-01T12:00:00Z' });
    expect(standin.repo('acme/widgets').createdCommits.map((c) => [c.customAuthor, c.customCommitter])).toEqual([
      [true, true],
      [false, false],
    ]);
    expect(git(gitdir, ['cat-file', '-t', plain.body!.sha as string], undefined, { GIT_DIR: gitdir })).toBe('commit');
  });

  it('refs made through the API are seen by a native clone; non-fast-forward updates need force', async () => {
    const head = (await standin.resolve('acme/widgets', 'main'))!;
    const tree = (await api(standin.url, 'GET', `${R}/git/commits/${head}`, read)).body!.tree.sha as string;
    const c1 = (await api(standin.url, 'POST', `${R}/git/commits`, write, { message: 'one', tree, parents: [head] })).body!.sha as string;
    const c2 = (await api(standin.url, 'POST', `${R}/git/commits`, write, { message: 'two', tree, parents: [c1] })).body!.sha as string;
    const side = (await api(standin.url, 'POST', `${R}/git/commits`, write, { message: 'side', tree, parents: [head] })).body!.sha as string;

    expect((await api(standin.url, 'POST', `${R}/git/refs`, write, { ref: 'refs/heads/agent/i1/rabc', sha: c1 })).status).toBe(201);
    expect((await api(standin.url, 'POST', `${R}/git/refs`, write, { ref: 'refs/heads/agent/i1/rabc', sha: c1 })).status).toBe(422);
    expect((await api(standin.url, 'GET', `${R}/git/ref/heads%2Fagent%2Fi1%2Frabc`, read)).body!.object.sha).toBe(c1);
    expect((await api(standin.url, 'PATCH', `${R}/git/refs/heads/agent/i1/rabc`, write, { sha: c2 })).status).toBe(200);
    const nonFf = await api(standin.url, 'PATCH', `${R}/git/refs/heads/agent/i1/rabc`, write, { sha: side });
    expect(nonFf).toMatchObject({ status: 422, body: { message: 'Update is not a fast forward' } });
    expect((await api(standin.url, 'PATCH', `${R}/git/refs/heads/agent/i1/rabc`, write, { sha: side, force: true })).status).toBe(200);
    expect((await api(standin.url, 'GET', `${R}/git/ref/heads/agent/missing`, read)).status).toBe(404);

    const work = mkdtempSync(join(tmpdir(), 'clone-'));
    try {
      git(work, ['clone', '--quiet', '--branch', 'agent/i1/rabc', standin.repo('acme/widgets').git.gitdir, 'c']);
      expect(git(join(work, 'c'), ['rev-parse', 'HEAD'])).toBe(side);
      expect(git(join(work, 'c'), ['fsck', '--strict', '--no-dangling'])).toBe('');
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});

describe('GitHub stand-in over an existing bare repository', () => {
  it('serves a bare repository in place: API reads see native commits and API refs land in that directory', async () => {
    const work = mkdtempSync(join(tmpdir(), 'bare-seed-'));
    const bare = join(work, 'repo.git');
    const env = { GIT_AUTHOR_NAME: 'N', GIT_AUTHOR_EMAIL: 'n@example.com', GIT_COMMITTER_NAME: 'N', GIT_COMMITTER_EMAIL: 'n@example.com' };
    git(work, ['init', '--quiet', '--initial-branch=trunk', 'src']);
    git(work, ['-C', 'src', 'commit', '--quiet', '--allow-empty', '-m', 'root'], undefined, env);
    git(work, ['clone', '--quiet', '--bare', 'src', bare]);
    const other = await startGitHubStandin({
      appId: 9,
      privateKeyPem: keys.privateKeyPem,
      clock,
      repos: [{ owner: 'o', name: 'r', id: 5, gitdir: bare, defaultBranch: 'trunk' }],
    });
    try {
      const token = (
        await mintInstallationToken({
          apiUrl: other.url,
          appId: 9,
          privateKey: keys.privateKeyPem,
          installationId: 1,
          repositoryId: 5,
          permissions: scopesFor('write'),
          clock,
        })
      ).token;
      const head = git(bare, ['rev-parse', 'trunk']);
      const branch = await api(other.url, 'GET', '/repos/o/r/branches/trunk', token);
      expect(branch.body!.commit.sha).toBe(head);
      expect((await api(other.url, 'POST', '/repos/o/r/git/refs', token, { ref: 'refs/heads/agent/local/rx', sha: head })).status).toBe(201);
      expect(git(bare, ['rev-parse', 'refs/heads/agent/local/rx'])).toBe(head);
    } finally {
      await other.stop();
      rmSync(work, { recursive: true, force: true });
    }
  });
});
