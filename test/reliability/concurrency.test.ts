import { parseQueueEntryKey, queuePrefix } from '../../src/core/artifacts/queue-keys.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MAINTAINER, MIGRATION_ISSUE_BODY, startAppHarness, type AppHarness } from '../helpers/app-harness.js';

/**
 * 200 webhook deliveries at once, with duplicates among them (trigger identity, docs/architecture.md): exactly one
 * run per distinct trigger key, one lock holder per issue, one progress comment per run.
 *
 * Issues 1-30 get one trigger each (a label event or a comment id), delivered 5 times.
 * Issues 31-40 get two different triggers each (a label and a `/agent run` comment), each
 * delivered 2 or 3 times: only one of the two may start a run; the other gets the "already
 * active" reply. 30 x 5 + 10 x 5 = 200 deliveries, all in flight at once.
 */
const ISSUES = 40;
let h: AppHarness;

interface Trigger {
  issue: number;
  key: string;
  event: 'issues' | 'issue_comment';
  payload: Record<string, unknown>;
  deliveryId: string;
}

let triggers: Trigger[];
let statuses: number[];

beforeAll(async () => {
  h = await startAppHarness({
    issues: Array.from({ length: ISSUES }, (_, i) => ({ number: i + 1, title: `Task ${i + 1}`, body: MIGRATION_ISSUE_BODY, user: MAINTAINER })),
    policy: 'version: 1\nlimits:\n  runsPerHour: 1000\n  maxOpenPullRequests: 100\n',
  });
  triggers = [];
  const label = (issue: number): Trigger => {
    const deliveryId = `10000000-0000-4000-8000-${String(issue).padStart(12, '0')}`;
    const payload = h.payloads.labeled(issue) as { issue: { id: number; updated_at: string }; label: { id: number } };
    return { issue, key: `label-${payload.issue.id}-${payload.label.id}-${payload.issue.updated_at}`, event: 'issues', payload, deliveryId };
  };
  const comment = (issue: number): Trigger => {
    const commentId = 500_000 + issue;
    return {
      issue,
      key: `comment-${commentId}`,
      event: 'issue_comment',
      payload: h.payloads.comment(issue, '/agent run', { commentId }),
      deliveryId: `20000000-0000-4000-8000-${String(issue).padStart(12, '0')}`,
    };
  };
  const copies: Trigger[] = [];
  for (let issue = 1; issue <= 30; issue++) {
    const t = issue % 2 === 0 ? label(issue) : comment(issue);
    triggers.push(t);
    for (let n = 0; n < 5; n++) copies.push(t);
  }
  for (let issue = 31; issue <= ISSUES; issue++) {
    const pair = [label(issue), comment(issue)];
    triggers.push(...pair);
    for (const [i, t] of pair.entries()) for (let n = 0; n < (i === issue % 2 ? 3 : 2); n++) copies.push(t);
  }
  expect(copies).toHaveLength(200);
  // A fixed shuffle, so duplicates and competitors interleave.
  const order = copies.map((_, i) => (i * 73) % copies.length);
  expect(new Set(order).size).toBe(copies.length);
  // Comment redeliveries keep their comment id but get a new delivery id (a new event), as when
  // GitHub and a user's retry both arrive; label redeliveries reuse the delivery id.
  let serial = 0;
  const results = await Promise.all(
    order.map((i) => {
      const t = copies[i];
      const deliveryId = t.event === 'issues' ? t.deliveryId : `30000000-0000-4000-8000-${String(++serial).padStart(12, '0')}`;
      return h.deliver(t.event, t.payload, { deliveryId });
    }),
  );
  statuses = results.map((r) => r.statusCode);
  // Each intake also runs the run queue's admission pass over the repository's whole line: about
  // 70 s alone, more beside the rest of the suite.
}, 300_000);

afterAll(async () => h?.stop());

/** The runs started (their request.json) and, with `waiting`, those waiting in the run queue for a worker. */
async function requests(options: { waiting?: boolean } = {}): Promise<{ key: string; runId: string; issue: number; trigger: string }[]> {
  const objects = await h.objects();
  const started = objects
    .filter((o) => /^runs\/acme\/orders\/[^/]+\/request\.json$/.test(o.key))
    .map((o) => {
      const r = JSON.parse(o.text);
      return { key: o.key, runId: r.runId, issue: r.issue.number, trigger: r.trigger.key };
    });
  if (!options.waiting) return started;
  const waiting = objects
    .filter((o) => o.key.startsWith(`${queuePrefix('acme', 'orders')}`) && parseQueueEntryKey(o.key))
    .map((o) => {
      const r = JSON.parse(o.text).request;
      return { key: o.key, runId: r.runId, issue: r.issue.number, trigger: r.trigger.key };
    });
  // An entry stays in line a moment after its run's request.json is written (it leaves last): one run, counted once.
  const startedIds = new Set(started.map((r) => r.runId));
  return [...started, ...waiting.filter((r) => !startedIds.has(r.runId))];
}

it('every delivery is acknowledged with 202', () => {
  expect(statuses.filter((s) => s !== 202)).toEqual([]);
});

it('exactly one run per issue, and no trigger key has two runs', async () => {
  // Beyond the worker slots, runs wait in the queue: they count, each once.
  const runs = await requests({ waiting: true });
  const byIssue = new Map<number, string[]>();
  for (const r of runs) byIssue.set(r.issue, [...(byIssue.get(r.issue) ?? []), r.trigger]);
  expect([...byIssue.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: ISSUES }, (_, i) => i + 1));
  for (const [issue, keys] of byIssue) expect(keys, `issue ${issue}`).toHaveLength(1);
  const keys = runs.map((r) => r.trigger);
  expect(new Set(keys).size).toBe(keys.length);
  // Issues 1-30 had a single trigger: that is the one that ran.
  for (const t of triggers.filter((x) => x.issue <= 30)) expect(byIssue.get(t.issue)).toEqual([t.key]);
  // Issues 31-40: one of the two competitors ran.
  for (let issue = 31; issue <= ISSUES; issue++) expect(triggers.filter((t) => t.issue === issue).map((t) => t.key)).toContain(byIssue.get(issue)![0]);
});

it('one lock holder per issue, and it is the issue run', async () => {
  const runs = await requests({ waiting: true });
  for (let issue = 1; issue <= ISSUES; issue++) {
    const lock = await h.json(`locks/acme/orders/issues/${issue}.json`);
    expect(lock?.runId, `issue ${issue}`).toBe(runs.find((r) => r.issue === issue)!.runId);
    expect((await h.json(`issues/acme/orders/${issue}/latest.json`))?.runId).toBe(lock.runId);
  }
});

it('one worker notification per run, and nothing else queued', async () => {
  const runs = await requests();
  expect(h.pending().sort()).toEqual(runs.map((r) => r.key).sort());
});

it('one progress comment per issue; the losing competitor got one "already active" reply, no duplicates got anything', () => {
  for (let issue = 1; issue <= ISSUES; issue++) {
    const bot = h.comments(issue).filter((c) => c.user === h.botLogin);
    const progress = bot.filter((c) => c.body.includes('QUEUED'));
    expect(progress, `issue ${issue}`).toHaveLength(1);
    const active = bot.filter((c) => c.body.includes('already active'));
    // A duplicate of the winning trigger is silent; a competing trigger is answered, at most once per delivery of it.
    if (issue <= 30) expect(active, `issue ${issue}`).toEqual([]);
    else expect(active.length, `issue ${issue}`).toBeGreaterThanOrEqual(1);
    expect(bot.length - progress.length - active.length, `issue ${issue}`).toBe(0);
  }
});
