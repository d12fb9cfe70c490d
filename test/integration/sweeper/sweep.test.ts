import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { S3ArtifactStore } from '../../../src/app/aws/s3-artifact-store.js';
import { createGitHubApi } from '../../../src/app/github/github-api.js';
import { InProcessTokenBroker } from '../../../src/app/tokens/in-process-token-broker.js';
import { CapturingLogger } from '../../../src/app/logger.js';
import { sweep, type SweepDeps } from '../../../src/app/sweeper/sweep.js';
import { readArtifactIfPresent, writeArtifact } from '../../../src/core/artifacts/artifact-io.js';
import { intakeKey, issueLatestKey, lockKey, runKeys } from '../../../src/core/artifacts/keys.js';
import { enqueueRun } from '../../../src/core/runs/run-queue.js';
import { RunRecord, RunRequest } from '../../../src/core/runs/run-request.js';
import { IntakeRecord, IssueLatest, IssueLock, WorkerHeartbeat } from '../../../src/core/runs/run-state.js';
import type { AttemptStatus } from '../../../src/core/runs/run-status.js';
import { STANDIN_GITHUB_POLICY, startGitHubStandin, type GitHubStandin } from '../../helpers/github-standin/index.js';
import { startS3Server, type S3TestServer } from '../../helpers/s3-server.js';
import { fixedClock, testAppKey } from '../github/standin-fixture.js';

const APP_ID = 777;
const NOW = Date.UTC(2025, 5, 1, 12, 0, 0);
const MIN = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();
const keys = testAppKey();

let s3: S3TestServer;
let standin: GitHubStandin;
let store: S3ArtifactStore;
let deps: SweepDeps;
let logger: CapturingLogger;
const clock = fixedClock(NOW);
const tokens = () =>
  new InProcessTokenBroker({
    role: 'read',
    appId: APP_ID,
    apiUrl: standin.url,
    clock,
    loadPrivateKey: async () => keys.privateKeyPem,
    policy: STANDIN_GITHUB_POLICY,
  });
const github = (token: string) => createGitHubApi({ token, baseUrl: standin.url, policy: STANDIN_GITHUB_POLICY });

/** A run the way the webhook leaves it: request.json, the issue pointer, the lock, a progress comment. */
async function seedRun(input: {
  issue: number;
  runId: string;
  lock: { acquiredAt: number; expiresAt: number; attempt?: number };
  run?: { status: AttemptStatus; updatedAt: number };
  commentIn?: 'request' | 'latest';
}): Promise<{ commentId: number }> {
  const broker = tokens();
  const issued = await broker.token({ installationId: 1, repositoryId: 11, role: 'read' });
  const comment = await github(issued.token).rest.issues.createComment({
    owner: 'acme',
    repo: 'widgets',
    issue_number: input.issue,
    body: `QUEUED ${input.runId}`,
  });
  const k = runKeys('acme', 'widgets', input.runId);
  const where = input.commentIn ?? 'request';
  await writeArtifact(store, k.request, RunRequest, {
    schemaVersion: 1,
    runId: input.runId,
    owner: 'acme',
    repo: 'widgets',
    source: { kind: 'github', repositoryId: 11, installationId: 1, cloneUrl: 'https://example.invalid/acme/widgets.git', apiUrl: standin.url },
    trigger: { kind: 'label', key: `label-${input.runId}`, sender: 'maintainer' },
    issue: {
      number: input.issue,
      title: 't',
      body: 'b',
      updatedAt: iso(NOW - 300 * MIN),
      progressCommentId: where === 'request' ? comment.data.id : undefined,
    },
    agentBranch: `agent/i${input.issue}/r${input.runId}`,
    createdAt: iso(input.lock.acquiredAt),
  });
  await writeArtifact(store, issueLatestKey('acme', 'widgets', input.issue), IssueLatest, {
    schemaVersion: 1,
    runId: input.runId,
    attempt: input.lock.attempt ?? 1,
    progressCommentId: where === 'latest' ? comment.data.id : undefined,
    updatedAt: iso(input.lock.acquiredAt),
  });
  await writeArtifact(store, lockKey('acme', 'widgets', input.issue), IssueLock, {
    schemaVersion: 1,
    runId: input.runId,
    attempt: input.lock.attempt ?? 1,
    acquiredAt: iso(input.lock.acquiredAt),
    expiresAt: iso(input.lock.expiresAt),
  });
  if (input.run) {
    await writeArtifact(store, k.run, RunRecord, {
      schemaVersion: 1,
      runId: input.runId,
      status: input.run.status,
      attempt: input.lock.attempt ?? 1,
      attempts: [{ n: input.lock.attempt ?? 1, status: input.run.status, startedAt: iso(input.lock.acquiredAt) }],
      agentBranch: `agent/i${input.issue}/r${input.runId}`,
      updatedAt: iso(input.run.updatedAt),
    });
  }
  return { commentId: comment.data.id };
}

const commentBody = (id: number) => standin.repo('acme/widgets').comments.get(id)?.body ?? '';
const runOf = (runId: string) => readArtifactIfPresent(store, runKeys('acme', 'widgets', runId).run, RunRecord);
const lockExists = async (issue: number) => (await store.get(lockKey('acme', 'widgets', issue))) !== undefined;

beforeAll(async () => {
  s3 = await startS3Server({ bucket: 'draftsman-sweep' });
  standin = await startGitHubStandin({
    appId: APP_ID,
    privateKeyPem: keys.privateKeyPem,
    clock,
    repos: [
      {
        owner: 'acme',
        name: 'widgets',
        id: 11,
        files: { 'README.md': '# w\n' },
        issues: [1, 2, 3, 4, 5, 6].map((number) => ({ number, title: `issue ${number}` })),
      },
    ],
  });
  store = new S3ArtifactStore({ client: s3.client, bucket: s3.bucket, sleep: async () => undefined });
});

afterAll(async () => {
  await standin?.stop();
  await s3?.stop();
});

beforeEach(async () => {
  for (const { key } of await s3.objects()) await store.delete(key);
  logger = new CapturingLogger();
  deps = { store, tokens: tokens(), github, clock, logger, stuckAfterMs: 60 * MIN };
});

describe('sweep', () => {
  it('fails a RUNNING run whose lock expired, edits its progress comment with a read token, and releases the lock', async () => {
    const { commentId } = await seedRun({
      issue: 1,
      runId: 'aaaaaaaaaaaa',
      lock: { acquiredAt: NOW - 150 * MIN, expiresAt: NOW - 30 * MIN },
      run: { status: 'RUNNING', updatedAt: NOW - 140 * MIN },
    });

    standin.calls.length = 0;

    const report = await sweep(deps);

    expect(report.runsFailed).toEqual([{ owner: 'acme', repo: 'widgets', issue: 1, runId: 'aaaaaaaaaaaa', attempt: 1, was: 'RUNNING', commentUpdated: true }]);
    expect(report.locksReleased).toEqual([lockKey('acme', 'widgets', 1)]);
    expect(await lockExists(1)).toBe(false);
    const run = await runOf('aaaaaaaaaaaa');
    expect(run).toMatchObject({ status: 'FAILED', reason: 'STUCK', updatedAt: iso(NOW) });
    expect(run?.attempts).toEqual([{ n: 1, status: 'FAILED', reason: 'STUCK', startedAt: iso(NOW - 150 * MIN), endedAt: iso(NOW) }]);
    expect(commentBody(commentId)).toContain('**Status:** FAILED');
    expect(commentBody(commentId)).toContain('stopped by the sweeper');
    const edits = standin.calls.filter((c) => c.method === 'PATCH' && c.path.includes('/issues/comments/'));
    expect(edits).toHaveLength(1);
    expect(edits[0].tokenPermissions).toMatchObject({ contents: 'read', issues: 'write' });
    expect(edits[0].tokenPermissions?.pull_requests).not.toBe('write');
    // The run's outcome (failed, STUCK), then one EMF line per sweep: the STUCK alarm counts runsStuck.
    expect(logger.entries().filter((e) => e.msg === 'metric')).toEqual([
      expect.objectContaining({ fn: 'sweeper', runOutcomes: 1, outcome: 'failed', reason: 'STUCK', repository: 'acme/widgets', runId: 'aaaaaaaaaaaa' }),
      expect.objectContaining({ fn: 'sweeper', runsStuck: 1, locksReleased: 1, ciPolled: 0, sweepProblems: 0 }),
    ]);
  });

  it('leaves a live lock of a run that is making progress alone', async () => {
    const { commentId } = await seedRun({
      issue: 2,
      runId: 'bbbbbbbbbbbb',
      lock: { acquiredAt: NOW - 20 * MIN, expiresAt: NOW + 100 * MIN },
      run: { status: 'RUNNING', updatedAt: NOW - 5 * MIN },
    });
    standin.calls.length = 0;

    const report = await sweep(deps);

    expect(report).toMatchObject({ runsFailed: [], locksReleased: [], problems: [] });
    expect(await lockExists(2)).toBe(true);
    expect((await runOf('bbbbbbbbbbbb'))?.status).toBe('RUNNING');
    expect(commentBody(commentId)).toBe('QUEUED bbbbbbbbbbbb');
    expect(standin.calls).toEqual([]);
  });

  it('only releases the expired lock of a run that already ended', async () => {
    const { commentId } = await seedRun({
      issue: 3,
      runId: 'cccccccccccc',
      lock: { acquiredAt: NOW - 200 * MIN, expiresAt: NOW - 80 * MIN },
      run: { status: 'COMPLETED', updatedAt: NOW - 190 * MIN },
    });

    const report = await sweep(deps);

    expect(report.runsFailed).toEqual([]);
    expect(report.locksReleased).toEqual([lockKey('acme', 'widgets', 3)]);
    expect((await runOf('cccccccccccc'))?.status).toBe('COMPLETED');
    expect(commentBody(commentId)).toBe('QUEUED cccccccccccc');
  });

  it('fails a run the worker never started (no run.json) once its lock is older than the threshold, finding the comment through latest.json', async () => {
    const { commentId } = await seedRun({
      issue: 4,
      runId: 'dddddddddddd',
      lock: { acquiredAt: NOW - 61 * MIN, expiresAt: NOW + 59 * MIN },
      commentIn: 'latest',
    });

    const report = await sweep(deps);

    expect(report.runsFailed).toMatchObject([{ issue: 4, runId: 'dddddddddddd', was: 'QUEUED', commentUpdated: true }]);
    expect(await runOf('dddddddddddd')).toMatchObject({ status: 'FAILED', reason: 'STUCK', agentBranch: 'agent/i4/rdddddddddddd' });
    expect(await lockExists(4)).toBe(false);
    expect(commentBody(commentId)).toContain('**Status:** FAILED');
  });

  it('fails a RUNNING run under a live lock when its record has not moved for longer than the threshold', async () => {
    await seedRun({
      issue: 5,
      runId: 'eeeeeeeeeeee',
      lock: { acquiredAt: NOW - 90 * MIN, expiresAt: NOW + 30 * MIN, attempt: 2 },
      run: { status: 'RUNNING', updatedAt: NOW - 61 * MIN },
    });
    const justInside = await seedRun({
      issue: 6,
      runId: 'ffffffffffff',
      lock: { acquiredAt: NOW - 90 * MIN, expiresAt: NOW + 30 * MIN },
      run: { status: 'RUNNING', updatedAt: NOW - 59 * MIN },
    });

    const report = await sweep(deps);

    expect(report.runsFailed.map((r) => [r.runId, r.attempt])).toEqual([['eeeeeeeeeeee', 2]]);
    expect(await lockExists(5)).toBe(false);
    expect(await lockExists(6)).toBe(true);
    expect(commentBody(justInside.commentId)).toBe('QUEUED ffffffffffff');
  });

  it('fails a RUNNING run under a live lock whose worker went silent (a stale running heartbeat), and leaves a fresh or idle one alone', async () => {
    const beat = (runId: string, state: 'running' | 'idle', at: number) =>
      writeArtifact(store, runKeys('acme', 'widgets', runId).attempt(1).heartbeat, WorkerHeartbeat, {
        schemaVersion: 1,
        runId,
        attempt: 1,
        continuation: 0,
        state,
        at: iso(at),
      });
    const live = { acquiredAt: NOW - 20 * MIN, expiresAt: NOW + 100 * MIN };
    const silent = await seedRun({ issue: 1, runId: 'aaaaaaaaaaaa', lock: live, run: { status: 'RUNNING', updatedAt: NOW - 6 * MIN } });
    await beat('aaaaaaaaaaaa', 'running', NOW - 5 * MIN);
    const fresh = await seedRun({ issue: 2, runId: 'bbbbbbbbbbbb', lock: live, run: { status: 'RUNNING', updatedAt: NOW - 6 * MIN } });
    await beat('bbbbbbbbbbbb', 'running', NOW - 3 * MIN);
    // Paused (a continuation or a verification build to come): the worker said so.
    const paused = await seedRun({ issue: 3, runId: 'cccccccccccc', lock: live, run: { status: 'RUNNING', updatedAt: NOW - 30 * MIN } });
    await beat('cccccccccccc', 'idle', NOW - 30 * MIN);

    const report = await sweep(deps);

    expect(report.runsFailed).toEqual([{ owner: 'acme', repo: 'widgets', issue: 1, runId: 'aaaaaaaaaaaa', attempt: 1, was: 'RUNNING', commentUpdated: true }]);
    expect(await runOf('aaaaaaaaaaaa')).toMatchObject({ status: 'FAILED', reason: 'STUCK' });
    expect(await lockExists(1)).toBe(false);
    expect(commentBody(silent.commentId)).toContain('the worker stopped answering: its last heartbeat was 5 minutes ago');
    expect(commentBody(fresh.commentId)).toBe('QUEUED bbbbbbbbbbbb');
    expect(commentBody(paused.commentId)).toBe('QUEUED cccccccccccc');
    expect(logger.entries().find((e) => e.msg === 'stuck run marked failed')).toMatchObject({
      runId: 'aaaaaaaaaaaa',
      worker: 'silent',
      since: iso(NOW - 5 * MIN),
    });
  });

  it('hands every repository with runs to the CI poll hook and reports what it wrote', async () => {
    await seedRun({
      issue: 2,
      runId: 'bbbbbbbbbbbb',
      lock: { acquiredAt: NOW - 20 * MIN, expiresAt: NOW + 100 * MIN },
      run: { status: 'RUNNING', updatedAt: NOW - 5 * MIN },
    });
    await store.put('issues/other/tools/9/latest.json', '{}');
    const seen: { owner: string; repo: string }[][] = [];

    const report = await sweep({ ...deps, pollCi: async (repositories) => (seen.push(repositories), ['runs/acme/widgets/bbbbbbbbbbbb/ci/poll-1.json']) });

    expect(seen).toEqual([
      [
        { owner: 'acme', repo: 'widgets' },
        { owner: 'other', repo: 'tools' },
      ],
    ]);
    expect(report.ciPolled).toEqual(['runs/acme/widgets/bbbbbbbbbbbb/ci/poll-1.json']);
  });

  it('leaves a run waiting in the queue alone: its lock, however old, and the intake record of the try that queued it (only removed); and wakes the queue', async () => {
    const runId = 'dddddddddddd';
    const { commentId } = await seedRun({ issue: 4, runId, lock: { acquiredAt: NOW - 300 * MIN, expiresAt: NOW - 180 * MIN } });
    // It waits: its request is the entry's, not request.json.
    const request = await readArtifactIfPresent(store, runKeys('acme', 'widgets', runId).request, RunRequest);
    await store.delete(runKeys('acme', 'widgets', runId).request);
    await enqueueRun(store, request!, { runsPerHour: 1, maxOpenPullRequests: 1 }, NOW - 300 * MIN);
    // A try that queued the run and failed before removing its intake record.
    const intake = intakeKey('acme', 'widgets', 4, runId);
    await writeArtifact(store, intake, IntakeRecord, {
      schemaVersion: 1,
      runId,
      issue: 4,
      installationId: 1,
      repositoryId: 11,
      trigger: `label-${runId}`,
      sender: 'maintainer',
      createdAt: iso(NOW - 300 * MIN),
    });
    const woke: string[] = [];

    const report = await sweep({ ...deps, wake: async (why) => void woke.push(why) });

    expect(report.intakesEnded).toEqual([]);
    expect(report.runsFailed).toEqual([]);
    expect(report.locksReleased).toEqual([]);
    expect(report.waiting).toEqual([lockKey('acme', 'widgets', 4)]);
    expect(await store.get(intake)).toBeUndefined();
    expect(await lockExists(4)).toBe(true);
    expect(await runOf(runId)).toBeUndefined();
    expect(commentBody(commentId)).toBe(`QUEUED ${runId}`);
    expect(report.woke).toBe(true);
    expect(woke).toEqual(['sweep']);
  });

  it('keeps sweeping when one lock is unreadable, and reports it', async () => {
    await store.put(lockKey('acme', 'widgets', 2), 'not json');
    await seedRun({
      issue: 3,
      runId: 'cccccccccccc',
      lock: { acquiredAt: NOW - 200 * MIN, expiresAt: NOW - 80 * MIN },
      run: { status: 'RUNNING', updatedAt: NOW - 190 * MIN },
    });

    const report = await sweep(deps);

    expect(report.problems.map((p) => p.key)).toEqual([lockKey('acme', 'widgets', 2)]);
    expect(report.runsFailed.map((r) => r.runId)).toEqual(['cccccccccccc']);
    expect(logger.entries().some((e) => e.msg === 'sweep of a lock failed')).toBe(true);
  });
});
