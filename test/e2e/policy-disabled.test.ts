import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
    expect((await deliver(h)).statusCode).toBe(202);
    const comments = h.comments(issue);
    expect(comments).toHaveLength(1);
    expect(comments[0].body).toContain('agent.enabled: false');
    expect(comments[0].body.length).toBeLessThan(200);
    expect((await h.objects()).map((o) => o.key)).toEqual([]);
    expect(h.pending()).toEqual([]);
  });
});
