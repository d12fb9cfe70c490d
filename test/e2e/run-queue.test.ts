import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queuePrefix } from '../../src/core/artifacts/queue-keys.js';
import { DEFAULT_POLICY, MAINTAINER, MIGRATION_ISSUE_BODY, startAppHarness, type AppHarness } from '../helpers/app-harness.js';

const HOUR = 60 * 60 * 1000;
const issues = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ number: i + 1, title: `Migrate to Jakarta Persistence (${i + 1})`, body: MIGRATION_ISSUE_BODY, user: MAINTAINER }));

/** The issue of each run whose request.json exists, in the order the admissions wrote them (the run queue's order). */
async function startedIssues(h: AppHarness): Promise<number[]> {
  const requests = (await h.objects()).filter((o) => /^runs\/[^/]+\/[^/]+\/[^/]+\/request\.json$/.test(o.key));
  return requests
    .map((o) => JSON.parse(o.text) as { issue: { number: number }; runId: string })
    .map((r) => r.issue.number)
    .sort((a, b) => a - b);
}

const progress = (h: AppHarness, issue: number) => h.comments(issue).find((c) => c.user === h.botLogin)?.body ?? '';
const waitingKeys = async (h: AppHarness) => (await h.objects()).map((o) => o.key).filter((k) => k.startsWith(queuePrefix(h.owner, h.repo)));

/** Runs over the repository's limits wait in an ordered queue and start when a slot frees (docs/architecture.md, "The run queue"). */
describe('the run queue', () => {
  describe('ten runs over limits.runsPerHour: 3', () => {
    let h: AppHarness;
    beforeAll(async () => {
      h = await startAppHarness({ policy: DEFAULT_POLICY.replace('runsPerHour: 100', 'runsPerHour: 3'), issues: issues(10) });
    }, 60_000);
    afterAll(async () => h?.stop());

    it('all complete, in order, none refused; a waiting run shows its place', async () => {
      for (let issue = 1; issue <= 10; issue++) expect((await h.deliver('issues', h.payloads.labeled(issue))).statusCode).toBe(202);
      // Three start at once; seven wait, each told its place in line.
      expect(await startedIssues(h)).toEqual([1, 2, 3]);
      expect(await waitingKeys(h)).toHaveLength(7);
      expect(progress(h, 4)).toContain('waiting: 1st in line');
      expect(progress(h, 5)).toContain('waiting: 2nd in line');
      expect(progress(h, 10)).toContain('waiting: 7th in line');
      expect(progress(h, 10)).toContain('limits.runsPerHour');

      await h.drain();
      // The first three ran to their pull requests; the hour's slots are still taken, so nobody else started.
      expect(h.standin.repo(h.fullName).pulls.size).toBe(3);
      expect(await startedIssues(h)).toEqual([1, 2, 3]);

      const admittedPerHour: string[][] = [];
      for (let hour = 1; hour <= 3; hour++) {
        h.clock.advance(HOUR);
        const before = h.queueWakes.length;
        const report = await h.sweep();
        expect(report.woke).toBe(true);
        expect(report.runsFailed).toEqual([]);
        await h.drain();
        admittedPerHour.push(h.queueWakes.slice(before).flatMap((w) => ('admitted' in w ? w.admitted : [])));
      }
      // Three an hour, first come first served.
      expect(admittedPerHour.map((a) => a.length)).toEqual([3, 3, 1]);
      const issueOf = async (runId: string) =>
        ((await h.json(`runs/${h.owner}/${h.repo}/${runId}/request.json`)) as { issue: { number: number } }).issue.number;
      const order = await Promise.all(admittedPerHour.flat().map(issueOf));
      expect(order).toEqual([4, 5, 6, 7, 8, 9, 10]);

      expect(await startedIssues(h)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(await waitingKeys(h)).toEqual([]);
      expect(h.standin.repo(h.fullName).pulls.size).toBe(10);
      for (let issue = 1; issue <= 10; issue++) {
        const comments = h.comments(issue);
        // No refusal: the run's progress comment is the only comment, and it shows a pull request.
        expect(comments.map((c) => c.body).join('\n')).not.toMatch(/try again later|reached its limit/);
        expect(comments.filter((c) => c.user === h.botLogin)).toHaveLength(1);
        expect(progress(h, issue)).not.toContain('waiting:');
      }
      expect(h.wakeQueue.sqs.violations).toEqual([]);
      expect(h.wakeQueue.failures).toEqual([]);
    }, 300_000);
  });

  describe('limits.maxOpenPullRequests: 1', () => {
    let h: AppHarness;
    beforeAll(async () => {
      h = await startAppHarness({ policy: DEFAULT_POLICY.replace('maxOpenPullRequests: 20', 'maxOpenPullRequests: 1') });
    }, 60_000);
    afterAll(async () => h?.stop());

    it('a run waits while the App’s pull request is open, and starts when it is closed', async () => {
      await h.deliver('issues', h.payloads.labeled(1));
      await h.drain();
      const [pr] = [...h.standin.repo(h.fullName).pulls.values()];
      expect(pr).toBeDefined();
      await h.deliver('issues', h.payloads.labeled(2));
      await h.drain();
      expect(progress(h, 2)).toContain('waiting: 1st in line');
      expect(progress(h, 2)).toContain('limits.maxOpenPullRequests');
      expect(await startedIssues(h)).toEqual([1]);
      // The pull request closes: its run's record changes, which wakes the queue.
      pr.state = 'closed';
      const published = (await h.json(`runs/${h.owner}/${h.repo}/${(await h.json(`issues/${h.owner}/${h.repo}/1/latest.json`)).runId}/publish.json`)) as {
        prNumber: number;
        branch: string;
        publishedCommitSha: string;
      };
      const closed = h.payloads.pullRequestClosed(published.prNumber, { merged: false, headRef: published.branch, headSha: published.publishedCommitSha });
      expect((await h.deliver('pull_request', closed)).statusCode).toBe(202);
      await h.drain();
      expect(await startedIssues(h)).toEqual([1, 2]);
      expect(h.standin.repo(h.fullName).pulls.size).toBe(2);
    }, 180_000);
  });

  describe('a waiting run', () => {
    let h: AppHarness;
    beforeAll(async () => {
      h = await startAppHarness({ policy: DEFAULT_POLICY.replace('runsPerHour: 100', 'runsPerHour: 1') });
    }, 60_000);
    afterAll(async () => h?.stop());

    it('leaves the queue on /agent cancel and never starts; the run behind it moves up', async () => {
      await h.deliver('issues', h.payloads.labeled(1));
      await h.deliver('issues', h.payloads.labeled(2));
      await h.deliver('issues', h.payloads.labeled(3));
      await h.drain();
      expect(progress(h, 2)).toContain('waiting: 1st in line');
      expect(progress(h, 3)).toContain('waiting: 2nd in line');
      await h.deliver('issue_comment', h.payloads.comment(2, '/agent cancel', { sender: MAINTAINER }));
      expect(progress(h, 2)).toContain('CANCELLED');
      expect(progress(h, 2)).toContain('while it waited in line');
      expect(progress(h, 3)).toContain('waiting: 1st in line');
      expect(await waitingKeys(h)).toHaveLength(1);
    }, 180_000);

    it('is never marked stuck by the sweeper, however long it waits, and starts when the hour moves on', async () => {
      // Past the lock's two hours and the sweeper's stuck threshold, with no wake-up in between.
      h.clock.advance(3 * HOUR);
      const report = await h.sweep({ stuckAfterMs: HOUR });
      expect(report.runsFailed).toEqual([]);
      expect(report.locksReleased).toEqual([]);
      expect(report.waiting).toEqual([expect.stringMatching(/issues\/3\.json$/)]);
      expect(progress(h, 3)).toContain('waiting: 1st in line');
      expect(await waitingKeys(h)).toHaveLength(1);
      // The sweep woke the queue: the hour moved on, so the waiting run starts; the cancelled one never does.
      expect(report.woke).toBe(true);
      await h.drain();
      const started = await startedIssues(h);
      expect(started).toEqual([1, 3]);
      expect(h.standin.repo(h.fullName).pulls.size).toBe(2);
    }, 180_000);
  });
});
