import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_POLICY, MAINTAINER, startAppHarness, type AppHarness } from '../helpers/app-harness.js';

/**
 * A command comment acts at most once (docs/trust-chain.md, "Commands act once"): a signed
 * `/agent approve`, captured and delivered again under a new delivery id after a second run of
 * the issue stopped at its own gate, approves nothing; the second run stays in NEEDS_APPROVAL
 * and only one pull request exists.
 */
const POLICY = DEFAULT_POLICY.replace('  maxChangedFiles: 20\n', '  maxChangedFiles: 20\n  requireApprovalFor:\n    - pom.xml\n');
const ISSUE = 1;

describe('a replayed /agent approve', () => {
  let h: AppHarness;
  let second = '';

  beforeAll(async () => {
    h = await startAppHarness({ policy: POLICY });
    await h.deliver('issues', h.payloads.labeled(ISSUE));
    await h.drain();
    const approve = h.payloads.comment(ISSUE, '/agent approve', { sender: MAINTAINER, commentId: 7_001 });
    expect((await h.deliver('issue_comment', approve)).statusCode).toBe(202);
    await h.drain();
    expect(h.standin.repo(h.fullName).pulls.size).toBe(1);
    // A second run of the issue, later, stops at its own gate.
    h.clock.advance(60 * 60 * 1000);
    await h.deliver('issues', h.payloads.labeled(ISSUE));
    await h.drain();
    second = (await h.json(`issues/acme/orders/${ISSUE}/latest.json`)).runId;
    expect(await h.json(`runs/acme/orders/${second}/run.json`)).toMatchObject({ status: 'NEEDS_APPROVAL' });
    // The captured approve, delivered again (a new delivery id; GitHub's Redeliver does the same).
    expect((await h.deliver('issue_comment', approve)).statusCode).toBe(202);
    await h.drain();
  }, 180_000);

  afterAll(async () => h?.stop());

  it('approves nothing: no attempt 2 of the second run, one pull request', async () => {
    expect(await h.store.get(`runs/acme/orders/${second}/attempts/2/request.json`)).toBeUndefined();
    expect(await h.json(`runs/acme/orders/${second}/run.json`)).toMatchObject({ status: 'NEEDS_APPROVAL' });
    expect(h.standin.repo(h.fullName).pulls.size).toBe(1);
  });
});

/**
 * A command is about the run that existed when it was written: a `/agent cancel` typed while the
 * first run of the issue was current, delivered only after a second run started (a late
 * delivery, or GitHub's Redeliver of one that failed), cancels nothing.
 */
describe('a cancel comment older than the run', () => {
  let h: AppHarness;
  let second = '';

  beforeAll(async () => {
    h = await startAppHarness();
    await h.deliver('issues', h.payloads.labeled(ISSUE));
    await h.drain();
    const written = h.clock.now();
    h.clock.advance(60 * 60 * 1000);
    await h.deliver('issues', h.payloads.labeled(ISSUE));
    second = (await h.json(`issues/acme/orders/${ISSUE}/latest.json`)).runId;
    const cancel = h.payloads.comment(ISSUE, '/agent cancel', { sender: MAINTAINER, createdAt: written });
    expect((await h.deliver('issue_comment', cancel)).statusCode).toBe(202);
    await h.drain();
  }, 180_000);

  afterAll(async () => h?.stop());

  it('is refused with a reply naming the run, and the second run goes on to publish', async () => {
    expect(h.comments(ISSUE).some((c) => c.body.includes(`before run \`${second}\` started`))).toBe(true);
    expect(await h.store.get(`runs/acme/orders/${second}/control/cancel.json`)).toBeUndefined();
    expect(await h.json(`runs/acme/orders/${second}/publish.json`)).toMatchObject({ runId: second });
  });
});
