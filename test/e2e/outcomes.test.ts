import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAppHarness, type AppHarness } from '../helpers/app-harness.js';
import { cli } from '../integration/cli/cli-harness.js';

/**
 * Outcomes through the whole App: two labelled issues become draft pull requests; one is merged
 * two hours after it was asked for, the other closed unmerged. The publisher writes each outcome
 * as a metric line, and `draftsman report --bucket` reads the same figures from the App's bucket.
 */
const HOUR = 3_600_000;

describe('outcomes of runs on the App', () => {
  let h: AppHarness;
  const asked: Record<number, string> = {};

  /** Label the issue and run everything to the draft pull request; its number, branch and head. */
  async function draft(issue: number): Promise<{ number: number; head: string; sha: string }> {
    expect((await h.deliver('issues', h.payloads.labeled(issue))).statusCode).toBe(202);
    asked[issue] = (await h.json(`issues/acme/orders/${issue}/latest.json`)).runId;
    await h.drain();
    const runId = asked[issue];
    const published = await h.json(`runs/acme/orders/${runId}/publish.json`);
    return { number: published.prNumber, head: published.branch, sha: published.publishedCommitSha };
  }

  async function close(pr: { number: number; head: string; sha: string }, merged: boolean): Promise<void> {
    h.standin.repo(h.fullName).pulls.get(pr.number)!.state = 'closed';
    const payload = h.payloads.pullRequestClosed(pr.number, { merged, headRef: pr.head, headSha: pr.sha });
    expect((await h.deliver('pull_request', payload)).statusCode).toBe(202);
    await h.drain();
  }

  beforeAll(async () => {
    h = await startAppHarness();
    const first = await draft(1);
    const second = await draft(2);
    h.clock.advance(2 * HOUR);
    await close(first, true);
    h.clock.advance(HOUR);
    await close(second, false);
  }, 120_000);

  afterAll(async () => h?.stop());

  it('run.json says MERGED and CLOSED, and the publisher wrote one outcome line each, with the time from the request to the merge', async () => {
    const merged = await h.json(`runs/acme/orders/${asked[1]}/run.json`);
    const closed = await h.json(`runs/acme/orders/${asked[2]}/run.json`);
    expect([merged.status, closed.status]).toEqual(['MERGED', 'CLOSED']);
    const request = await h.json(`runs/acme/orders/${asked[1]}/request.json`);
    const toMerge = (Date.parse(merged.updatedAt) - Date.parse(request.createdAt)) / 1000;
    expect(toMerge).toBeGreaterThanOrEqual(7200);
    const outcomes = h.logs.entries().filter((e) => e.runOutcomes !== undefined && (e.outcome === 'merged' || e.outcome === 'closed'));
    expect(outcomes).toEqual([
      expect.objectContaining({
        outcome: 'merged',
        runId: asked[1],
        repository: h.fullName,
        installation: String(h.installationId),
        timeToMergeSeconds: toMerge,
      }),
      expect.objectContaining({ outcome: 'closed', runId: asked[2], repository: h.fullName, installation: String(h.installationId) }),
    ]);
    // Recipe runs: no model, no spend to report.
    for (const line of outcomes) expect(line).not.toHaveProperty('runSpendUsd');
  });

  it('draftsman report --bucket reads the same outcomes from the App’s bucket', async () => {
    const result = await cli(['report', '--bucket', h.s3.bucket, '--endpoint', h.s3.endpoint, '--json'], {
      env: { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_REGION: 'us-east-1' },
      now: h.clock.now(),
    });
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    const report = JSON.parse(result.stdout);
    const merged = await h.json(`runs/acme/orders/${asked[1]}/run.json`);
    const request = await h.json(`runs/acme/orders/${asked[1]}/request.json`);
    expect(report.repositories).toEqual([
      expect.objectContaining({
        repository: h.fullName,
        installation: String(h.installationId),
        started: 2,
        published: 2,
        failed: 0,
        pullRequests: { merged: 1, closedUnmerged: 1, open: 0 },
        medianTimeToMergeSeconds: (Date.parse(merged.updatedAt) - Date.parse(request.createdAt)) / 1000,
        spendUsd: null,
        spendPerMergedPullRequestUsd: null,
      }),
    ]);
  });
});
