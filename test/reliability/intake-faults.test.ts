import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { progressMarker } from '../../src/app/github/progress-comment.js';
import { MAINTAINER, startAppHarness, type AppHarness } from '../helpers/app-harness.js';

/**
 * Every trigger reaches one clear end when the intake fails partway (docs/operations.md, "Dead
 * letters"): the intake's retry completes what its first try began, from the intake record,
 * never posting a second progress comment; when every try failed, the sweeper ends the trigger
 * with a comment that says so and frees the issue. The intake starts nothing on an issue GitHub
 * says is closed now, whatever the delivery carried. Each scenario uses its own issue.
 */
const SLOW = 240_000;
const MIN = 60_000;
let h: AppHarness;

const latest = async (issue: number) => h.json<{ runId: string }>(`issues/acme/orders/${issue}/latest.json`);
const requestKeys = async (issue: number): Promise<string[]> =>
  (await h.objects()).filter((o) => /^runs\/acme\/orders\/[^/]+\/request\.json$/.test(o.key) && JSON.parse(o.text).issue?.number === issue).map((o) => o.key);
const pullsOf = (issue: number) => [...h.standin.repo(h.fullName).pulls.values()].filter((p) => p.head.startsWith(`agent/i${issue}/`));
const commentPosts = (issue: number) => (method: string, path: string) => method === 'POST' && path === `/repos/acme/orders/issues/${issue}/comments`;

beforeAll(async () => {
  h = await startAppHarness();
}, SLOW);

afterAll(async () => h?.stop());

describe('the intake fails partway and Lambda retries it', () => {
  it(
    'GitHub fails every try of the progress comment in the first invocation: the retry posts it once and the run publishes',
    async () => {
      // The client's own retries (3) and the first try: four 502s fail the first invocation.
      h.standin.faults.inject({ kind: '502', count: 4, match: ({ method, path }) => commentPosts(1)(method, path) });
      await h.deliver('issues', h.payloads.labeled(1), { intake: false });
      const done = await h.drain({ retries: 2, throwOnError: false });
      const intakes = done.filter((d) => d.fn === 'intake');
      expect(intakes.map((d) => d.error !== undefined)).toEqual([true, false]);
      expect(await requestKeys(1)).toHaveLength(1);
      expect(h.comments(1)).toHaveLength(1);
      // The run went on from the request the retry wrote, to its pull request.
      expect(pullsOf(1)).toHaveLength(1);
      expect(await h.store.get('locks/acme/orders/issues/1.json')).toBeUndefined();
      expect(await h.store.list('intakes/')).toEqual([]);
    },
    SLOW,
  );

  it(
    'S3 fails the request write after the comment was posted: the retry finds the comment by its marker, posts no second one, and does not count the limits again',
    async () => {
      // More failures than the store's five attempts: the first invocation fails after the comment.
      h.s3.faults.fail({ status: 503, count: 5, match: (method, key) => method === 'PUT' && /^runs\/[^/]+\/[^/]+\/[^/]+\/request\.json$/.test(key) });
      const delivered = await h.deliver('issues', h.payloads.labeled(2), { intake: false });
      const first = await h.drain({ throwOnError: false, only: ['intake'] });
      expect(first.map((d) => d.error !== undefined)).toEqual([true]);
      // Before Lambda's retry, other runs fill the hour's limit: this trigger was admitted already.
      const hour = new Date(h.clock.now()).toISOString().slice(0, 13);
      const planted = Array.from({ length: 100 }, (_, i) => `limits/acme/orders/${hour}/other${String(i).padStart(7, 'a')}`);
      for (const k of planted) await h.store.put(k, 'other');
      h.requeue(delivered.stored!);
      const retry = await h.drain({ throwOnError: false, only: ['intake'] });
      for (const k of planted) await h.store.delete(k);
      expect(retry.map((d) => d.error !== undefined)).toEqual([false]);
      const [key] = await requestKeys(2);
      expect(key).toBeDefined();
      const comments = h.comments(2);
      expect(comments).toHaveLength(1);
      const request = await h.json(key);
      expect(request.issue.progressCommentId).toBe(comments[0].id);
      expect(comments[0].body).toContain(progressMarker(request.runId));
      expect(await h.store.list('intakes/acme/orders/2/')).toEqual([]);
    },
    SLOW,
  );

  it(
    "a marker in someone else's comment counts for nothing: the retry posts the App's own progress comment",
    async () => {
      h.standin.faults.inject({ kind: '502', count: 4, match: ({ method, path }) => commentPosts(3)(method, path) });
      const delivered = await h.deliver('issues', h.payloads.labeled(3), { intake: false });
      // Only the first try of the intake: its comment never got through.
      const first = await h.drain({ retries: 0, throwOnError: false, only: ['intake'] });
      expect(first.map((d) => d.error !== undefined)).toEqual([true]);
      expect(h.comments(3)).toEqual([]);
      const [intake] = await h.store.list('intakes/acme/orders/3/');
      const runId = intake.split('/').at(-1)!.replace('.json', '');
      // Someone pastes the run's marker into a comment of their own.
      const pasted = {
        id: 9_000_001,
        issueNumber: 3,
        body: `${progressMarker(runId)} me too`,
        user: h.standin.state.users.get(MAINTAINER)!,
        createdAt: h.clock.now(),
        updatedAt: h.clock.now(),
      };
      h.standin.repo(h.fullName).comments.set(pasted.id, pasted);
      // Lambda's retry of the intake.
      h.requeue(delivered.stored!);
      await h.drain({ retries: 2, throwOnError: false, only: ['intake'] });
      const request = await h.json(`runs/acme/orders/${runId}/request.json`);
      const own = h.comments(3).filter((c) => c.user === h.botLogin);
      expect(own).toHaveLength(1);
      expect(request.issue.progressCommentId).toBe(own[0].id);
      expect(request.issue.progressCommentId).not.toBe(pasted.id);
    },
    SLOW,
  );

  it(
    'every try fails: the sweeper ends the trigger with a truthful comment, frees the issue, and a new label starts a run',
    async () => {
      // The intake's last durable step is the run's entry in the queue (whose admission writes request.json).
      h.s3.faults.fail({ status: 503, count: 15, match: (method, key) => method === 'PUT' && /^queue\/waiting\/[^/]+\/[^/]+\/[^/]+\.json$/.test(key) });
      await h.deliver('issues', h.payloads.labeled(4), { intake: false });
      const done = await h.drain({ retries: 2, throwOnError: false, only: ['intake'] });
      expect(done.filter((d) => d.fn === 'intake').map((d) => d.error !== undefined)).toEqual([true, true, true]);
      expect(h.s3.faults.pending()).toBe(0);
      expect(await requestKeys(4)).toEqual([]);
      expect(await h.store.get('locks/acme/orders/issues/4.json')).toBeDefined();

      // Before the intake's retries could have finished, the sweeper leaves it alone.
      expect((await h.sweep()).intakesEnded).toEqual([]);
      h.clock.advance(20 * MIN);
      const report = await h.sweep();
      expect(report.intakesEnded.map((e) => e.issue)).toEqual([4]);
      expect(await h.store.get('locks/acme/orders/issues/4.json')).toBeUndefined();
      expect(await h.store.list('intakes/')).toEqual([]);
      const comments = h.comments(4);
      expect(comments).toHaveLength(1);
      expect(comments[0].body).toMatch(/FAILED/);
      expect(comments[0].body).toMatch(/could not start/);
      // A second sweep changes nothing.
      expect((await h.sweep()).intakesEnded).toEqual([]);

      // The issue is free: applying the label again starts a run.
      h.clock.advance(MIN);
      await h.deliver('issues', h.payloads.labeled(4));
      expect(await requestKeys(4)).toHaveLength(1);
      expect(await h.store.get('locks/acme/orders/issues/4.json')).toBeDefined();
    },
    SLOW,
  );
});

describe('a lock without a run', () => {
  it('is released by the sweeper once the intake could no longer be working on it', async () => {
    // An intake that took the lock and died before anything else (an old version, or a record deleted by hand).
    const key = 'locks/acme/orders/issues/7.json';
    const acquiredAt = h.clock.now();
    await h.store.put(
      key,
      JSON.stringify({
        schemaVersion: 1,
        runId: 'aaaaaaaaaaaa',
        attempt: 1,
        acquiredAt: new Date(acquiredAt).toISOString(),
        expiresAt: new Date(acquiredAt + 120 * MIN).toISOString(),
      }),
    );
    expect((await h.sweep()).locksReleased).toEqual([]);
    h.clock.advance(20 * MIN);
    expect((await h.sweep()).locksReleased).toEqual([key]);
    expect(await h.store.get(key)).toBeUndefined();
  });
});

describe("GitHub's current truth at the decision", () => {
  it(
    'a label delivered after the issue was closed starts nothing (the close found no run to cancel)',
    async () => {
      const label = h.payloads.labeled(5);
      await h.deliver('issues', h.payloads.closed(5, { sender: MAINTAINER }));
      await h.deliver('issues', label);
      expect(await requestKeys(5)).toEqual([]);
      expect(await latest(5)).toBeUndefined();
      expect(pullsOf(5)).toEqual([]);
      expect(await h.store.get('locks/acme/orders/issues/5.json')).toBeUndefined();
      expect(h.comments(5)).toEqual([]);
    },
    SLOW,
  );

  it(
    'a run cancelled before the publisher reads its candidate is CANCELLED in run.json and on its comment',
    async () => {
      await h.deliver('issues', h.payloads.labeled(6));
      const { runId } = (await latest(6))!;
      // Only this run's notifications (earlier scenarios left theirs queued).
      const mine = (key: string) => key.includes(`/${runId}/`);
      await h.drain({ only: ['worker'], keys: mine });
      await h.deliver('issue_comment', h.payloads.comment(6, '/agent cancel', { sender: MAINTAINER }));
      await h.drain({ keys: mine });
      const run = await h.json(`runs/acme/orders/${runId}/run.json`);
      expect(run.status).toBe('CANCELLED');
      expect(run.reason).toBe('RUN_CANCELLED');
      expect(pullsOf(6)).toEqual([]);
      const progress = h.comments(6).find((c) => c.body.includes(progressMarker(runId)));
      expect(progress?.body).toMatch(/CANCELLED/);
      expect(progress?.body).not.toMatch(/BLOCKED/);
    },
    SLOW,
  );
});
