import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_POLICY, MAINTAINER, MIGRATION_CHANGED_FILES, READER, startAppHarness, type AppHarness } from '../helpers/app-harness.js';

/**
 * A path in `requireApprovalFor` stops the attempt in NEEDS_APPROVAL; `/agent approve` by a
 * maintainer starts attempt 2 of the same run, which passes that gate, completes and publishes.
 */

const POLICY = DEFAULT_POLICY.replace('  maxChangedFiles: 20\n', '  maxChangedFiles: 20\n  requireApprovalFor:\n    - pom.xml\n');
const ISSUE = 1;

describe('approval: NEEDS_APPROVAL, then /agent approve resumes the run', () => {
  let h: AppHarness;
  let prefix: string;

  beforeAll(async () => {
    expect(POLICY).toContain('requireApprovalFor');
    h = await startAppHarness({ policy: POLICY });
    expect((await h.deliver('issues', h.payloads.labeled(ISSUE))).statusCode).toBe(202);
    await h.drain();
    const latest = await h.json(`issues/acme/orders/${ISSUE}/latest.json`);
    prefix = `runs/acme/orders/${latest.runId}/`;
  }, 60_000);

  afterAll(async () => h?.stop());

  it('the first attempt stops in NEEDS_APPROVAL with an approval request naming pom.xml, and publishes nothing', async () => {
    const run = await h.json(`${prefix}run.json`);
    expect(run).toMatchObject({ status: 'NEEDS_APPROVAL', attempt: 1, pendingGate: expect.any(String) });
    const approval = await h.json(`${prefix}attempts/1/approval-request.json`);
    expect(approval).toMatchObject({ attempt: 1, gateId: run.pendingGate });
    expect(JSON.stringify(approval.violations)).toContain('pom.xml');
    const keys = (await h.objects()).map((o) => o.key);
    expect(keys.filter((k) => k.startsWith(`${prefix}candidate/`))).toEqual([]);
    expect(h.standin.repo(h.fullName).pulls.size).toBe(0);
    expect(await h.store.get(`locks/acme/orders/issues/${ISSUE}.json`)).toBeUndefined();
    const progress = h.comments(ISSUE).find((c) => c.user === h.botLogin)!;
    expect(progress.body).toContain('**Status:** NEEDS_APPROVAL');
    expect(progress.body).toContain('/agent approve');
  });

  it('a read-only user cannot approve: one short reply, no attempt 2', async () => {
    const before = h.comments(ISSUE).length;
    expect((await h.deliver('issue_comment', h.payloads.comment(ISSUE, '/agent approve', { sender: READER }))).statusCode).toBe(202);
    const added = h.comments(ISSUE).slice(before);
    expect(added).toHaveLength(1);
    expect(added[0].body).toContain(`@${READER}`);
    expect(await h.store.get(`${prefix}attempts/2/request.json`)).toBeUndefined();
    expect(h.pending()).toEqual([]);
  });

  it('/agent approve by a maintainer starts attempt 2, which passes the gate, completes and publishes a draft PR', async () => {
    const run = await h.json(`${prefix}run.json`);
    expect((await h.deliver('issue_comment', h.payloads.comment(ISSUE, '/agent approve', { sender: MAINTAINER }))).statusCode).toBe(202);
    expect(await h.json(`${prefix}attempts/2/request.json`)).toMatchObject({
      attempt: 2,
      reason: 'approve',
      sender: MAINTAINER,
      approvedGates: [run.pendingGate],
    });
    expect(await h.json(`${prefix}control/approve-2.json`)).toMatchObject({ by: MAINTAINER, gateId: run.pendingGate });
    expect(h.pending()).toEqual([`${prefix}attempts/2/request.json`]);
    await h.drain();
    expect(await h.json(`${prefix}run.json`)).toMatchObject({ attempt: 2 });
    const candidate = await h.json(`${prefix}candidate/pr-candidate.json`);
    expect(candidate).toMatchObject({ attempt: 2 });
    expect(candidate.files.map((f: { path: string }) => f.path).sort()).toEqual(MIGRATION_CHANGED_FILES);
    const published = await h.json(`${prefix}publish.json`);
    expect(published).toMatchObject({ attempt: 2, treeSha: candidate.headTreeSha });
    const pulls = [...h.standin.repo(h.fullName).pulls.values()];
    expect(pulls).toHaveLength(1);
    expect(pulls[0]).toMatchObject({ draft: true, head: candidate.headBranch, number: published.prNumber });
    expect(await h.store.get(`locks/acme/orders/issues/${ISSUE}.json`)).toBeUndefined();
  });
});
