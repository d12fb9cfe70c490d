import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InProcessTokenBroker } from '../../../src/app/tokens/in-process-token-broker.js';
import { startGitHubStandin, type GitHubStandin } from '../../helpers/github-standin/index.js';
import { fixedClock, testAppKey } from './standin-fixture.js';

const clock = fixedClock();
const keys = testAppKey();
let standin: GitHubStandin;
let readKit: Octokit;
let writeKit: Octokit;
const repo = { owner: 'acme', repo: 'widgets' };
const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

beforeAll(async () => {
  standin = await startGitHubStandin({
    appId: 7,
    privateKeyPem: keys.privateKeyPem,
    clock,
    users: ['maint', 'stranger'],
    repos: [
      {
        owner: 'acme',
        name: 'widgets',
        id: 11,
        files: { 'src/app.ts': 'export const v = 1;\n', 'notes/todo.md': 'todo\n' },
        collaborators: { maint: 'maintain', reviewer: 'write' },
        issues: [{ number: 5, title: 'Bump v', body: 'make v 2', user: 'maint', labels: ['agent:run'] }],
      },
    ],
  });
  const broker = (role: 'read' | 'write') =>
    new InProcessTokenBroker({ role, appId: 7, apiUrl: standin.url, clock, loadPrivateKey: async () => keys.privateKeyPem });
  readKit = new Octokit({ auth: (await broker('read').token({ installationId: 1, repositoryId: 11, role: 'read' })).token, baseUrl: standin.url, log: quiet });
  writeKit = new Octokit({
    auth: (await broker('write').token({ installationId: 1, repositoryId: 11, role: 'write' })).token,
    baseUrl: standin.url,
    log: quiet,
  });
});
afterAll(async () => {
  await standin.stop();
});

describe('Octokit against the stand-in: the publisher path', () => {
  it('reads the repository, a file, an issue and a sender permission', async () => {
    const { data: r } = await readKit.repos.get(repo);
    expect(r).toMatchObject({ id: 11, default_branch: 'main', private: true });
    expect(r.size).toBeGreaterThanOrEqual(0);
    const { data: file } = await readKit.repos.getContent({ ...repo, path: 'src/app.ts', ref: 'main' });
    expect(Buffer.from((file as { content: string }).content, 'base64').toString()).toBe('export const v = 1;\n');
    await expect(readKit.repos.getContent({ ...repo, path: 'missing.txt' })).rejects.toMatchObject({ status: 404 });
    expect((await readKit.issues.get({ ...repo, issue_number: 5 })).data).toMatchObject({ title: 'Bump v', body: 'make v 2', user: { login: 'maint' } });
    expect((await readKit.repos.getCollaboratorPermissionLevel({ ...repo, username: 'maint' })).data).toMatchObject({
      permission: 'write',
      role_name: 'maintain',
    });
    expect((await readKit.repos.getCollaboratorPermissionLevel({ ...repo, username: 'stranger' })).data.permission).toBe('none');
  });

  it('writes blobs, a tree on the base, a commit without author, a ref, and opens one draft PR', async () => {
    const base = await readKit.git.getRef({ ...repo, ref: 'heads/main' });
    const baseSha = base.data.object.sha;
    const baseTree = (await readKit.git.getCommit({ ...repo, commit_sha: baseSha })).data.tree.sha;
    const blob = await writeKit.git.createBlob({ ...repo, content: Buffer.from('export const v = 2;\n').toString('base64'), encoding: 'base64' });
    const tree = await writeKit.git.createTree({
      ...repo,
      base_tree: baseTree,
      tree: [{ path: 'src/app.ts', mode: '100644', type: 'blob', sha: blob.data.sha }],
    });
    const commit = await writeKit.git.createCommit({ ...repo, message: 'Bump v', tree: tree.data.sha, parents: [baseSha] });
    expect(commit.data.verification?.verified).toBe(true);
    await writeKit.git.createRef({ ...repo, ref: 'refs/heads/agent/i5/rabc', sha: commit.data.sha });
    expect((await standin.readFile('acme/widgets', 'agent/i5/rabc', 'src/app.ts'))?.toString()).toBe('export const v = 2;\n');
    expect((await standin.readFile('acme/widgets', 'agent/i5/rabc', 'notes/todo.md'))?.toString()).toBe('todo\n');

    const pr = await writeKit.pulls.create({ ...repo, head: 'agent/i5/rabc', base: 'main', title: 'Bump v', body: 'evidence', draft: true });
    expect(pr.data).toMatchObject({
      number: 6,
      draft: true,
      state: 'open',
      head: { ref: 'agent/i5/rabc', sha: commit.data.sha },
      base: { ref: 'main', sha: baseSha },
    });
    await expect(writeKit.pulls.create({ ...repo, head: 'agent/i5/rabc', base: 'main', title: 'again' })).rejects.toMatchObject({ status: 422 });
    // The read token holds pull_requests: read (a review's inline comments), never write.
    const found = await readKit.request('GET /repos/{owner}/{repo}/pulls', { ...repo, head: 'acme:agent/i5/rabc', state: 'open' });
    expect(found.data.map((p) => p.number)).toEqual([6]);
    await expect(readKit.pulls.update({ ...repo, pull_number: 6, body: 'rewritten' })).rejects.toMatchObject({ status: 403 });
    const listed = await writeKit.pulls.list({ ...repo, head: 'acme:agent/i5/rabc', state: 'open' });
    expect(listed.data.map((p) => p.number)).toEqual([6]);
    await writeKit.pulls.update({ ...repo, pull_number: 6, body: 'evidence, updated' });
    await writeKit.pulls.requestReviewers({ ...repo, pull_number: 6, reviewers: ['reviewer'] });
    await expect(writeKit.pulls.requestReviewers({ ...repo, pull_number: 6, reviewers: ['stranger'] })).rejects.toMatchObject({ status: 422 });
    expect((await writeKit.pulls.get({ ...repo, pull_number: 6 })).data).toMatchObject({
      body: 'evidence, updated',
      requested_reviewers: [{ login: 'reviewer' }],
    });
    expect(standin.repo('acme/widgets').createdCommits).toEqual([
      { sha: commit.data.sha, customAuthor: false, customCommitter: false, tokenId: expect.any(String) },
    ]);
  });

  it('keeps a progress comment edited in place, adds labels, and reads checks and combined status', async () => {
    const created = await readKit.issues.createComment({ ...repo, issue_number: 5, body: 'Queued' });
    await readKit.issues.updateComment({ ...repo, comment_id: created.data.id, body: 'Done' });
    const comments = await readKit.issues.listComments({ ...repo, issue_number: 5 });
    expect(comments.data.map((c) => [c.body, c.user?.login])).toEqual([['Done', 'draftsman[bot]']]);
    const labels = await writeKit.issues.addLabels({ ...repo, issue_number: 5, labels: ['agent:done'] });
    expect(labels.data.map((l) => l.name)).toEqual(['agent:run', 'agent:done']);

    const head = (await standin.resolve('acme/widgets', 'agent/i5/rabc'))!;
    standin.addCheckSuite('acme/widgets', {
      headSha: head,
      headBranch: 'agent/i5/rabc',
      conclusion: 'failure',
      runs: [{ name: 'test', conclusion: 'failure' }, { name: 'lint' }],
    });
    standin.addStatus('acme/widgets', head, { context: 'ci/legacy', state: 'pending' });
    standin.addStatus('acme/widgets', head, { context: 'ci/legacy', state: 'success' });
    const suites = await readKit.checks.listSuitesForRef({ ...repo, ref: 'agent/i5/rabc' });
    expect(suites.data.check_suites.map((s) => [s.conclusion, s.head_branch])).toEqual([['failure', 'agent/i5/rabc']]);
    const runs = await readKit.checks.listForRef({ ...repo, ref: head });
    expect(runs.data.check_runs.map((r) => [r.name, r.conclusion])).toEqual([
      ['test', 'failure'],
      ['lint', 'success'],
    ]);
    const status = await readKit.repos.getCombinedStatusForRef({ ...repo, ref: head });
    expect(status.data).toMatchObject({ state: 'success', total_count: 1 });
  });

  it('logs every call with a token id and its permissions, never the token', () => {
    const posts = standin.calls.filter((c) => c.method === 'POST' && c.path.endsWith('/git/blobs'));
    expect(posts).toHaveLength(1);
    expect(posts[0]).toMatchObject({ status: 201, tokenPermissions: { contents: 'write', pull_requests: 'write', issues: 'write', metadata: 'read' } });
    expect(posts[0].tokenId).toMatch(/^tok-\d+$/);
    const all = JSON.stringify(standin.calls);
    for (const token of standin.state.tokenValues()) expect(all).not.toContain(token);
  });
});
