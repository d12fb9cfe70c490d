import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startAppHarness, type AppHarness } from '../helpers/app-harness.js';

/**
 * Issue #36, findings 2 and 3, through the App harness and the GitHub stand-in:
 *
 * - A lost answer on a POST (GitHub created the object, the App heard a 502) must not make a
 *   second one: comments, refs, pull requests, labels (docs/operations.md, "Create calls").
 * - A secondary rate limit on opening the pull request that is longer than an invocation may
 *   wait leaves the branch without a PR: the publisher records a retry with `notBefore`, the
 *   sweeper re-drives it, and after an hour in all ends the run with a comment saying how to
 *   replay it. A publisher that dead-lettered for another reason is found and re-driven too.
 */

const INVALID_POLICY = `version: 1
agent:
  maxChangedFiles: lots
`;

const MINUTE = 60_000;
const isPost = (suffix: RegExp) => (r: { method: string; path: string }) => r.method === 'POST' && suffix.test(r.path);

describe('a lost answer on a POST creates nothing twice', () => {
  let h: AppHarness;
  beforeAll(async () => {
    h = await startAppHarness();
  }, 60_000);
  afterAll(async () => h?.stop());

  const runOf = async (issue: number) => {
    const latest = await h.json(`issues/acme/orders/${issue}/latest.json`);
    const prefix = `runs/acme/orders/${latest.runId}/`;
    return { prefix, request: await h.json(`${prefix}request.json`) };
  };

  it('the analysis report posted once when the answer to its POST was lost', async () => {
    expect((await h.deliver('issue_comment', h.payloads.comment(3, '/agent analyze'))).statusCode).toBe(202);
    // The intake's progress comment is posted; the next comment POST is the publisher's report.
    h.standin.faults.inject({ kind: 'lost-answer', count: 1, match: isPost(/\/issues\/3\/comments$/) });
    await h.drain();
    expect(h.standin.faults.pending()).toBe(0);
    const reports = h.comments(3).filter((c) => c.body.includes('draftsman:analysis-report'));
    expect(reports).toHaveLength(1);
    expect(reports[0].user).toBe(h.botLogin);
  });

  it('the ref and the pull request are created once, and the labels set once, when each answer is lost', async () => {
    expect((await h.deliver('issues', h.payloads.labeled(4))).statusCode).toBe(202);
    h.standin.faults.inject({ kind: 'lost-answer', count: 1, match: isPost(/\/git\/refs$/) });
    h.standin.faults.inject({ kind: 'lost-answer', count: 1, match: isPost(/\/pulls$/) });
    h.standin.faults.inject({ kind: 'lost-answer', count: 1, match: isPost(/\/issues\/\d+\/labels$/) });
    await h.drain();
    expect(h.standin.faults.pending()).toBe(0);
    const { prefix, request } = await runOf(4);
    const pulls = [...h.standin.repo(h.fullName).pulls.values()].filter((p) => p.head === request.agentBranch);
    expect(pulls).toHaveLength(1);
    expect(await h.json(`${prefix}publish.json`)).toMatchObject({ prNumber: pulls[0].number });
    // Every create was sent once: the lost answer was followed by a lookup, not a second POST.
    const posts = (suffix: RegExp) => h.standin.calls.filter((c) => c.method === 'POST' && suffix.test(c.path));
    expect(posts(/\/git\/refs$/)).toHaveLength(1);
    expect(posts(/\/pulls$/)).toHaveLength(1);
    // Labels are the exception: adding a label the PR has is a no-op on GitHub, so the repeat is harmless.
    expect(pulls[0].labels?.length).toBeGreaterThan(0);
    expect(new Set(pulls[0].labels).size).toBe(pulls[0].labels?.length);
  });

  it("a progress comment's lost answer leaves one progress comment", async () => {
    h.standin.faults.inject({ kind: 'lost-answer', count: 1, match: isPost(/\/issues\/5\/comments$/) });
    await h.deliver('issues', h.payloads.labeled(5));
    expect(h.standin.faults.pending()).toBe(0);
    expect(h.comments(5).filter((c) => c.body.includes('draftsman:progress'))).toHaveLength(1);
  });
});

describe("a lost answer on the webhook's marked comment", () => {
  let h: AppHarness;
  beforeAll(async () => {
    h = await startAppHarness({ policy: INVALID_POLICY });
  }, 60_000);
  afterAll(async () => h?.stop());

  it('posts one Action Required comment', async () => {
    h.standin.faults.inject({ kind: 'lost-answer', count: 1, match: isPost(/\/issues\/1\/comments$/) });
    expect((await h.deliver('issues', h.payloads.labeled(1))).statusCode).toBe(202);
    expect(h.standin.faults.pending()).toBe(0);
    expect(h.comments(1)).toHaveLength(1);
  });

  it('a marker in a comment someone else wrote counts for nothing', async () => {
    const repo = h.standin.repo(h.fullName);
    const stranger = h.standin.state.users.get('rick')!;
    const forged = {
      id: 990_001,
      issueNumber: 2,
      body: '<!-- draftsman:policy-error -->\nnot the App',
      user: stranger,
      createdAt: h.clock.now(),
      updatedAt: h.clock.now(),
    };
    repo.comments.set(forged.id, forged);
    // A 502 GitHub did not carry out: the lookup must not take the stranger's comment for the App's.
    h.standin.faults.inject({ kind: '502', count: 1, match: isPost(/\/issues\/2\/comments$/) });
    expect((await h.deliver('issues', h.payloads.labeled(2))).statusCode).toBe(202);
    const mine = h.comments(2).filter((c) => c.user === h.botLogin);
    expect(mine).toHaveLength(1);
    expect(repo.comments.get(forged.id)?.body).toContain('not the App');
  });
});

describe('a pull request GitHub will not open for longer than an invocation can wait', () => {
  let h: AppHarness;
  beforeAll(async () => {
    h = await startAppHarness();
  }, 60_000);
  afterAll(async () => h?.stop());
  // A test that fails midway must not leave its faults to the next one.
  afterEach(() => h?.standin.faults.clear());

  const runOf = async (issue: number) => {
    const latest = await h.json(`issues/acme/orders/${issue}/latest.json`);
    const prefix = `runs/acme/orders/${latest.runId}/`;
    return { prefix, runId: latest.runId as string, request: await h.json(`${prefix}request.json`) };
  };
  const pullsFor = (branch: string) => [...h.standin.repo(h.fullName).pulls.values()].filter((p) => p.head === branch);
  const branchExists = (branch: string) =>
    h.standin.calls.some((c) => c.method === 'POST' && /\/git\/refs$/.test(c.path) && (c.body as { ref?: string })?.ref === `refs/heads/${branch}`);
  const progressOf = (issue: number) => h.comments(issue).find((c) => c.body.includes('draftsman:progress'))!.body;

  it('is retried by the sweeper after the rate limit, and opened', async () => {
    expect((await h.deliver('issues', h.payloads.labeled(1))).statusCode).toBe(202);
    // Ten minutes: longer than the client waits (maxRateLimitWaitSeconds), shorter than the hour.
    h.standin.faults.inject({ kind: 'secondary-rate-limit', count: 3, retryAfter: 600, match: isPost(/\/pulls$/) });
    const dispatched = await h.drain({ retries: 2, throwOnError: false });
    const { prefix, runId, request } = await runOf(1);
    // Nothing dead-lettered: the publisher recorded the retry instead of failing three times.
    expect(dispatched.filter((d) => d.fn === 'publisher' && d.error)).toEqual([]);
    expect(h.standin.faults.pending()).toBe(2);
    h.standin.faults.clear();
    expect(branchExists(request.agentBranch)).toBe(true);
    expect(pullsFor(request.agentBranch)).toHaveLength(0);
    const retry = await h.json(`${prefix}control/publish-retry.json`);
    expect(retry).toMatchObject({ runId, attempt: 1, tries: 1, notBefore: new Date(h.clock.now() + 600_000).toISOString() });
    expect(progressOf(1)).toMatch(/rate limit/i);
    expect(await h.json('locks/acme/orders/issues/1.json')).toBeDefined();

    // Before notBefore the sweeper leaves it alone.
    h.clock.advance(5 * MINUTE);
    expect((await h.sweep()).publications).toEqual([]);
    await h.drain();
    expect(pullsFor(request.agentBranch)).toHaveLength(0);

    h.clock.advance(10 * MINUTE);
    const report = await h.sweep();
    expect(report.publications).toEqual([expect.objectContaining({ runId, action: 'redriven' })]);
    await h.drain();
    expect(pullsFor(request.agentBranch)).toHaveLength(1);
    expect(await h.json(`${prefix}publish.json`)).toMatchObject({ prNumber: pullsFor(request.agentBranch)[0].number });
    expect(progressOf(1)).toContain('PUBLISHED');
    expect(await h.json('locks/acme/orders/issues/1.json')).toBeUndefined();
    // The next sweep has nothing to do for it.
    h.clock.advance(15 * MINUTE);
    expect((await h.sweep()).publications).toEqual([]);
  });

  it('ends after an hour in all with a comment that says the PR could not be opened and how to replay it', async () => {
    expect((await h.deliver('issues', h.payloads.labeled(2))).statusCode).toBe(202);
    h.standin.faults.inject({ kind: 'secondary-rate-limit', count: 100, retryAfter: 1800, match: isPost(/\/pulls$/) });
    await h.drain({ retries: 2, throwOnError: false });
    const { prefix, runId, request } = await runOf(2);
    expect(await h.json(`${prefix}control/publish-retry.json`)).toMatchObject({ tries: 1 });

    h.clock.advance(31 * MINUTE);
    expect((await h.sweep()).publications).toEqual([expect.objectContaining({ runId, action: 'redriven' })]);
    await h.drain({ retries: 2, throwOnError: false });
    expect(await h.json(`${prefix}control/publish-retry.json`)).toMatchObject({ tries: 2 });

    h.clock.advance(31 * MINUTE);
    const report = await h.sweep();
    expect(report.publications).toEqual([expect.objectContaining({ runId, action: 'ended', commentUpdated: true })]);
    await h.drain({ retries: 2, throwOnError: false });
    h.standin.faults.clear();
    expect(pullsFor(request.agentBranch)).toHaveLength(0);
    const body = progressOf(2);
    expect(body).toContain('FAILED');
    expect(body).toContain('could not be opened');
    expect(body).toContain(request.agentBranch);
    expect(body).toContain(`draftsman replay <bucket> ${prefix}candidate/pr-candidate.json`);
    expect(await h.json(`${prefix}run.json`)).toMatchObject({ status: 'FAILED', reason: 'NOT_PUBLISHED' });
    expect(await h.json('locks/acme/orders/issues/2.json')).toBeUndefined();
    // Ended for good: later sweeps do not re-drive it.
    h.clock.advance(15 * MINUTE);
    expect((await h.sweep()).publications).toEqual([]);
  });

  it('a publisher dead-lettered for another reason is found by the sweeper and re-driven', async () => {
    expect((await h.deliver('issues', h.payloads.labeled(3))).statusCode).toBe(202);
    // GitHub answers 502 to every try of opening the PR (each client try, each Lambda retry).
    h.standin.faults.inject({ kind: '502', count: 1000, match: isPost(/\/pulls$/) });
    const dispatched = await h.drain({ retries: 2, throwOnError: false });
    h.standin.faults.clear();
    const { prefix, runId, request } = await runOf(3);
    expect(dispatched.filter((d) => d.fn === 'publisher' && d.key.endsWith('pr-candidate.json') && d.error)).toHaveLength(3);
    expect(await h.json(`${prefix}run.json`)).toMatchObject({ status: 'COMPLETED' });
    expect(pullsFor(request.agentBranch)).toHaveLength(0);

    // Within the publisher's own retries the sweeper waits.
    expect((await h.sweep()).publications).toEqual([]);
    h.clock.advance(20 * MINUTE);
    const report = await h.sweep();
    expect(report.publications).toEqual([expect.objectContaining({ runId, action: 'redriven' })]);
    await h.drain();
    expect(pullsFor(request.agentBranch)).toHaveLength(1);
    expect(progressOf(3)).toContain('PUBLISHED');
  });
});
