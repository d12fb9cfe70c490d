import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveryKey } from '../../src/core/artifacts/keys.js';
import { AccessDenied, policyScopedStore } from '../helpers/iam-policy.js';
import { READER, startAppHarness, type AppHarness } from '../helpers/app-harness.js';
import { roleStatements } from '../helpers/stack-roles.js';

/**
 * The acknowledgement path (issue 17): the webhook verifies, screens and stores the delivery,
 * then answers; the trigger decisions run in the intake, from the bucket's notification for
 * the stored delivery, with the outcomes and the idempotency they had on the webhook.
 */
describe('the webhook answers before any GitHub call; the intake decides', () => {
  let h: AppHarness;
  const runRequests = async () => (await h.objects()).filter((o) => /^runs\/acme\/orders\/[^/]+\/request\.json$/.test(o.key));

  beforeAll(async () => {
    h = await startAppHarness();
  }, 120_000);

  afterAll(async () => h?.stop());

  it('a starting label: 202 with zero GitHub calls and no token, one object stored; the intake then starts the run', async () => {
    const res = await h.deliver('issues', h.payloads.labeled(1), { intake: false });
    expect(res.statusCode).toBe(202);
    expect(res.callsBeforeAnswer).toBe(0);
    expect(h.standin.calls).toEqual([]);
    expect(h.issued).toEqual([]);
    expect(res.stored).toBe(deliveryKey(res.deliveryId));
    expect((await h.objects()).map((o) => o.key)).toEqual([res.stored]);
    const stored = await h.json(res.stored!);
    expect(stored).toMatchObject({ schemaVersion: 1, id: res.deliveryId, name: 'issues', payload: { action: 'labeled', issue: { number: 1 } } });

    // The bucket's notification reaches the intake (and nothing else).
    expect(h.pending()).toEqual([res.stored]);
    const ran = await h.drain({ only: ['intake'] });
    expect(ran.map((d) => [d.fn, d.key])).toEqual([['intake', res.stored]]);
    expect(await runRequests()).toHaveLength(1);
    expect(h.comments(1)).toHaveLength(1);
    expect(new Set(h.issued.map((t) => t.fn))).toEqual(new Set(['intake']));
    expect(h.pending().filter((k) => k.endsWith('/request.json'))).toHaveLength(1);
  });

  it('the same delivery again, a duplicate notification and a retried intake start no second run', async () => {
    const first = (await h.objects()).find((o) => o.key.startsWith('deliveries/'))!;
    const id = first.key.slice('deliveries/'.length, -'.json'.length);
    const stored = await h.json(first.key);
    // GitHub's redelivery: the same id and body.
    const again = await h.deliver('issues', stored.payload, { deliveryId: id });
    expect(again.statusCode).toBe(202);
    expect(again.intake).toEqual([{ key: first.key, delivery: id, handled: true }]);
    // S3 notifies twice; Lambda retries the intake after an error it did not see.
    h.requeue(first.key);
    h.requeue(first.key);
    await h.drain({ only: ['intake'] });
    expect(h.dispatched.filter((d) => d.key === first.key).map((d) => d.invocation)).toEqual([1, 2, 3, 4]);
    expect(await runRequests()).toHaveLength(1);
    expect(h.comments(1)).toHaveLength(1);
    const outcomes = h.logs
      .entries()
      .filter((e) => e.fn === 'intake' && e.msg === 'issues.labeled handled')
      .map((e) => e.outcome);
    expect(outcomes).toEqual(['started', 'duplicate', 'duplicate', 'duplicate']);
  });

  it('ignored, refused by permission, and not stored at all: the same outcomes as before, from the intake', async () => {
    const before = (await runRequests()).length;
    // Another label: stored, the intake reads the policy and ignores it.
    const other = await h.deliver('issues', h.payloads.labeled(2, { label: 'bug' }));
    expect(other.callsBeforeAnswer).toBe(0);
    expect(other.intake).toEqual([{ key: other.stored, delivery: other.deliveryId, handled: true }]);
    expect(h.comments(2)).toEqual([]);
    // A reader applies the trigger label: the intake answers that the permission is missing.
    const reader = await h.deliver('issues', h.payloads.labeled(3, { sender: READER }));
    expect(reader.callsBeforeAnswer).toBe(0);
    expect(h.comments(3).map((c) => c.body)).toEqual([expect.stringContaining(`@${READER} needs at least`)]);
    // Chat and bot comments are answered and dropped by the webhook: nothing is stored.
    const chat = await h.deliver('issue_comment', h.payloads.comment(4, 'Thanks, looks good.'));
    const bot = await h.deliver('issue_comment', h.payloads.comment(4, '/agent run', { sender: 'ci-helper[bot]', senderType: 'Bot' }));
    for (const r of [chat, bot]) expect([r.statusCode, r.stored, r.callsBeforeAnswer]).toEqual([202, undefined, 0]);
    expect(await runRequests()).toHaveLength(before);
    const outcomes = h.logs
      .entries()
      .filter((e) => e.fn === 'intake' && e.msg === 'issues.labeled handled')
      .map((e) => e.outcome);
    expect(outcomes.slice(-2)).toEqual(['ignored', 'replied']);
    // Every GitHub call was the intake's: no token was ever issued to the webhook.
    expect(h.issued.filter((t) => t.fn !== 'intake' && t.fn !== 'worker' && t.fn !== 'publisher')).toEqual([]);
  });

  it('the webhook role may write a delivery and do nothing else in the bucket', async () => {
    const bucket = h.s3.bucket;
    const webhook = policyScopedStore(h.store, bucket, [roleStatements('WebhookRole', { bucket })], {});
    await webhook.put(deliveryKey('00000000-0000-4000-8000-0000000000ff'), '{}');
    const denied = async (attempt: () => Promise<unknown>) => expect(attempt()).rejects.toBeInstanceOf(AccessDenied);
    await denied(() => webhook.get(deliveryKey('00000000-0000-4000-8000-0000000000ff')));
    await denied(() => webhook.put('runs/acme/orders/abcdefghijkl/request.json', '{}'));
    await denied(() => webhook.put('locks/acme/orders/issues/1.json', '{}'));
    await denied(() => webhook.put('issues/acme/orders/1/latest.json', '{}'));
    await denied(() => webhook.put('deliveries-other/x.json', '{}'));
    await denied(() => webhook.get('runs/acme/orders/abcdefghijkl/run.json'));
    await denied(() => webhook.list('deliveries/'));
    await denied(() => webhook.delete(deliveryKey('00000000-0000-4000-8000-0000000000ff')));
    // The intake reads deliveries; it cannot forge one.
    const intake = policyScopedStore(h.store, bucket, [roleStatements('IntakeRole', { bucket })], {});
    expect(await intake.get(deliveryKey('00000000-0000-4000-8000-0000000000ff'))).toBeDefined();
    await denied(() => intake.put(deliveryKey('00000000-0000-4000-8000-0000000000fe'), '{}'));
  });
});
