import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAINTAINER, startAppHarness, type AppHarness } from '../helpers/app-harness.js';

/**
 * An issue written in prose by someone who cannot write to the repository: the steps read from it
 * are grounded and run, but the change waits for a maintainer's approval of exactly that change;
 * `/agent approve` lets attempt 2 publish, with the block that ran at the top of the PR body.
 */
const ISSUE = 1;
const OUTSIDER = 'stranger';

describe("whose words: an outsider's grounded request stops for approval", () => {
  let h: AppHarness;
  let prefix: string;

  beforeAll(async () => {
    h = await startAppHarness({
      issues: [{ number: ISSUE, title: 'Bump javax.ws.rs-api from 2.1.1 to 2.1.2', body: 'The release fixes a header parsing bug.', user: OUTSIDER }],
    });
    expect((await h.deliver('issues', h.payloads.labeled(ISSUE))).statusCode).toBe(202);
    await h.drain();
    prefix = `runs/acme/orders/${(await h.json(`issues/acme/orders/${ISSUE}/latest.json`)).runId}/`;
  }, 60_000);

  afterAll(async () => h?.stop());

  it('the intake records the author and that they cannot write; the first attempt stops in NEEDS_APPROVAL on the outsider gate and publishes nothing', async () => {
    expect((await h.json(`${prefix}request.json`)).issue).toMatchObject({ author: OUTSIDER, authorCanWrite: false });
    const run = await h.json(`${prefix}run.json`);
    expect(run).toMatchObject({ status: 'NEEDS_APPROVAL', attempt: 1 });
    const approval = await h.json(`${prefix}attempts/1/approval-request.json`);
    expect(approval.violations.map((v: { rule: string }) => v.rule)).toContain('OUTSIDER_WORDS');
    expect(approval.changes.map((c: { path: string }) => c.path)).toEqual(['order-service/pom.xml']);
    // The publisher recomputed the same gate from the request alone.
    expect(await h.json(`${prefix}control/gate-1.json`)).toMatchObject({ gateId: approval.gateId });
    expect(h.standin.repo(h.fullName).pulls.size).toBe(0);
  });

  it('/agent approve by a maintainer: attempt 2 passes the gate and publishes a draft whose body opens with the block that ran', async () => {
    expect((await h.deliver('issue_comment', h.payloads.comment(ISSUE, '/agent approve', { sender: MAINTAINER }))).statusCode).toBe(202);
    await h.drain();
    const pulls = [...h.standin.repo(h.fullName).pulls.values()];
    expect(pulls).toHaveLength(1);
    expect(pulls[0].body).toMatch(/^<!-- draftsman:run-report [^\n]*-->\n\*\*Understood as:\*\*/);
    expect(pulls[0].body).toContain('package: javax.ws.rs:javax.ws.rs-api');
  });
});
