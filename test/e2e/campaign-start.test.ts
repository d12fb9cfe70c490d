import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CampaignLauncher } from '../../src/app/campaign/campaign-launcher.js';
import { CampaignRecord } from '../../src/core/campaign/campaign-record.js';
import { MAINTAINER, MIGRATION_ISSUE_BODY, startAppHarness, type AppHarness } from '../helpers/app-harness.js';

/**
 * A campaign starts from its home issue (docs/campaigns.md, "The App"): the `agent:campaign`
 * label or `/agent campaign start` by an admin of the home repository, the spec in the issue's
 * `agent` block; the intake writes the campaign record once and starts the fan-out once under
 * the campaign's id, whatever redeliveries ask.
 */
const ADMIN = 'ada';
const SPEC = `Migrate the fleet.

\`\`\`agent
version: 1
name: jakarta
title: Migrate to Jakarta Persistence
task:
  steps:
    - recipe: migrate-import
      from: javax.persistence
      to: jakarta.persistence
repositories:
  list: [acme/billing, acme/web]
pace:
  concurrency: 3
\`\`\`
`;
const BROKEN = SPEC.replace('concurrency: 3', 'concurrency: 300');

let h: AppHarness;
const executions = new Map<string, string>();
const starts: string[] = [];
const retries: { name?: string; retry?: boolean }[] = [];
const launcher: CampaignLauncher = {
  async start({ campaignId, key, name, retry }) {
    if (retry) {
      retries.push({ name, retry });
      return 'started';
    }
    starts.push(campaignId);
    if (executions.has(campaignId)) return 'running';
    executions.set(campaignId, key);
    return 'started';
  },
};

beforeAll(async () => {
  h = await startAppHarness({
    campaigns: launcher,
    users: { [ADMIN]: 'admin', [MAINTAINER]: 'write' },
    issues: [
      { number: 1, title: 'Migrate', body: MIGRATION_ISSUE_BODY, user: MAINTAINER },
      { number: 2, title: 'Jakarta campaign', body: SPEC, user: ADMIN },
      { number: 3, title: 'Broken campaign', body: BROKEN, user: ADMIN },
    ],
  });
}, 120_000);

afterAll(async () => h?.stop());

const campaignRecords = async () => (await h.store.list('campaigns/')).filter((k) => k.endsWith('/campaign.json'));

describe('starting a campaign from its home issue', () => {
  it('a maintainer without admin is refused; nothing is written or started', async () => {
    const res = await h.deliver('issue_comment', h.payloads.comment(2, '/agent campaign start', { sender: MAINTAINER }));
    expect(res.statusCode).toBe(202);
    expect(h.comments(2).at(-1)?.body).toContain(`@${MAINTAINER} needs at least \`admin\``);
    expect(await campaignRecords()).toEqual([]);
    expect(starts).toEqual([]);
  });

  it('the label by an admin writes the record once and starts the execution named by the campaign id; a redelivery and the command continue it', async () => {
    const payload = h.payloads.labeled(2, { label: 'agent:campaign', sender: ADMIN });
    const first = await h.deliver('issues', payload);
    expect(first.intake?.[0]).toMatchObject({ handled: true });
    const keys = await campaignRecords();
    expect(keys).toHaveLength(1);
    const record = CampaignRecord.parse(await h.json(keys[0]));
    expect(record).toMatchObject({ sender: ADMIN, home: { owner: 'acme', repo: 'orders', issue: 2 }, spec: { name: 'jakarta', pace: { concurrency: 3 } } });
    expect(record.campaignId).toMatch(/^jakarta-[a-z0-9]{12}$/);
    expect(keys[0]).toBe(`campaigns/acme/orders/2/${record.campaignId}/campaign.json`);
    expect(executions.get(record.campaignId)).toBe(keys[0]);

    // A redelivery of the same label event, then the command on the same issue and spec: the same campaign.
    h.clock.advance(60_000);
    await h.deliver('issues', payload, { deliveryId: first.deliveryId });
    await h.deliver('issue_comment', h.payloads.comment(2, '/agent campaign start', { sender: ADMIN }));
    expect(await campaignRecords()).toEqual(keys);
    expect(CampaignRecord.parse(await h.json(keys[0]))).toEqual(record);
    expect(starts).toEqual([record.campaignId, record.campaignId, record.campaignId]);
    expect(executions.size).toBe(1);
  });

  it('an invalid spec gets one comment naming the line, edited rather than repeated, and starts nothing', async () => {
    const before = starts.length;
    await h.deliver('issue_comment', h.payloads.comment(3, '/agent campaign start', { sender: ADMIN }));
    await h.deliver('issue_comment', h.payloads.comment(3, '/agent campaign start', { sender: ADMIN }));
    const problems = h.comments(3).filter((c) => c.body.includes('campaign spec'));
    expect(problems).toHaveLength(1);
    // `concurrency: 300` is on line 15 of the issue body.
    expect(problems[0].body).toMatch(/issue #3:15:\d+: pace\.concurrency/);
    expect(starts.length).toBe(before);
  });
});

describe('bulk commands on the home issue', () => {
  const campaignId = () => [...executions.keys()][0];

  it('status says where the campaign stands; on an issue without a campaign it says so', async () => {
    await h.deliver('issue_comment', h.payloads.comment(2, '/agent campaign status', { sender: MAINTAINER }));
    expect(h.comments(2).at(-1)?.body).toContain(`Campaign \`${campaignId()}\`: 0 of 0 repositories ended`);
    await h.deliver('issue_comment', h.payloads.comment(1, '/agent campaign status', { sender: ADMIN }));
    expect(h.comments(1).at(-1)?.body).toContain('No campaign was started on this issue');
  });

  it('retry-failed needs admin, starts one retry execution per comment, and a redelivery changes nothing', async () => {
    await h.deliver('issue_comment', h.payloads.comment(2, '/agent campaign retry-failed', { sender: MAINTAINER }));
    expect(retries).toEqual([]);
    const payload = h.payloads.comment(2, '/agent campaign retry-failed', { sender: ADMIN });
    const first = await h.deliver('issue_comment', payload);
    await h.deliver('issue_comment', payload, { deliveryId: first.deliveryId });
    const commentId = (payload as { comment: { id: number } }).comment.id;
    expect(retries).toEqual([{ name: `${campaignId()}-retry-${commentId}`, retry: true }]);
  });

  it('close by an admin records who closed it and why, once', async () => {
    await h.deliver('issue_comment', h.payloads.comment(2, '/agent campaign close the platform team moved to another plan', { sender: ADMIN }));
    const closed = await h.json(`campaigns/acme/orders/2/${campaignId()}/closed.json`);
    expect(closed).toMatchObject({ by: ADMIN, reason: 'the platform team moved to another plan' });
    expect(h.comments(2).at(-1)?.body).toContain('is closed');
  });
});
