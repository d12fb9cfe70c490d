import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_POLICY_FILE_BYTES } from '../../src/core/policy/agent-policy.js';
import { startAppHarness, type AppHarness } from '../helpers/app-harness.js';
import { pushCommit } from '../helpers/push-commit.js';

/**
 * A `.agent-policy.yaml` over 1 MiB on the default branch, which GitHub's contents API answers
 * with `encoding: "none"` and no content: the webhook, the worker and the publisher each read it
 * through the one trusted-policy reader and refuse it with the same reason,
 * POLICY_FILE_TOO_LARGE. The policy grows after the webhook accepted two runs, so the worker
 * and the publisher meet it too.
 */
const OVERSIZED = `version: 1\n#${'x'.repeat(MAX_POLICY_FILE_BYTES)}\n`;

describe('a policy file over 1 MiB', () => {
  let h: AppHarness;
  let publishedRun: string;
  let workerRun: string;

  beforeAll(async () => {
    h = await startAppHarness();
    expect((await h.deliver('issues', h.payloads.labeled(1))).statusCode).toBe(202);
    await h.drain({ only: ['worker'] });
    publishedRun = (await h.json('issues/acme/orders/1/latest.json')).runId;
    expect((await h.deliver('issues', h.payloads.labeled(2))).statusCode).toBe(202);
    workerRun = (await h.json('issues/acme/orders/2/latest.json')).runId;
    pushCommit(h.standin, h.fullName, 'main', { '.agent-policy.yaml': OVERSIZED }, { message: 'grow the policy' });
    // Queue order: the publisher for issue 1's candidate, then the worker for issue 2.
    await h.drain();
  }, 300_000);

  afterAll(async () => h?.stop());

  it('the publisher refuses the candidate: POLICY_REFUSED because of POLICY_FILE_TOO_LARGE, no pull request', async () => {
    const publisher = h.dispatched.find((d) => d.fn === 'publisher' && d.key.includes(publishedRun) && d.key.endsWith('/pr-candidate.json'));
    expect(publisher?.error).toBeUndefined();
    expect(publisher?.publisher?.[0]).toMatchObject({
      kind: 'candidate',
      outcome: { kind: 'refused', reason: 'POLICY_REFUSED', error: { data: { policyReason: 'POLICY_FILE_TOO_LARGE' } } },
    });
    expect(h.standin.repo(h.fullName).pulls.size).toBe(0);
    expect(await h.store.get('locks/acme/orders/issues/1.json')).toBeUndefined();
  });

  it('the refusal writes one EMF line with the reason as a dimension; the blocked attempt ran no stage, so it writes only its start and end', () => {
    const metrics = h.logs.entries().filter((e) => e.msg === 'metric');
    expect(metrics.filter((e) => e.fn === 'publisher' && e.runOutcomes === undefined)).toEqual([
      expect.objectContaining({
        outcome: 'refused',
        reason: 'POLICY_REFUSED',
        publishCount: 1,
        runId: publishedRun,
        repository: h.fullName,
        installationId: h.installationId,
      }),
    ]);
    expect(metrics.find((e) => e.fn === 'publisher')?._aws).toMatchObject({
      CloudWatchMetrics: [
        {
          Dimensions: [
            ['fn', 'outcome'],
            ['fn', 'outcome', 'reason'],
          ],
        },
      ],
    });
    // The refused publication is its run's failure, by reason.
    expect(metrics.filter((e) => e.runOutcomes !== undefined && e.runId === publishedRun).map((e) => [e.outcome, e.reason])).toEqual([
      ['started', undefined],
      ['failed', 'POLICY_REFUSED'],
    ]);
    const ofWorkerRun = metrics.filter((e) => e.runId === workerRun);
    const described = (e: Record<string, unknown>) =>
      e.runOutcomes
        ? `outcome ${String(e.outcome)}`
        : e.attemptsStarted
          ? 'started'
          : e.attemptsEnded
            ? `ended ${String(e.status)}`
            : `stage ${String(e.phase)}`;
    expect(ofWorkerRun.map(described)).toEqual(['started', 'outcome started', 'ended BLOCKED', 'outcome failed']);
    expect(ofWorkerRun.at(-1)).toMatchObject({ reason: 'POLICY_FILE_TOO_LARGE', repository: h.fullName, installation: String(h.installationId) });
  });

  it('the worker ends the attempt BLOCKED with POLICY_FILE_TOO_LARGE instead of throwing, and releases the lock', async () => {
    const worker = h.dispatched.find((d) => d.fn === 'worker' && d.key.includes(workerRun));
    expect(worker?.error).toBeUndefined();
    expect(await h.json(`runs/acme/orders/${workerRun}/run.json`)).toMatchObject({
      status: 'BLOCKED',
      reason: 'POLICY_FILE_TOO_LARGE',
      attempts: [{ n: 1, status: 'BLOCKED', reason: 'POLICY_FILE_TOO_LARGE' }],
    });
    expect((await h.objects()).filter((o) => o.key.startsWith(`runs/acme/orders/${workerRun}/candidate/`))).toEqual([]);
    expect(await h.store.get('locks/acme/orders/issues/2.json')).toBeUndefined();
    expect(h.comments(2).find((c) => c.user === h.botLogin)?.body).toContain('POLICY_FILE_TOO_LARGE');
  });

  it('the webhook starts nothing and says why in the Action Required comment', async () => {
    expect((await h.deliver('issues', h.payloads.labeled(3))).statusCode).toBe(202);
    expect(await h.store.get('issues/acme/orders/3/latest.json')).toBeUndefined();
    const notes = h.comments(3).filter((c) => c.user === h.botLogin);
    expect(notes).toHaveLength(1);
    expect(notes[0].body).toContain('Action Required');
    expect(notes[0].body).toContain(`at most ${MAX_POLICY_FILE_BYTES} bytes`);
  });
});
