import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAINTAINER, READER, startAppHarness, type AppHarness } from '../helpers/app-harness.js';
import { parentsOf, pushHumanCommit } from '../helpers/push-commit.js';

/**
 * After the draft PR: `/agent revise` in a PR comment, or a submitted review, adds one commit
 * on top of the agent branch; a human's commit on the branch is the next revision's parent.
 * The revisions bump the Spring Boot parent again (a recipe step given in the comment), so each
 * one changes `pom.xml` deterministically.
 */

const ISSUE = 1;
const bump = (version: string) =>
  `\`\`\`agent\nsteps:\n  - recipe: bump-dependency\n    package: org.springframework.boot:spring-boot-starter-parent\n    to: ${version}\n\`\`\``;

describe('revise: follow-ups on the draft pull request', () => {
  let h: AppHarness;
  let prefix: string;
  let branch: string;
  let prNumber: number;
  let firstHead: string;

  beforeAll(async () => {
    h = await startAppHarness();
    await h.deliver('issues', h.payloads.labeled(ISSUE));
    await h.drain();
    const latest = await h.json(`issues/acme/orders/${ISSUE}/latest.json`);
    prefix = `runs/acme/orders/${latest.runId}/`;
    const published = await h.json(`${prefix}publish.json`);
    branch = published.branch;
    prNumber = published.prNumber;
    firstHead = published.publishedCommitSha;
  }, 60_000);

  afterAll(async () => h?.stop());

  it('revise: a review comment revises the PR with one new commit on top', async () => {
    const comment = h.payloads.prComment(prNumber, `/agent revise use Spring Boot 3.3.0 instead\n\n${bump('3.3.0')}`, { commentId: 91_001 });
    expect((await h.deliver('issue_comment', comment)).statusCode).toBe(202);
    const request = await h.json(`${prefix}attempts/2/request.json`);
    expect(request).toMatchObject({
      attempt: 2,
      reason: 'revise',
      sender: MAINTAINER,
      followUp: { kind: 'revise', source: 'comment-91001', onto: { branch, headSha: firstHead, baseBranch: 'main', pullRequest: prNumber } },
    });
    expect(request.followUp.instructions).toContain('use Spring Boot 3.3.0 instead');
    await h.drain();

    const published = await h.json(`${prefix}publish.json`);
    expect(published).toMatchObject({ attempt: 2, prNumber });
    const head = await h.standin.resolve(h.fullName, branch);
    expect(head).toBe(published.publishedCommitSha);
    expect(parentsOf(h, head!)).toEqual([firstHead]);
    expect((await h.standin.readFile(h.fullName, branch, 'pom.xml'))!.toString()).toContain('3.3.0');
    // Nothing was forced: every ref update on the branch was a fast-forward.
    const forced = h.standin.calls.filter(
      (c) => c.method === 'PATCH' && c.path.includes('/git/refs/') && (c.body as { force?: boolean } | undefined)?.force === true,
    );
    expect(forced).toEqual([]);
    const pull = h.standin.repo(h.fullName).pulls.get(prNumber)!;
    expect(pull.body).toContain('## Revisions');
    expect(pull.body).toContain(`asked by @${MAINTAINER}`);
    expect(pull.body).toContain(published.publishedCommitSha.slice(0, 12));
    expect(pull.body).toContain('`pom.xml`');
    expect(published.revisions).toHaveLength(1);

    // A redelivery of the same comment starts nothing.
    expect((await h.deliver('issue_comment', comment)).statusCode).toBe(202);
    expect(await h.store.get(`${prefix}attempts/3/request.json`)).toBeUndefined();
    expect(h.pending()).toEqual([]);
  }, 60_000);

  it('revise: a reader, or a bot, cannot revise', async () => {
    const before = h.comments(prNumber).length;
    await h.deliver('issue_comment', h.payloads.prComment(prNumber, '/agent revise do more', { sender: READER }));
    const added = h.comments(prNumber).slice(before);
    expect(added).toHaveLength(1);
    expect(added[0].body).toContain(`@${READER}`);
    await h.deliver('issue_comment', h.payloads.prComment(prNumber, '/agent revise do more', { sender: 'helper[bot]', senderType: 'Bot' }));
    expect(h.comments(prNumber).slice(before)).toHaveLength(1);
    expect(await h.store.get(`${prefix}attempts/3/request.json`)).toBeUndefined();
  });

  it('human commit: a human commit on the branch is kept by the next revision, asked in a review with inline comments', async () => {
    const humanHead = await pushHumanCommit(h, branch, { 'NOTES.md': 'Migration notes by a human.\n' }, 'Add migration notes');
    expect(parentsOf(h, humanHead)).toEqual([(await h.json(`${prefix}publish.json`)).publishedCommitSha]);

    const review = h.standin.addReview(h.fullName, prNumber, {
      user: MAINTAINER,
      body: `/agent revise go to 3.3.1\n\n${bump('3.3.1')}`,
      commitId: humanHead,
      comments: [{ path: 'pom.xml', startLine: 5, line: 7, body: 'This parent version should be 3.3.1.' }],
    });
    const payload = await h.payloads.reviewSubmitted(prNumber, { id: review.id, body: review.body, commitId: humanHead });
    expect((await h.deliver('pull_request_review', payload)).statusCode).toBe(202);
    const request = await h.json(`${prefix}attempts/3/request.json`);
    expect(request.followUp).toMatchObject({
      source: `review-${review.id}`,
      onto: { headSha: humanHead },
      reviewComments: [{ path: 'pom.xml', startLine: 5, line: 7, body: 'This parent version should be 3.3.1.', author: MAINTAINER }],
    });
    await h.drain();

    const published = await h.json(`${prefix}publish.json`);
    expect(published).toMatchObject({ attempt: 3 });
    const head = (await h.standin.resolve(h.fullName, branch))!;
    expect(head).toBe(published.publishedCommitSha);
    expect(parentsOf(h, head)).toEqual([humanHead]);
    expect((await h.standin.readFile(h.fullName, branch, 'NOTES.md'))!.toString()).toContain('by a human');
    expect((await h.standin.readFile(h.fullName, branch, 'pom.xml'))!.toString()).toContain('3.3.1');
    const body = h.standin.repo(h.fullName).pulls.get(prNumber)!.body!;
    expect(body.match(/### Attempt \d+/g)).toEqual(['### Attempt 2', '### Attempt 3']);
    expect(await h.json(`${prefix}run.json`)).toMatchObject({ status: 'PUBLISHED', attempt: 3 });
    expect(await h.store.get(`locks/acme/orders/issues/${ISSUE}.json`)).toBeUndefined();
  }, 60_000);

  it('human commit: a branch that moved while a revision ran is never forced; /agent retry on the PR builds on the new head', async () => {
    const before = (await h.standin.resolve(h.fullName, branch))!;
    await h.deliver('issue_comment', h.payloads.prComment(prNumber, `/agent revise go to 3.3.2\n\n${bump('3.3.2')}`));
    await h.drain({ only: ['worker'] });
    const humanHead = await pushHumanCommit(h, branch, { 'NOTES.md': 'Pushed while the revision ran.\n' }, 'Notes while running');
    await h.drain();
    expect(await h.standin.resolve(h.fullName, branch)).toBe(humanHead);
    expect(parentsOf(h, humanHead)).toEqual([before]);
    expect(await h.json(`${prefix}run.json`)).toMatchObject({ status: 'BLOCKED', reason: 'BRANCH_MOVED', attempt: 4 });
    expect(h.comments(prNumber).at(-1)?.body).toContain('BRANCH_MOVED');
    expect((await h.json(`${prefix}publish.json`)).attempt).toBe(3);

    // `/agent retry` written on the PR addresses the PR's run: attempt 5 repeats the revision on the human's head.
    await h.deliver('issue_comment', h.payloads.prComment(prNumber, '/agent retry'));
    expect(await h.json(`${prefix}attempts/5/request.json`)).toMatchObject({
      reason: 'retry',
      followUp: { kind: 'revise', instructions: expect.stringContaining('go to 3.3.2') },
    });
    await h.drain();
    const head = (await h.standin.resolve(h.fullName, branch))!;
    expect(await h.json(`${prefix}publish.json`)).toMatchObject({ attempt: 5, publishedCommitSha: head });
    expect(parentsOf(h, head)).toEqual([humanHead]);
    expect((await h.standin.readFile(h.fullName, branch, 'pom.xml'))!.toString()).toContain('3.3.2');
  }, 90_000);
});
