import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalArtifactStore } from '../../../src/app/local/local-artifact-store.js';
import { identityFromLocalPath } from '../../../src/app/git/repo-identity.js';
import { MIGRATION_TASK } from '../../fixtures/migration-task.js';
import { mavenMultiModuleRepo } from '../../fixtures/realistic-repos.js';
import { startS3Server, type S3TestServer } from '../../helpers/s3-server.js';
import { CliBinary } from './cli-binary.js';
import { cli, makeWorkingCopy } from './cli-harness.js';
import { seedObjects, SEED_RUNS } from './outcome-runs.js';

/**
 * `draftsman report` over fifty seeded runs (outcome-runs.ts): three repositories, two
 * installations, every way a run can stand. Every figure below is counted by hand from the seed.
 */

let out: string;
beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'draftsman-report-'));
  const store = new LocalArtifactStore(out);
  for (const object of seedObjects()) await store.put(object.key, object.body);
});
afterAll(() => rmSync(out, { recursive: true, force: true }));

const none = { cancelled: 0, waitingForApproval: 0, active: 0, doneWithoutPullRequest: 0 };

/** acme/api: 6 merged after 3600, 7200, 1800, 86400, 600, 5400 s (median 4500); spend 6 x $0.12 + 13 x $0.03. */
const API = {
  repository: 'acme/api',
  installation: '101',
  started: 20,
  published: 12,
  failed: 5,
  failedByReason: { BUDGET_EXCEEDED: 1, FAILED: 1, STUCK: 2, TREE_MISMATCH: 1 },
  ...none,
  cancelled: 1,
  waitingForApproval: 1,
  active: 1,
  pullRequests: { merged: 6, closedUnmerged: 3, open: 3 },
  medianTimeToMergeSeconds: 4500,
  spendUsd: 1.11,
  spendPerMergedPullRequestUsd: 0.12,
};
/** acme/web: 3 merged after 1200, 2400, 4800 s; spend 3 x $0.20 + 8 x $0.03; one run without run.json. */
const WEB = {
  repository: 'acme/web',
  installation: '101',
  started: 12,
  published: 7,
  failed: 3,
  failedByReason: { BUDGET_EXCEEDED: 1, SCOPE_VIOLATION: 1, STUCK: 1 },
  ...none,
  active: 1,
  doneWithoutPullRequest: 1,
  pullRequests: { merged: 3, closedUnmerged: 2, open: 2 },
  medianTimeToMergeSeconds: 2400,
  spendUsd: 0.84,
  spendPerMergedPullRequestUsd: 0.2,
};
/** beta/tool: 4 merged after 300, 900, 2700, 8100 s (median 1800); spend 4 x $0.09 + 13 x $0.03, one unpriced run. */
const TOOL = {
  repository: 'beta/tool',
  installation: '202',
  started: 18,
  published: 11,
  failed: 5,
  failedByReason: { BUDGET_EXCEEDED: 2, STUCK: 3 },
  ...none,
  cancelled: 1,
  doneWithoutPullRequest: 1,
  pullRequests: { merged: 4, closedUnmerged: 4, open: 3 },
  medianTimeToMergeSeconds: 1800,
  spendUsd: 0.75,
  spendPerMergedPullRequestUsd: 0.09,
};
const { repository: _t, ...TOOL_FIGURES } = TOOL;

describe('draftsman report', () => {
  it('seeds fifty runs', () => {
    expect(SEED_RUNS).toHaveLength(50);
  });

  it('--json: per repository, per installation and in all, with exact counts, medians and spend', async () => {
    const { code, json } = await cli(['report', '--out', out, '--json']);
    expect(code).toBe(0);
    expect(json?.source).toBe(out);
    expect(json?.unreadable).toBe(1);
    expect(json?.repositories).toEqual([API, WEB, TOOL]);
    expect(json?.installations).toHaveLength(2);
    expect(json?.installations[0]).toEqual({
      installation: '101',
      started: 32,
      published: 19,
      failed: 8,
      failedByReason: { BUDGET_EXCEEDED: 2, FAILED: 1, SCOPE_VIOLATION: 1, STUCK: 3, TREE_MISMATCH: 1 },
      cancelled: 1,
      waitingForApproval: 1,
      active: 2,
      doneWithoutPullRequest: 1,
      pullRequests: { merged: 9, closedUnmerged: 5, open: 5 },
      // 600, 1200, 1800, 2400, 3600, 4800, 5400, 7200, 86400
      medianTimeToMergeSeconds: 3600,
      spendUsd: 1.95,
      spendPerMergedPullRequestUsd: expect.closeTo(1.32 / 9, 9),
    });
    expect(json?.installations[1]).toEqual(TOOL_FIGURES);
    expect(json?.total).toEqual({
      started: 50,
      published: 30,
      failed: 13,
      failedByReason: { BUDGET_EXCEEDED: 4, FAILED: 1, SCOPE_VIOLATION: 1, STUCK: 6, TREE_MISMATCH: 1 },
      cancelled: 2,
      waitingForApproval: 1,
      active: 2,
      doneWithoutPullRequest: 2,
      pullRequests: { merged: 13, closedUnmerged: 9, open: 8 },
      // the 7th of 13: 300 600 900 1200 1800 2400 [2700] 3600 4800 5400 7200 8100 86400
      medianTimeToMergeSeconds: 2700,
      spendUsd: 2.7,
      spendPerMergedPullRequestUsd: expect.closeTo(1.68 / 13, 9),
    });
  });

  it('prints a table per repository, installation and in all, then the failures by reason', async () => {
    const { code, stdout } = await cli(['report', '--out', out]);
    expect(code).toBe(0);
    expect(stdout).toBe(
      [
        `50 runs in ${out}`,
        '',
        '| repository | installation | started | published | failed | merged | closed unmerged | open | median to merge | spend | spend per merged PR |',
        '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
        '| acme/api | 101 | 20 | 12 | 5 | 6 | 3 | 3 | 1h 15m | $1.1100 | $0.1200 |',
        '| acme/web | 101 | 12 | 7 | 3 | 3 | 2 | 2 | 40m 0s | $0.8400 | $0.2000 |',
        '| beta/tool | 202 | 18 | 11 | 5 | 4 | 4 | 3 | 30m 0s | $0.7500 | $0.0900 |',
        '| installation 101 |  | 32 | 19 | 8 | 9 | 5 | 5 | 1h 0m | $1.9500 | $0.1467 |',
        '| installation 202 |  | 18 | 11 | 5 | 4 | 4 | 3 | 30m 0s | $0.7500 | $0.0900 |',
        '| total |  | 50 | 30 | 13 | 13 | 9 | 8 | 45m 0s | $2.7000 | $0.1293 |',
        '',
        'failed by reason:',
        '  acme/api: BUDGET_EXCEEDED 1, FAILED 1, STUCK 2, TREE_MISMATCH 1',
        '  acme/web: BUDGET_EXCEEDED 1, SCOPE_VIOLATION 1, STUCK 1',
        '  beta/tool: BUDGET_EXCEEDED 2, STUCK 3',
        '  total: BUDGET_EXCEEDED 4, FAILED 1, SCOPE_VIOLATION 1, STUCK 6, TREE_MISMATCH 1',
        '',
        'other runs: 2 cancelled, 1 waiting for approval, 2 queued or running, 2 done without a pull request',
        '1 run(s) skipped: request.json missing or unreadable',
        '',
      ].join('\n'),
    );
  });

  it('--since keeps the runs asked for from that instant on (the first second of November in, the last of October out)', async () => {
    const { code, json } = await cli(['report', '--out', out, '--json', '--since', '2026-11-01']);
    expect(code).toBe(0);
    expect(json?.since).toBe('2026-11-01T00:00:00.000Z');
    expect(json?.repositories.map((r: { repository: string }) => r.repository)).toEqual(['acme/api', 'beta/tool']);
    expect(json?.repositories[0]).toEqual(API);
    expect(json?.total).toEqual({
      started: 29,
      published: 16,
      failed: 10,
      failedByReason: { BUDGET_EXCEEDED: 3, FAILED: 1, STUCK: 5, TREE_MISMATCH: 1 },
      cancelled: 1,
      waitingForApproval: 1,
      active: 1,
      doneWithoutPullRequest: 0,
      pullRequests: { merged: 10, closedUnmerged: 3, open: 3 },
      // 300 600 900 1800 [2700 3600] 5400 7200 8100 86400
      medianTimeToMergeSeconds: 3150,
      spendUsd: 1.59,
      spendPerMergedPullRequestUsd: 0.108,
    });
    const human = await cli(['report', '--out', out, '--since', '2026-11-01T00:00:00Z']);
    expect(human.stdout.split('\n')[0]).toBe(`29 runs in ${out} asked for since 2026-11-01T00:00:00.000Z`);
    expect(human.stdout).toContain('| total |  | 29 | 16 | 10 | 10 | 3 | 3 | 52m 30s | $1.5900 | $0.1080 |');
    const later = await cli(['report', '--out', out, '--json', '--since', '2026-12-01']);
    expect(later.json?.total.started).toBe(0);
  });

  it.each([
    [['--since', 'yesterday'], '--since takes a date'],
    [['--since', '2026-13-45'], '--since takes a date'],
    [['--out', '/tmp/x', '--bucket', 'b'], 'give --out or --bucket, not both'],
    [['--endpoint', 'http://127.0.0.1:1'], '--endpoint and --region go with --bucket'],
    [['acme/api'], 'unexpected argument acme/api'],
  ])('refuses %j as a usage error', async (args, message) => {
    const { code, stderr } = await cli(['report', ...args]);
    expect(code).toBe(2);
    expect(stderr).toContain(message);
  });
});

describe('draftsman report --bucket', () => {
  let s3: S3TestServer;
  beforeAll(async () => {
    s3 = await startS3Server({ bucket: 'draftsman-artifacts' });
    await s3.seed(seedObjects());
  });
  afterAll(async () => s3?.stop());

  it('reads the same runs from the bucket with @aws-sdk/client-s3 and counts them the same', async () => {
    const env = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_REGION: 'us-east-1', AWS_ENDPOINT_URL_S3: s3.endpoint };
    const fromBucket = await cli(['report', '--bucket', s3.bucket, '--json'], { env });
    expect(fromBucket.code).toBe(0);
    const fromDir = await cli(['report', '--out', out, '--json']);
    expect(fromBucket.json).toEqual({ ...fromDir.json, source: 'bucket draftsman-artifacts' });
    const since = await cli(['report', '--bucket', s3.bucket, '--since', '2026-11-01', '--endpoint', s3.endpoint], { env });
    expect(since.stdout).toContain('| total |  | 29 | 16 | 10 | 10 | 3 | 3 | 52m 30s | $1.5900 | $0.1080 |');
    expect(s3.requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });
});

describe('draftsman report, the built binary', () => {
  let bin: CliBinary;
  beforeAll(() => {
    bin = CliBinary.build();
  }, 120_000);
  afterAll(() => bin?.remove());

  it('is a command of the bundle, with its help, and prints the same figures', async () => {
    const [help, human, json] = await Promise.all([
      bin.run(['report', '--help']),
      bin.run(['report', '--out', out, '--since', '2026-11-01']),
      bin.run(['report', '--out', out, '--json']),
    ]);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toMatch(/^usage: draftsman report \[--since DATE\] \[--json\]/);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('| total |  | 29 | 16 | 10 | 10 | 3 | 3 | 52m 30s | $1.5900 | $0.1080 |');
    expect(json.json?.total).toMatchObject({
      started: 50,
      published: 30,
      failed: 13,
      pullRequests: { merged: 13, closedUnmerged: 9, open: 8 },
      medianTimeToMergeSeconds: 2700,
    });
  }, 60_000);
});

describe('draftsman report over what draftsman run wrote', () => {
  it('counts a CLI run under the installation local, in the same --out directory', async () => {
    const root = mkdtempSync(join(tmpdir(), 'draftsman-report-run-'));
    try {
      const work = join(root, 'orders');
      makeWorkingCopy(work, mavenMultiModuleRepo());
      const state = join(root, 'state');
      const ran = await cli(['run', work, '--task', MIGRATION_TASK.replace('mode: draft_pr', 'mode: analysis'), '--out', state, '--json']);
      expect(ran.json?.status).toBe('COMPLETED');
      const { code, json } = await cli(['report', '--out', state, '--json']);
      expect(code).toBe(0);
      const { owner, repo } = identityFromLocalPath(work);
      expect(json?.repositories).toEqual([
        expect.objectContaining({
          repository: `${owner}/${repo}`,
          installation: 'local',
          started: 1,
          published: 0,
          failed: 0,
          doneWithoutPullRequest: 1,
          spendUsd: null,
        }),
      ]);
      expect(json?.unreadable).toBe(0);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 120_000);
});
