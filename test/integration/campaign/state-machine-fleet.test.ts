import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTENT_REQUESTS_PER_RUN, paceLimits } from '../../../src/core/campaign/pace.js';
import { trackingMarker } from '../../../src/core/campaign/tracking-comment.js';
import { ADMIN, KINDS, startFleet, type Fleet } from './campaign-fleet.js';

/**
 * The campaign state machine over 50 target repositories of mixed policies (the issue's proof),
 * as state-machine.test.ts runs 8: slower (about two minutes on two cores), so it is its own
 * file. Run it with `npx vitest run test/integration/campaign/state-machine-fleet.test.ts`.
 */
const COUNT = 50;
let f: Fleet;

beforeAll(async () => {
  f = await startFleet(COUNT, { concurrency: 5, startsPerMinute: 10 });
}, 300_000);

afterAll(async () => f?.h.stop());

describe('a campaign over 50 repositories', () => {
  it('ends in 50 tracked outcomes, each as its repository policy says, within the pace', async () => {
    const t0 = Date.now();
    const clock0 = f.h.clock.now();
    await f.h.deliver('issues', f.h.payloads.labeled(1, { label: 'agent:campaign', sender: ADMIN }));
    const result = (await f.execute()) as { outcomes: { repository: string; state: string }[] };
    const expected = Object.fromEntries(f.targets.map((t) => [t.name, KINDS[t.kind].state]));
    expect(Object.fromEntries(result.outcomes.map((o) => [o.repository, o.state]))).toEqual(expected);
    const tracking = f.h.comments(1).filter((c) => c.body.includes(trackingMarker(f.started[0].campaignId)));
    expect(tracking).toHaveLength(1);
    expect(tracking[0].body).toContain(`${COUNT} of ${COUNT} repositories ended`);
    // The runs started no faster than the pace: at most perHour in the simulated hours the campaign took.
    const hours = (f.h.clock.now() - clock0) / 3_600_000;
    const runs = f.targets.filter((t) => f.h.standin.repo(t.name).issues.size > 0).length;
    expect(runs).toBeLessThanOrEqual(Math.ceil(hours + 1) * paceLimits(10).perHour);
    for (const [repo, n] of f.contentCalls()) if (repo !== 'acme/orders') expect(n).toBeLessThanOrEqual(CONTENT_REQUESTS_PER_RUN);
    console.log(`campaign over ${COUNT} repositories: ${Date.now() - t0} ms wall, ${hours.toFixed(2)} h simulated, ${runs} runs`);
  }, 600_000);
});
