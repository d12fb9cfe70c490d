import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HARNESS_BOT_LOGIN, MAINTAINER, MIGRATION_CHANGED_FILES, READER, startAppHarness, type AppHarness } from '../helpers/app-harness.js';
import { parentsOf } from '../helpers/push-commit.js';
import { answer, callTools } from '../helpers/scripted-model-server.js';

/**
 * Reviewers talk to the App as they talk to a colleague: a review comment that mentions it
 * (`@draftsman …`, inline or in the conversation) or a review that requests changes starts a
 * revision, with no slash command. The sender needs write permission; the App's own comments
 * and other bots never start one; one revision at a time.
 */

const ISSUE = 1;
const SERVICE = MIGRATION_CHANGED_FILES[1];
const MENTION = `@${HARNESS_BOT_LOGIN.replace(/\[bot\]$/, '')}`;

describe('mentions and change requests start a revision', () => {
  let h: AppHarness;
  let prefix: string;
  let branch: string;
  let prNumber: number;
  let edit = '';

  // Attempt 1 is the run's own request; each later attempt writes attempts/<n>/request.json.
  const attempts = async () => 1 + (await h.store.list(`${prefix}attempts/`)).filter((k) => k.endsWith('/request.json')).length;
  /** The service on the branch with one more line above its class, which the scripted model writes. */
  const nextEdit = async (line: string) => {
    const service = (await h.standin.readFile(h.fullName, branch, SERVICE))!.toString();
    edit = service.replace(/^public class /m, `${line}\npublic class `);
  };

  beforeAll(async () => {
    h = await startAppHarness({
      model: {
        script: (body) =>
          body.messages.at(-1)?.role === 'tool' ? answer('Done.') : callTools({ name: 'file_write', arguments: { path: SERVICE, content: edit } }),
      },
    });
    await h.deliver('issues', h.payloads.labeled(ISSUE));
    await h.drain();
    const latest = await h.json(`issues/acme/orders/${ISSUE}/latest.json`);
    prefix = `runs/acme/orders/${latest.runId}/`;
    const published = await h.json(`${prefix}publish.json`);
    branch = published.branch;
    prNumber = published.prNumber;
  }, 90_000);

  afterAll(async () => h?.stop());

  it('an inline review comment mentioning the App revises the PR, the comment quoted in the commit', async () => {
    const before = (await h.standin.resolve(h.fullName, branch))!;
    await nextEdit('/** Order service. */');
    const body = `${MENTION} add a one-line Javadoc above this class`;
    const payload = await h.payloads.reviewComment(prNumber, { id: 94_001, body, path: SERVICE, line: 3 });
    expect((await h.deliver('pull_request_review_comment', payload)).statusCode).toBe(202);
    const request = await h.json(`${prefix}attempts/2/request.json`);
    expect(request.followUp).toMatchObject({
      kind: 'revise',
      sender: MAINTAINER,
      instructions: 'add a one-line Javadoc above this class',
      reviewComments: [{ path: SERVICE, line: 3, author: MAINTAINER }],
    });
    await h.drain();
    const head = (await h.standin.resolve(h.fullName, branch))!;
    expect(parentsOf(h, head)).toEqual([before]);
    expect((await h.standin.readFile(h.fullName, branch, SERVICE))!.toString()).toContain('/** Order service. */');
    const message = (await h.standin.repo(h.fullName).git.readCommit(head))!.message;
    expect(message).toContain(`Requested by @${MAINTAINER}:`);
    expect(message).toContain('> add a one-line Javadoc above this class');
    // A redelivery starts nothing more.
    await h.deliver('pull_request_review_comment', payload);
    expect(await attempts()).toBe(2);
  }, 90_000);

  it('a comment in the conversation mentioning the App revises the PR', async () => {
    await nextEdit('/** Orders, persisted. */');
    await h.deliver('issue_comment', h.payloads.prComment(prNumber, `Thanks! ${MENTION} please also say what it persists.`, { commentId: 94_002 }));
    expect((await h.json(`${prefix}attempts/3/request.json`)).followUp).toMatchObject({
      kind: 'revise',
      instructions: 'Thanks! please also say what it persists.',
    });
    await h.drain();
    expect((await h.standin.readFile(h.fullName, branch, SERVICE))!.toString()).toContain('/** Orders, persisted. */');
  }, 90_000);

  it('a review requesting changes revises the PR with its inline comments, no command needed', async () => {
    await nextEdit('/** Orders. */');
    const head = (await h.standin.resolve(h.fullName, branch))!;
    const review = h.standin.addReview(h.fullName, prNumber, {
      user: MAINTAINER,
      body: 'The Javadoc should be shorter.',
      commitId: head,
      comments: [{ path: SERVICE, line: 3, body: 'Just "Orders." here.' }],
    });
    const payload = await h.payloads.reviewSubmitted(prNumber, { id: review.id, body: review.body, commitId: head, state: 'changes_requested' });
    await h.deliver('pull_request_review', payload);
    expect((await h.json(`${prefix}attempts/4/request.json`)).followUp).toMatchObject({
      kind: 'revise',
      source: `review-${review.id}`,
      instructions: 'The Javadoc should be shorter.',
      reviewComments: [{ path: SERVICE, line: 3, body: 'Just "Orders." here.' }],
    });
    // One at a time: a mention while the revision is queued starts nothing and says why.
    const said = h.comments(prNumber).length;
    await h.deliver('issue_comment', h.payloads.prComment(prNumber, `${MENTION} and one more thing`, { commentId: 94_003 }));
    expect(await attempts()).toBe(4);
    expect(
      h
        .comments(prNumber)
        .slice(said)
        .map((c) => c.body)
        .join('\n'),
    ).toMatch(/active|wait/i);
    await h.drain();
    expect((await h.standin.readFile(h.fullName, branch, SERVICE))!.toString()).toContain('/** Orders. */');
  }, 90_000);

  it('a plain approving or commenting review without a mention starts nothing', async () => {
    const head = (await h.standin.resolve(h.fullName, branch))!;
    const review = h.standin.addReview(h.fullName, prNumber, { user: MAINTAINER, body: 'Looks good.', commitId: head, comments: [] });
    await h.deliver('pull_request_review', await h.payloads.reviewSubmitted(prNumber, { id: review.id, body: review.body, commitId: head, state: 'approved' }));
    expect(await attempts()).toBe(4);
  });

  it('the App itself, other bots and readers never start a revision by mentioning it', async () => {
    const said = h.comments(prNumber).length;
    await h.deliver('issue_comment', h.payloads.prComment(prNumber, `${MENTION} revise yourself`, { sender: HARNESS_BOT_LOGIN, senderType: 'Bot' }));
    await h.deliver('issue_comment', h.payloads.prComment(prNumber, `${MENTION} do more`, { sender: 'helper[bot]', senderType: 'Bot' }));
    await h.deliver(
      'pull_request_review_comment',
      await h.payloads.reviewComment(prNumber, { id: 94_010, body: `${MENTION} again`, path: SERVICE, line: 3, sender: HARNESS_BOT_LOGIN, senderType: 'Bot' }),
    );
    expect(h.comments(prNumber).length).toBe(said);
    await h.deliver('issue_comment', h.payloads.prComment(prNumber, `${MENTION} do more`, { sender: READER }));
    expect(h.comments(prNumber).slice(said)).toHaveLength(1);
    expect(h.comments(prNumber).at(-1)!.body).toContain(`@${READER}`);
    expect(await attempts()).toBe(4);
    expect(h.pending()).toEqual([]);
  });
});
