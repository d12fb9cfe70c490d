import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveryKey, parseDeliveryKey } from '../../src/core/artifacts/keys.js';
import { DEFAULT_POLICY, startAppHarness, type AppHarness } from '../helpers/app-harness.js';

/** `agent.enabled: false` on the default branch: every trigger gets one short reply and nothing runs. */

const DISABLED_POLICY = DEFAULT_POLICY.replace('agent:\n', 'agent:\n  enabled: false\n');

describe('a repository whose policy disables the App', () => {
  let h: AppHarness;

  beforeAll(async () => {
    expect(DISABLED_POLICY).toContain('enabled: false');
    h = await startAppHarness({ policy: DISABLED_POLICY });
  }, 60_000);

  afterAll(async () => h?.stop());

  it.each([
    ['a label', 1, (x: AppHarness) => x.deliver('issues', x.payloads.labeled(1))],
    ['/agent run', 2, (x: AppHarness) => x.deliver('issue_comment', x.payloads.comment(2, '/agent run'))],
  ])('%s gets one short reply and starts nothing', async (_what, issue, deliver) => {
    const delivered = await deliver(h);
    expect(delivered.statusCode).toBe(202);
    const comments = h.comments(issue);
    expect(comments).toHaveLength(1);
    expect(comments[0].body).toContain('agent.enabled: false');
    expect(comments[0].body.length).toBeLessThan(200);
    // Only the deliveries the webhook stored for the intake: no run, no lock, no request.
    const keys = (await h.objects()).map((o) => o.key);
    expect(keys).toContain(deliveryKey(delivered.deliveryId));
    expect(keys.filter((k) => parseDeliveryKey(k) === undefined)).toEqual([]);
    expect(h.pending()).toEqual([]);
  });
});
