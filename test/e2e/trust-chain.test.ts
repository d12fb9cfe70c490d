import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveryKey, parseDeliveryKey } from '../../src/core/artifacts/keys.js';
import { AccessDenied } from '../helpers/iam-policy.js';
import { startAppHarness, type AppHarness } from '../helpers/app-harness.js';

/**
 * A compromised worker (docs/trust-chain.md): in the middle of a real run, the worker's own
 * store (RunWorkerRole with its run's session tags, intersected with the session policy run-session
 * generated) is used to forge what the publisher or the webhook would trust. Every forgery is
 * refused as AWS would refuse it, the run still publishes exactly one draft PR, and the only
 * token the worker held was for its run's repository.
 */
describe('a compromised worker reaches its own run only', () => {
  let h: AppHarness;
  const outcomes: [string, string][] = [];
  let own = '';
  /** The one object the webhook stored for the intake: the only dispatch outside the run's own keys. */
  let webhookDelivery = '';

  beforeAll(async () => {
    h = await startAppHarness();
    const delivered = await h.deliver('issues', h.payloads.labeled(1));
    expect(delivered.statusCode).toBe(202);
    webhookDelivery = deliveryKey(delivered.deliveryId);
    const stop = h.interceptWorkerWrites(async (key, store) => {
      if (own) return;
      own = /^runs\/acme\/orders\/([^/]+)\//.exec(key)![1];
      const forged = (owner: string, repo: string, runId: string) =>
        JSON.stringify({
          schemaVersion: 1,
          runId,
          owner,
          repo,
          source: { kind: 'github', repositoryId: 999, installationId: 8, cloneUrl: 'https://github.com/evil/target.git', apiUrl: 'https://api.github.com' },
        });
      const attempts: [string, () => Promise<unknown>][] = [
        ['put runs/acme/orders/attempts/request.json', () => store.put('runs/acme/orders/attempts/request.json', forged('acme', 'orders', 'attempts'))],
        [`put own request.json`, () => store.put(`runs/acme/orders/${own}/request.json`, forged('acme', 'orders', own))],
        [`put own attempts/2/request.json`, () => store.put(`runs/acme/orders/${own}/attempts/2/request.json`, '{"approvedGates":["risk"]}')],
        ['put another run candidate', () => store.put('runs/acme/orders/zzzzzzzzzzzz/candidate/pr-candidate.json', '{}')],
        ['put another repository request', () => store.put(`runs/evil/target/${own}/request.json`, forged('evil', 'target', own))],
        ['put another issue pointer', () => store.put('issues/acme/orders/2/latest.json', `{"runId":"${own}"}`)],
        ['delete another issue lock', () => store.delete('locks/acme/orders/issues/2.json')],
        ['read own dispatch records', () => store.list(`runs/acme/orders/${own}/dispatch/`)],
        ['put own publish.json', () => store.put(`runs/acme/orders/${own}/publish.json`, '{}')],
      ];
      for (const [what, attempt] of attempts) {
        try {
          await attempt();
          outcomes.push([what, 'allowed']);
        } catch (error) {
          outcomes.push([what, error instanceof AccessDenied ? 'denied' : `error: ${String(error)}`]);
        }
      }
    });
    await h.drain();
    stop();
  }, 120_000);

  afterAll(async () => h?.stop());

  it('refuses every forgery the worker tries with its own credentials', () => {
    expect(outcomes.length).toBe(9);
    for (const [what, outcome] of outcomes) expect([what, outcome]).toEqual([what, 'denied']);
  });

  it('leaves no forged object, dispatches nothing forged, and publishes one draft PR in the run repository', async () => {
    const keys = (await h.objects()).map((o) => o.key);
    expect(keys).not.toContain('runs/acme/orders/attempts/request.json');
    expect(keys.filter((k) => k.startsWith('runs/evil/') || k.startsWith('runs/acme/orders/zzzzzzzzzzzz/'))).toEqual([]);
    expect(h.dispatched.map((d) => d.key).filter((k) => !k.startsWith(`runs/acme/orders/${own}/`))).toEqual([webhookDelivery]);
    expect(keys.filter((k) => parseDeliveryKey(k) !== undefined)).toEqual([webhookDelivery]);
    expect(h.standin.repo(h.fullName).pulls.size).toBe(1);
    expect(await h.json(`runs/acme/orders/${own}/publish.json`)).toMatchObject({ prNumber: expect.any(Number) });
  });

  it('gave the worker a read token for its run repository and installation only', () => {
    const minted = new Map(h.standin.state.tokens().map((t) => [t.id, t]));
    const worker = h.issued.filter((t) => t.fn === 'worker');
    expect(worker.length).toBeGreaterThan(0);
    for (const t of worker)
      expect(minted.get(t.tokenId)).toMatchObject({
        installationId: h.installationId,
        repositoryIds: [h.repositoryId],
        permissions: expect.objectContaining({ contents: 'read' }),
      });
  });
});
