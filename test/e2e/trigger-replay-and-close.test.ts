import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAINTAINER, READER, startAppHarness, type AppHarness } from '../helpers/app-harness.js';

/**
 * Two ways around the trigger rules, on the whole App with real signed payloads
 * (@octokit/webhooks-examples, signed with the harness secret):
 * - a captured signed delivery replayed under a new X-GitHub-Delivery header must change
 *   nothing (the run's identity comes from signed content only);
 * - closing an issue cancels its run only when the closer may cancel (the policy's minimum
 *   permission, as for `/agent cancel`).
 * Each scenario uses its own issue.
 */
/** Each scenario drives whole runs (worker and publisher); the shared machine can be slow. */
const SLOW = 240_000;

describe('replayed deliveries and issue closes', () => {
  let h: AppHarness;

  const requestKeysFor = async (issue: number): Promise<string[]> =>
    (await h.objects()).filter((o) => /^runs\/acme\/orders\/[^/]+\/request\.json$/.test(o.key) && JSON.parse(o.text).issue?.number === issue).map((o) => o.key);
  const latestRun = async (issue: number): Promise<string> => (await h.json(`issues/acme/orders/${issue}/latest.json`)).runId;

  beforeAll(async () => {
    h = await startAppHarness();
  }, SLOW);

  afterAll(async () => h?.stop());

  it(
    'a signed label event replayed with a new delivery id, while queued and after publishing, starts nothing',
    async () => {
      const payload = h.payloads.labeled(1);
      const first = await h.deliver('issues', payload);
      expect(first.statusCode).toBe(202);
      const replay = await h.deliver('issues', payload);
      expect(replay.statusCode).toBe(202);
      expect(replay.deliveryId).not.toBe(first.deliveryId);
      expect(await requestKeysFor(1)).toHaveLength(1);
      expect(h.comments(1)).toHaveLength(1);

      await h.drain();
      const pulls = h.standin.repo(h.fullName).pulls.size;
      expect(await h.json(`runs/acme/orders/${await latestRun(1)}/publish.json`)).toBeDefined();

      const late = await h.deliver('issues', payload, { deliveryId: '99999999-0000-4000-8000-000000000001' });
      expect(late.statusCode).toBe(202);
      expect(await requestKeysFor(1)).toHaveLength(1);
      expect(h.comments(1)).toHaveLength(1);
      expect(h.pending()).toEqual([]);
      expect(h.standin.repo(h.fullName).pulls.size).toBe(pulls);
      expect(await h.store.get('locks/acme/orders/issues/1.json')).toBeUndefined();
    },
    SLOW,
  );

  it(
    'a signed /agent run comment replayed with a new delivery id starts nothing',
    async () => {
      const payload = h.payloads.comment(2, '/agent run', { sender: MAINTAINER });
      expect((await h.deliver('issue_comment', payload)).statusCode).toBe(202);
      expect((await h.deliver('issue_comment', payload)).statusCode).toBe(202);
      expect(await requestKeysFor(2)).toHaveLength(1);
      expect(h.comments(2).filter((c) => c.user === h.botLogin)).toHaveLength(1);
    },
    SLOW,
  );

  it(
    'the same label applied again later is a new trigger (a new run once the first ended)',
    async () => {
      expect((await h.deliver('issues', h.payloads.labeled(3))).statusCode).toBe(202);
      await h.drain();
      h.clock.advance(60_000);
      expect((await h.deliver('issues', h.payloads.labeled(3))).statusCode).toBe(202);
      expect(await requestKeysFor(3)).toHaveLength(2);
      await h.drain();
    },
    SLOW,
  );

  it(
    'an issue closed by a user with read access does not cancel the maintainer’s run',
    async () => {
      expect((await h.deliver('issues', h.payloads.labeled(4, { sender: MAINTAINER }))).statusCode).toBe(202);
      const runId = await latestRun(4);
      const comments = h.comments(4).length;
      expect((await h.deliver('issues', h.payloads.closed(4, { sender: READER }))).statusCode).toBe(202);
      expect(await h.store.get(`runs/acme/orders/${runId}/control/cancel.json`)).toBeUndefined();
      expect(await h.json('locks/acme/orders/issues/4.json')).toMatchObject({ runId });
      expect(h.comments(4)).toHaveLength(comments);
      await h.drain();
      expect(await h.json(`runs/acme/orders/${runId}/publish.json`)).toMatchObject({ runId });
    },
    SLOW,
  );

  it(
    'an issue closed by a bot does not cancel the run',
    async () => {
      expect((await h.deliver('issues', h.payloads.labeled(5))).statusCode).toBe(202);
      const runId = await latestRun(5);
      expect((await h.deliver('issues', h.payloads.closed(5, { sender: 'renovate[bot]' }))).statusCode).toBe(202);
      expect(await h.store.get(`runs/acme/orders/${runId}/control/cancel.json`)).toBeUndefined();
      expect(await h.json('locks/acme/orders/issues/5.json')).toMatchObject({ runId });
    },
    SLOW,
  );

  it(
    'an issue closed by a maintainer cancels the run',
    async () => {
      expect((await h.deliver('issues', h.payloads.labeled(6))).statusCode).toBe(202);
      const runId = await latestRun(6);
      expect((await h.deliver('issues', h.payloads.closed(6, { sender: MAINTAINER }))).statusCode).toBe(202);
      expect(await h.json(`runs/acme/orders/${runId}/control/cancel.json`)).toMatchObject({ by: MAINTAINER, reason: 'the issue was closed' });
      expect(await h.store.get('locks/acme/orders/issues/6.json')).toBeUndefined();
      await h.drain();
      expect(await h.json(`runs/acme/orders/${runId}/run.json`)).toMatchObject({ status: 'CANCELLED' });
    },
    SLOW,
  );

  it(
    "a latest.json pointer rewritten to another issue's run (the worker can write it) is ignored by cancel, retry and status",
    async () => {
      expect((await h.deliver('issues', h.payloads.labeled(7))).statusCode).toBe(202);
      expect((await h.deliver('issues', h.payloads.labeled(8))).statusCode).toBe(202);
      const victim = await latestRun(8);
      const pointer = await h.json('issues/acme/orders/7/latest.json');
      await h.store.put('issues/acme/orders/7/latest.json', `${JSON.stringify({ ...pointer, runId: victim })}\n`);
      const comments = h.comments(7).length;
      expect((await h.deliver('issue_comment', h.payloads.comment(7, '/agent cancel', { sender: MAINTAINER }))).statusCode).toBe(202);
      expect((await h.deliver('issue_comment', h.payloads.comment(7, '/agent retry', { sender: MAINTAINER }))).statusCode).toBe(202);
      expect(await h.store.get(`runs/acme/orders/${victim}/control/cancel.json`)).toBeUndefined();
      expect(await h.store.get(`runs/acme/orders/${victim}/attempts/2/request.json`)).toBeUndefined();
      expect(await h.json('locks/acme/orders/issues/8.json')).toMatchObject({ runId: victim });
      expect(h.comments(7).length).toBe(comments + 2);
      await h.drain();
      expect(await h.json(`runs/acme/orders/${victim}/publish.json`)).toMatchObject({ runId: victim });
    },
    SLOW,
  );
});
