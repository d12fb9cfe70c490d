import validator from 'asl-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CampaignItem } from '../../../src/core/campaign/campaign-record.js';
import { CONTENT_REQUESTS_PER_RUN } from '../../../src/core/campaign/pace.js';
import { trackingMarker } from '../../../src/core/campaign/tracking-comment.js';
import { KINDS, ADMIN, startFleet, type Fleet } from './campaign-fleet.js';

/**
 * The campaign state machine, offline (docs/campaigns.md): its definition validated by
 * asl-validator, then executed by aws-local-stepfunctions with the real campaign function
 * behind its task states, against the GitHub stand-in with targets of mixed policies, each
 * entering the App's run chain (dispatcher, worker, publisher) and ending in a tracked outcome.
 *
 * aws-local-stepfunctions (v3) runs a Map's ItemProcessor inline whatever its ProcessorConfig:
 * the DISTRIBUTED mode's child executions run here as iterations of the same process, with
 * MaxConcurrencyPath honoured and ToleratedFailurePercentagePath not (any item failure fails the
 * map). The item branch never fails for a run's outcome (a declined or failed run is a result),
 * so the tolerance is for faults alone. 8 targets here (one of each kind, two plain migrations); `state-machine-fleet.test.ts` runs 50.
 */
const COUNT = 8;
let f: Fleet;

beforeAll(async () => {
  f = await startFleet(COUNT, { concurrency: 4, startsPerMinute: 10, missing: 'acme/not-installed' });
}, 120_000);

afterAll(async () => f?.h.stop());

describe('the campaign state machine definition', () => {
  it('is valid ASL (asl-validator) with a Distributed Map bounded by the spec', () => {
    const { isValid, errors } = validator(f.definition(), { checkPaths: true, checkArn: true });
    expect(errors).toEqual([]);
    expect(isValid).toBe(true);
    const map = (f.definition() as { States: Record<string, Record<string, unknown>> }).States.Repositories;
    expect(map).toMatchObject({
      Type: 'Map',
      MaxConcurrencyPath: '$.plan.concurrency',
      ToleratedFailurePercentagePath: '$.plan.toleratedFailurePercentage',
      ItemProcessor: { ProcessorConfig: { Mode: 'DISTRIBUTED', ExecutionType: 'STANDARD' } },
    });
  });
});

describe('a campaign over a fleet of mixed policies', () => {
  it('starts from the home issue, runs every target through the run chain, and tracks each outcome in one comment', async () => {
    const t0 = Date.now();
    expect((await f.h.deliver('issues', f.h.payloads.labeled(1, { label: 'agent:campaign', sender: ADMIN }))).statusCode).toBe(202);
    expect(f.started).toHaveLength(1);
    const result = (await f.execute()) as { outcomes: { repository: string; state: string }[]; counts?: unknown };
    const ms = Date.now() - t0;

    // Every target ended as its policy says; the one without the App is reported.
    const expected = Object.fromEntries(f.targets.map((t) => [t.name, KINDS[t.kind].state]));
    expected['acme/not-installed'] = 'declined';
    expect(Object.fromEntries(result.outcomes.map((o) => [o.repository, o.state]))).toEqual(expected);

    const prefix = f.started[0].key.replace(/campaign\.json$/, 'items/');
    const items = await Promise.all((await f.h.store.list(prefix)).map(async (k) => CampaignItem.parse(await f.h.json(k))));
    expect(items).toHaveLength(COUNT + 1);
    const reasons = Object.fromEntries(items.map((i) => [i.repository, `${i.state} ${i.reason ?? ''}`.trim()]));
    for (const t of f.targets) {
      if (t.kind === 'disabled') expect(reasons[t.name]).toBe('declined AGENT_DISABLED');
      if (t.kind === 'readonly') expect(reasons[t.name]).toMatch(/^declined SENDER_PERMISSION/);
      if (t.kind === 'approval') expect(items.find((i) => i.repository === t.name)).toMatchObject({ status: 'NEEDS_APPROVAL' });
    }
    expect(reasons['acme/not-installed']).toBe('declined APP_NOT_INSTALLED');

    // Each changed target: a draft PR from its ordinary run, whose request records the campaign.
    for (const t of f.targets.filter((x) => x.kind === 'ok')) {
      const item = items.find((i) => i.repository === t.name)!;
      const repo = f.h.standin.repo(t.name);
      expect([...repo.pulls.values()].map((p) => p.number)).toEqual([item.pullRequest!.number]);
      const request = await f.h.json(`runs/${t.name}/${item.runId}/request.json`);
      expect(request).toMatchObject({ trigger: { kind: 'campaign', sender: ADMIN }, campaign: { id: f.started[0].campaignId, home: 'acme/orders#1' } });
    }
    // Declined before a run: no issue, no run in that repository.
    for (const t of f.targets.filter((x) => x.kind === 'disabled' || x.kind === 'readonly')) {
      expect(f.h.standin.repo(t.name).issues.size).toBe(0);
    }

    // One tracking comment on the home issue, listing every repository, with counts and a burndown.
    const tracking = f.h.comments(1).filter((c) => c.body.includes(trackingMarker(f.started[0].campaignId)));
    expect(tracking).toHaveLength(1);
    for (const t of f.targets) expect(tracking[0].body).toContain(`| ${t.name} | ${KINDS[t.kind].state} |`);
    const counted = (state: string) => Object.values(expected).filter((s) => s === state).length;
    expect(tracking[0].body).toContain(`${COUNT + 1} of ${COUNT + 1} repositories ended`);
    expect(tracking[0].body).toContain(`${counted('changed')} changed`);
    expect(tracking[0].body).toMatch(/\| 2026-02-03 \| \d+ \| \d+ \|/);

    // No repository got more content-creating requests than the pace reckons per run.
    const calls = f.contentCalls();
    for (const t of f.targets) expect(calls.get(t.name) ?? 0).toBeLessThanOrEqual(CONTENT_REQUESTS_PER_RUN);
    console.log(`campaign over ${COUNT + 1} repositories: ${ms} ms; content-creating calls per repository: ${JSON.stringify(Object.fromEntries(calls))}`);
  }, 240_000);

  it('retry-failed puts only the failed repositories through again; pause holds starts until resume; after close, none starts', async () => {
    const prefix = f.started[0].key.replace(/campaign\.json$/, 'items/');
    const fail = async (repository: string) => {
      const key = `${prefix}${repository}.json`;
      const item = CampaignItem.parse(await f.h.json(key));
      await f.h.store.put(key, JSON.stringify({ ...item, state: 'failed', reason: 'STUCK' }));
    };
    await fail('acme/not-installed');
    await f.h.deliver('issue_comment', f.h.payloads.comment(1, '/agent campaign retry-failed', { sender: ADMIN }));
    expect(f.started.at(-1)).toMatchObject({ retry: true });
    const again = (await f.execute()) as { outcomes: { repository: string; state: string }[] };
    expect(again.outcomes).toEqual([{ repository: 'acme/not-installed', state: 'declined' }]);

    // Paused: a start waits and starts nothing; resumed: it goes on.
    await f.h.deliver('issue_comment', f.h.payloads.comment(1, '/agent campaign pause', { sender: ADMIN }));
    const start = { action: 'start', key: f.started[0].key, repository: 'acme/not-installed' };
    const key = `${prefix}acme/not-installed.json`;
    await f.h.store.put(key, JSON.stringify({ ...CampaignItem.parse(await f.h.json(key)), state: 'pending' }));
    expect(await f.handler(start)).toEqual({ state: 'waiting', waitSeconds: 300 });
    expect(await f.h.json(key)).toMatchObject({ state: 'waiting', reason: 'PAUSED' });
    await f.h.deliver('issue_comment', f.h.payloads.comment(1, '/agent campaign resume', { sender: ADMIN }));
    expect(await f.handler(start)).toEqual({ state: 'declined', waitSeconds: 0 });

    await f.h.deliver('issue_comment', f.h.payloads.comment(1, '/agent campaign close enough', { sender: ADMIN }));
    await fail('acme/not-installed');
    await f.h.deliver('issue_comment', f.h.payloads.comment(1, '/agent campaign retry-failed', { sender: ADMIN }));
    const closed = (await f.execute()) as { outcomes: { repository: string; state: string }[] };
    expect(closed.outcomes).toEqual([{ repository: 'acme/not-installed', state: 'closed' }]);
    const tracking = f.h.comments(1).filter((c) => c.body.includes(trackingMarker(f.started[0].campaignId)));
    expect(tracking).toHaveLength(1);
    expect(tracking[0].body).toContain('(closed)');
    expect(tracking[0].body).toContain('| acme/not-installed | closed |');
  }, 120_000);
});
