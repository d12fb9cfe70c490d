import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { behindMarker } from '../../src/app/webhook/keep-current.js';
import { startAppHarness, type AppHarness } from '../helpers/app-harness.js';
import { parentsOf, pushCommit } from '../helpers/push-commit.js';

/**
 * Keeping open agent pull requests current: a push that moves `main` under them. A branch that
 * only holds the App's commit is rebuilt on the new base (the recipe runs again) and moves by
 * fast-forward; a branch with a human's commit is only reported as behind.
 */

const gitdirOf = (h: AppHarness) => join(h.standin.gitRoot, `${h.fullName}.git`);
const git = (h: AppHarness, args: string[]) => execFileSync('git', ['--git-dir', gitdirOf(h), ...args], { encoding: 'utf8' }).trim();
const headOf = async (h: AppHarness, branch: string) => (await h.standin.resolve(h.fullName, `refs/heads/${branch}`))!;

/** Label an issue and drain: its draft PR is open. */
async function publish(h: AppHarness, issue: number): Promise<{ runId: string; branch: string; head: string; prNumber: number }> {
  expect((await h.deliver('issues', h.payloads.labeled(issue))).statusCode).toBe(202);
  await h.drain();
  const { runId } = await h.json(`issues/${h.owner}/${h.repo}/${issue}/latest.json`);
  const record = await h.json(`runs/${h.owner}/${h.repo}/${runId}/publish.json`);
  expect(record).toBeDefined();
  return { runId, branch: record.branch, head: record.publishedCommitSha, prNumber: record.prNumber };
}

describe('base moved: a push to main keeps open agent pull requests current', () => {
  let h: AppHarness;
  let ours: Awaited<ReturnType<typeof publish>>;
  let human: Awaited<ReturnType<typeof publish>>;
  let humanCommit: string;
  let moved: { before: string; after: string };

  beforeAll(async () => {
    h = await startAppHarness();
    ours = await publish(h, 1);
    human = await publish(h, 2);
    humanCommit = pushCommit(h.standin, h.fullName, human.branch, { 'NOTES.md': 'a reviewer note\n' }, { message: 'Add a note' }).after;
    moved = pushCommit(h.standin, h.fullName, 'main', { 'docs/changelog.md': '# Changes\n' }, { message: 'Start a changelog' });
    expect((await h.deliver('push', h.payloads.push('main', moved))).statusCode).toBe(202);
    await h.drain();
  }, 180_000);

  afterAll(async () => h?.stop());

  it('base moved under a PR without human commits: it is rebuilt on the new base and moves by fast-forward', async () => {
    const head = await headOf(h, ours.branch);
    expect(head).not.toBe(ours.head);
    // The old head stays in the branch's history: nothing was force-pushed.
    expect(git(h, ['merge-base', '--is-ancestor', ours.head, head]) === '').toBe(true);
    const parents = parentsOf(h, head);
    expect(parents).toEqual([ours.head, moved.after]);
    // The new base's file is there, and the change is still made.
    expect((await h.standin.readFile(h.fullName, head, 'docs/changelog.md'))?.toString()).toBe('# Changes\n');
    const diff = git(h, ['diff', '--name-only', moved.after, head]).split('\n').filter(Boolean);
    expect(diff.length).toBeGreaterThan(0);
    expect(diff).not.toContain('docs/changelog.md');
    const record = await h.json(`runs/${h.owner}/${h.repo}/${ours.runId}/publish.json`);
    expect(record).toMatchObject({ attempt: 2, publishedCommitSha: head, builtOn: moved.after, prNumber: ours.prNumber });
    const attempt = await h.json(`runs/${h.owner}/${h.repo}/${ours.runId}/attempts/2/request.json`);
    expect(attempt).toMatchObject({ reason: 'rerun-base-moved' });
  });

  it('base moved under a PR with a human commit: only reported as behind, the branch untouched', async () => {
    expect(await headOf(h, human.branch)).toBe(humanCommit);
    expect(await h.json(`runs/${h.owner}/${h.repo}/${human.runId}/attempts/2/request.json`)).toBeUndefined();
    const comments = h.comments(human.prNumber).filter((c) => c.body.includes(behindMarker(human.runId)));
    expect(comments).toHaveLength(1);
    expect(comments[0].body).toContain('commits draftsman did not make');
    expect(comments[0].body).toContain(moved.after.slice(0, 12));
  });

  it('base moved: the same push delivered again starts nothing more', async () => {
    const before = (await h.objects()).filter((o) => o.key.includes('/attempts/') && o.key.endsWith('/request.json')).length;
    expect((await h.deliver('push', h.payloads.push('main', moved))).statusCode).toBe(202);
    await h.drain();
    const after = (await h.objects()).filter((o) => o.key.includes('/attempts/') && o.key.endsWith('/request.json')).length;
    expect(after).toBe(before);
    expect(h.comments(human.prNumber).filter((c) => c.body.includes(behindMarker(human.runId)))).toHaveLength(1);
  });

  it('base moved: /agent rebase on the pull request rebuilds it on demand, again by fast-forward', async () => {
    const before = await headOf(h, ours.branch);
    // main moves again, and this time nobody delivers the push: the maintainer asks.
    const again = pushCommit(h.standin, h.fullName, 'main', { 'docs/changelog.md': '# Changes\n\n- one\n' }, { message: 'Changelog entry' });
    expect((await h.deliver('issue_comment', h.payloads.prComment(ours.prNumber, '/agent rebase'))).statusCode).toBe(202);
    await h.drain();
    const head = await headOf(h, ours.branch);
    expect(parentsOf(h, head)).toEqual([before, again.after]);
    expect(await h.json(`runs/${h.owner}/${h.repo}/${ours.runId}/attempts/3/request.json`)).toMatchObject({ reason: 'rebase', sender: 'maya' });
    expect(await h.json(`runs/${h.owner}/${h.repo}/${ours.runId}/publish.json`)).toMatchObject({ attempt: 3, builtOn: again.after });
  });

  it('base moved: /agent rebase by a reader is refused and starts nothing', async () => {
    pushCommit(h.standin, h.fullName, 'main', { 'docs/changelog.md': '# Changes\n\n- two\n' }, { message: 'Another entry' });
    expect((await h.deliver('issue_comment', h.payloads.prComment(ours.prNumber, '/agent rebase', { sender: 'rick' }))).statusCode).toBe(202);
    await h.drain();
    expect(await h.json(`runs/${h.owner}/${h.repo}/${ours.runId}/attempts/4/request.json`)).toBeUndefined();
  });
});
