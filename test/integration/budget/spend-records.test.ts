import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3ArtifactStore } from '../../../src/app/aws/s3-artifact-store.js';
import { readSpend } from '../../../src/core/budget/spend.js';
import { accountSpend, spendAccounts } from '../../../src/core/engines/llm/spend-accounting.js';
import type { ModelProvider, SpendScope } from '../../../src/core/ports.js';
import { startS3Server, type S3TestServer } from '../../helpers/s3-server.js';

/**
 * The spend records on a real S3-compatible server (s3rver with the conditional-write shim):
 * twenty calls at once against a cap reserve by compare-and-swap (If-Match on the etag,
 * If-None-Match for the first write), so together they never pass it; a refused call is never
 * sent, and the records end with nothing reserved.
 */

const NOW = Date.parse('2026-12-06T07:00:00.000Z');
const PRICES = { m: { inputPerMTokUsd: 0, outputPerMTokUsd: 10 } };
const request = { messages: [{ role: 'user' as const, content: 'hi' }], tools: [], maxTokens: 1_000 };

describe('spend records under parallel calls on S3', () => {
  let s3: S3TestServer;
  let store: S3ArtifactStore;

  beforeAll(async () => {
    s3 = await startS3Server({ bucket: 'draftsman-spend' });
    store = new S3ArtifactStore({ client: s3.client, bucket: s3.bucket, sleep: async () => undefined });
  }, 30_000);

  afterAll(async () => s3?.stop());

  it('twenty calls at once, each reserving $0.01 under a $0.10 task cap: ten are sent, ten refused, $0.10 spent, nothing left reserved', async () => {
    let sent = 0;
    const inner: ModelProvider = {
      model: 'm',
      complete: async () => {
        sent += 1;
        await new Promise((resolve) => setTimeout(resolve, 5));
        return { message: { role: 'assistant', content: 'ok' }, stopReason: 'end_turn', usage: { promptTokens: 0, completionTokens: 1_000 } };
      },
    };
    const scope: SpendScope = { owner: 'acme', repo: 'orders', runId: 'run1', attempt: 1, installation: '42', caps: { taskMicroUsd: 100_000 } };
    let ids = 0;
    const provider = accountSpend(inner, scope, { store, clock: { now: () => NOW }, prices: PRICES, reservationId: () => `r${++ids}` });
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => provider.complete(request)));

    const refused = outcomes.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason);
    expect(refused.every((e) => e.reason === 'SPEND_CAP_REACHED' && e.data.cap === 'task')).toBe(true);
    expect(sent).toBe(10);
    expect(refused).toHaveLength(10);
    for (const account of spendAccounts(scope, NOW)) {
      const record = await readSpend(store, account.key);
      expect(record).toMatchObject({ calls: 10, tokensOut: 10_000, costMicroUsd: 100_000, reserved: {} });
    }
  }, 60_000);
});
