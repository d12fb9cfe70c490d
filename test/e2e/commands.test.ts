import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_POLICY, MAINTAINER, READER, startAppHarness, type AppHarness } from '../helpers/app-harness.js';

/**
 * `/agent retry`, `/agent status`, `/agent help`, `/agent cancel` and cancelling by closing the
 * issue, each through signed webhooks against the stand-in and the S3-compatible server.
 * (Label, run, approve, cancel between phases, and closes before the worker runs have their own
 * files: label-to-draft-pr, approval, security, trigger-replay-and-close.)
 *
 * One App for the whole file; each scenario works on its own issue. `short` makes the worker
 * believe its invocation is always out of time, so an attempt fails after its continuations:
 * a stopped run that `/agent retry` can start again.
 */
const SLOW = 240_000;
let short = false;
let h: AppHarness;

beforeAll(async () => {
  h = await startAppHarness({ remainingTimeMs: () => (short ? 30_000 : 15 * 60_000) });
}, SLOW);

afterAll(async () => h?.stop());

const latestOf = async (issue: number) => h.json(`issues/acme/orders/${issue}/latest.json`);
const prefixOf = async (issue: number) => `runs/acme/orders/${(await latestOf(issue)).runId}/`;
const lockOf = (issue: number) => h.store.get(`locks/acme/orders/issues/${issue}.json`);
/** The comments on `issue` after the first `before` ones. */
const repliesSince = (issue: number, before: number) => h.comments(issue).slice(before);
const pullsFor = async (issue: number) => {
  const branch = (await h.json(`${await prefixOf(issue)}request.json`)).agentBranch;
  return [...h.standin.repo(h.fullName).pulls.values()].filter((p) => p.head === branch);
};
const say = async (issue: number, body: string, sender: string) => {
  const before = h.comments(issue).length;
  expect((await h.deliver('issue_comment', h.payloads.comment(issue, body, { sender }))).statusCode).toBe(202);
  return repliesSince(issue, before);
};

describe('/agent retry', () => {
  it(
    'after a failed attempt: a reader is refused, a maintainer starts attempt 2, a second retry while it is queued is refused, and attempt 2 publishes',
    async () => {
      short = true;
      expect((await h.deliver('issues', h.payloads.labeled(1))).statusCode).toBe(202);
      await h.drain();
      short = false;
      const prefix = await prefixOf(1);
      expect(await h.json(`${prefix}run.json`)).toMatchObject({ status: 'FAILED', attempt: 1 });
      expect(await lockOf(1)).toBeUndefined();

      const refused = await say(1, '/agent retry', READER);
      expect(refused).toHaveLength(1);
      expect(refused[0].body).toContain(`@${READER}`);
      expect(await h.store.get(`${prefix}attempts/2/request.json`)).toBeUndefined();
      expect(h.pending()).toEqual([]);

      expect(await say(1, '/agent retry', MAINTAINER)).toEqual([]);
      expect(await h.json(`${prefix}attempts/2/request.json`)).toMatchObject({ attempt: 2, reason: 'retry', sender: MAINTAINER });
      expect(await latestOf(1)).toMatchObject({ attempt: 2 });
      expect(await h.json(`locks/acme/orders/issues/1.json`)).toMatchObject({ attempt: 2 });
      expect(h.pending()).toEqual([`${prefix}attempts/2/request.json`]);
      const progress = h.comments(1).find((c) => c.user === h.botLogin)!;
      expect(progress.body).toContain('**Status:** QUEUED');
      expect(progress.body).toContain(`retry by @${MAINTAINER}`);

      // Attempt 2 has not started, so run.json still says FAILED: the attempt is active all the same.
      const again = await say(1, '/agent retry', MAINTAINER);
      expect(again).toHaveLength(1);
      expect(again[0].body).toMatch(/already active/);
      expect(await h.store.get(`${prefix}attempts/3/request.json`)).toBeUndefined();
      expect(h.pending()).toEqual([`${prefix}attempts/2/request.json`]);

      await h.drain();
      expect(await h.json(`${prefix}run.json`)).toMatchObject({ status: 'PUBLISHED', attempt: 2 });
      expect(await h.json(`${prefix}publish.json`)).toMatchObject({ attempt: 2 });
      expect(await pullsFor(1)).toHaveLength(1);
      expect(await lockOf(1)).toBeUndefined();
      const keys = (await h.objects()).map((o) => o.key).filter((k) => k.startsWith(`${prefix}attempts/`) && k.endsWith('/request.json'));
      expect(keys).toEqual([`${prefix}attempts/2/request.json`]);
    },
    SLOW,
  );

  it(
    'while the first attempt is still queued, retry is refused with a reply and starts nothing',
    async () => {
      expect((await h.deliver('issues', h.payloads.labeled(2))).statusCode).toBe(202);
      const prefix = await prefixOf(2);
      const replies = await say(2, '/agent retry', MAINTAINER);
      expect(replies).toHaveLength(1);
      expect(replies[0].body).toContain('QUEUED');
      expect(await h.store.get(`${prefix}attempts/2/request.json`)).toBeUndefined();
      expect(h.pending()).toEqual([`${prefix}request.json`]);
      await h.drain();
      expect(await h.json(`${prefix}run.json`)).toMatchObject({ status: 'PUBLISHED', attempt: 1 });
    },
    SLOW,
  );
});

describe('/agent status', () => {
  it(
    'a reader may ask: no run yet, then the latest run, attempt and status as the run moves',
    async () => {
      const none = await say(3, '/agent status', READER);
      expect(none).toHaveLength(1);
      expect(none[0].body).toMatch(/no run on this issue yet/);

      expect((await h.deliver('issues', h.payloads.labeled(3))).statusCode).toBe(202);
      const { runId, progressCommentId } = await latestOf(3);
      const queued = await say(3, '/agent status', READER);
      expect(queued).toHaveLength(1);
      expect(queued[0].body).toContain(`Run \`${runId}\`, attempt 1: QUEUED.`);
      expect(queued[0].body).toContain(`#issuecomment-${progressCommentId}`);

      await h.drain();
      const published = await say(3, '/agent status', READER);
      expect(published).toHaveLength(1);
      expect(published[0].body).toContain(`Run \`${runId}\`, attempt 1: PUBLISHED.`);
    },
    SLOW,
  );

  it(
    'an attempt that was asked for but has not started is QUEUED, not the previous attempt’s status',
    async () => {
      short = true;
      expect((await h.deliver('issues', h.payloads.labeled(9))).statusCode).toBe(202);
      await h.drain();
      short = false;
      const { runId } = await latestOf(9);
      expect((await say(9, '/agent status', READER))[0].body).toContain(`Run \`${runId}\`, attempt 1: FAILED.`);
      await say(9, '/agent retry', MAINTAINER);
      expect((await say(9, '/agent status', READER))[0].body).toContain(`Run \`${runId}\`, attempt 2: QUEUED.`);
      await h.drain();
      expect((await say(9, '/agent status', READER))[0].body).toContain(`Run \`${runId}\`, attempt 2: PUBLISHED.`);
    },
    SLOW,
  );
});

describe('/agent cancel', () => {
  it(
    'a queued attempt: a reader is refused; a maintainer cancels it, the lock is released, and the worker stops before any work',
    async () => {
      expect((await h.deliver('issues', h.payloads.labeled(4))).statusCode).toBe(202);
      const prefix = await prefixOf(4);
      const { runId } = await latestOf(4);

      const refused = await say(4, '/agent cancel', READER);
      expect(refused).toHaveLength(1);
      expect(refused[0].body).toContain(`@${READER}`);
      expect(await h.store.get(`${prefix}control/cancel.json`)).toBeUndefined();
      expect(await h.json('locks/acme/orders/issues/4.json')).toMatchObject({ runId });

      expect(await say(4, '/agent cancel', MAINTAINER)).toEqual([]);
      expect(await h.json(`${prefix}control/cancel.json`)).toMatchObject({ runId, attempt: 1, by: MAINTAINER, reason: 'cancelled by /agent cancel' });
      expect(await lockOf(4)).toBeUndefined();
      expect(h.comments(4).find((c) => c.user === h.botLogin)!.body).toContain('**Status:** CANCELLED');
      // Before any worker saw it, status already tells the truth.
      expect((await say(4, '/agent status', READER))[0].body).toContain(`Run \`${runId}\`, attempt 1: CANCELLED.`);

      await h.drain();
      expect(await h.json(`${prefix}run.json`)).toMatchObject({ status: 'CANCELLED', attempt: 1 });
      const keys = (await h.objects()).map((o) => o.key).filter((k) => k.startsWith(prefix));
      expect(keys.filter((k) => k.includes('/candidate/') || k.includes('/checkpoints/'))).toEqual([]);
      expect(await pullsFor(4)).toEqual([]);
      expect(await lockOf(4)).toBeUndefined();
    },
    SLOW,
  );

  it('with no run on the issue: one reply, nothing written', async () => {
    const replies = await say(8, '/agent cancel', MAINTAINER);
    expect(replies).toHaveLength(1);
    expect(replies[0].body).toMatch(/no run on this issue to cancel/);
    expect(await latestOf(8)).toBeUndefined();
    expect(await lockOf(8)).toBeUndefined();
  });
});

describe('closing the issue', () => {
  it(
    'by a maintainer while the worker is running: the worker stops at its next step, no candidate, no pull request',
    async () => {
      expect((await h.deliver('issues', h.payloads.labeled(5))).statusCode).toBe(202);
      const prefix = await prefixOf(5);
      let closed = false;
      const stop = h.interceptWorkerWrites(async (key) => {
        if (closed || !key.startsWith(prefix) || !key.includes('/checkpoints/')) return;
        closed = true;
        expect((await h.deliver('issues', h.payloads.closed(5, { sender: MAINTAINER }))).statusCode).toBe(202);
      });
      try {
        await h.drain();
      } finally {
        stop();
      }
      expect(closed).toBe(true);
      expect(await h.json(`${prefix}control/cancel.json`)).toMatchObject({ attempt: 1, by: MAINTAINER, reason: 'the issue was closed' });
      expect(await h.json(`${prefix}run.json`)).toMatchObject({ status: 'CANCELLED', attempt: 1 });
      expect((await h.objects()).filter((o) => o.key.startsWith(`${prefix}candidate/`))).toEqual([]);
      expect(await pullsFor(5)).toEqual([]);
      expect(await lockOf(5)).toBeUndefined();
    },
    SLOW,
  );

  it(
    'by a reader while the worker is running: the run goes on and publishes',
    async () => {
      expect((await h.deliver('issues', h.payloads.labeled(6))).statusCode).toBe(202);
      const prefix = await prefixOf(6);
      let closed = false;
      const stop = h.interceptWorkerWrites(async (key) => {
        if (closed || !key.startsWith(prefix) || !key.includes('/checkpoints/')) return;
        closed = true;
        expect((await h.deliver('issues', h.payloads.closed(6, { sender: READER }))).statusCode).toBe(202);
      });
      try {
        await h.drain();
      } finally {
        stop();
      }
      expect(closed).toBe(true);
      expect(await h.store.get(`${prefix}control/cancel.json`)).toBeUndefined();
      expect(await h.json(`${prefix}run.json`)).toMatchObject({ status: 'PUBLISHED', attempt: 1 });
      expect(await pullsFor(6)).toHaveLength(1);
    },
    SLOW,
  );
});

describe('/agent help', () => {
  let custom: AppHarness;
  beforeAll(async () => {
    custom = await startAppHarness({ policy: `${DEFAULT_POLICY}triggers:\n  commandPrefix: /bot\n  minPermission: maintain\n` });
  }, SLOW);
  afterAll(async () => custom?.stop());

  it('lists every command with the policy’s prefix and permission; a reader may ask; the default prefix is not this repository’s', async () => {
    const before = custom.comments(1).length;
    expect((await custom.deliver('issue_comment', custom.payloads.comment(1, '/bot help', { sender: READER }))).statusCode).toBe(202);
    const replies = custom.comments(1).slice(before);
    expect(replies).toHaveLength(1);
    for (const command of ['run', 'analyze', 'status', 'cancel', 'approve', 'retry']) expect(replies[0].body).toContain(`\`/bot ${command}\``);
    expect(replies[0].body).not.toContain('/agent');
    expect(replies[0].body).toContain('`agent:run`');
    expect(replies[0].body).toContain('`maintain`');

    expect((await custom.deliver('issue_comment', custom.payloads.comment(1, '/agent help', { sender: READER }))).statusCode).toBe(202);
    expect(custom.comments(1)).toHaveLength(before + 1);
    expect(custom.pending()).toEqual([]);
  });
});
