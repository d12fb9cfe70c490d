import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliIo } from '../../../src/app/cli/run-cli.js';
import { MAINTAINER, startAppHarness, type AppHarness } from '../../helpers/app-harness.js';

/**
 * `draftsman replay <bucket> <key>` against the real S3-compatible server with the real
 * @aws-sdk/client-s3 (the CLI builds its own client from the operator's environment and an
 * endpoint override), on the whole App: the worker's first invocation dies mid-attempt and
 * leaves its lease behind; Lambda's retry (another request id in the harness) is then a
 * duplicate delivery and the attempt is stuck, as it is when the event is dead-lettered.
 */
const SLOW = 240_000;
const MINUTE = 60_000;
let h: AppHarness;
/** While true the worker's invocations are always short of time: each stops after one phase and continues. */
let short = false;

class Killed extends Error {}

beforeAll(async () => {
  h = await startAppHarness({ remainingTimeMs: () => (short ? 30_000 : 15 * 60_000) });
}, SLOW);

afterAll(async () => h?.stop());

interface Replayed {
  code: number;
  stdout: string;
  stderr: string;
  json?: Record<string, any>;
}

/** `draftsman replay` in-process, with s3rver's credentials as the operator's environment. */
async function replay(key: string, ...options: string[]): Promise<Replayed> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    env: { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_REGION: 'us-east-1' },
    cwd: process.cwd(),
    clock: h.clock,
    isTty: false,
  };
  const code = await runCli(['replay', h.s3.bucket, key, '--endpoint', h.s3.endpoint, ...options], io);
  const last = stdout.trimEnd().split('\n').at(-1) ?? '';
  return { code, stdout, stderr, json: last.startsWith('{') ? JSON.parse(last) : undefined };
}

/** Start a run on `issue` and kill the worker at its first checkpoint, and again on Lambda's retry (same request id): the invocation fails for good. */
async function runThatDies(issue: number): Promise<string> {
  expect((await h.deliver('issues', h.payloads.labeled(issue))).statusCode).toBe(202);
  const prefix = `runs/acme/orders/${(await h.json(`issues/acme/orders/${issue}/latest.json`)).runId}/`;
  let killed = 0;
  const stop = h.interceptWorkerWrites((key) => {
    if (killed < 2 && key.startsWith(prefix) && key.includes('/checkpoints/')) {
      killed++;
      throw new Killed(`killed before writing ${key}`);
    }
  });
  try {
    const done = await h.drain({ retries: 1, throwOnError: false });
    // The worker died, and died again on Lambda's retry: what an on-failure destination receives.
    expect(done.filter((d) => d.key === `${prefix}request.json`).map((d) => d.error !== undefined)).toEqual([true]);
  } finally {
    stop();
  }
  expect(killed).toBe(2);
  return prefix;
}

/** Worker invocations of `prefix`'s run that found the attempt leased by another invocation. */
const duplicates = (prefix: string) => h.logs.lines.filter((line) => line.includes('duplicate delivery') && line.includes(prefix.split('/')[3])).length;

describe('replaying a worker step whose invocation died', () => {
  let prefix: string;
  beforeAll(async () => {
    prefix = await runThatDies(1);
  }, SLOW);

  it('the dead invocation left its lease: re-putting the request (the old advice) is a duplicate delivery', async () => {
    const lease = await h.json(`${prefix}attempts/1/lease.json`);
    expect(lease).toMatchObject({ attempt: 1, continuation: 0 });
    expect((await h.json(`${prefix}run.json`))?.status ?? 'QUEUED').toMatch(/^(QUEUED|RUNNING)$/);
    const before = duplicates(prefix);
    h.requeue(`${prefix}request.json`);
    await h.drain();
    expect(duplicates(prefix)).toBe(before + 1);
    expect(await h.json(`${prefix}attempts/1/lease.json`)).toEqual(lease);
    expect(await h.store.get(`${prefix}candidate/pr-candidate.json`)).toBeUndefined();
  });

  it('is refused while the attempt may still have a live invocation, and nothing is written', async () => {
    const before = (await h.objects()).map((o) => o.key);
    const refused = await replay(`${prefix}request.json`, '--json');
    expect(refused.code).toBe(1);
    expect(refused.json).toMatchObject({ status: 'REFUSED', reason: 'ATTEMPT_ACTIVE' });
    expect((await h.objects()).map((o) => o.key)).toEqual(before);
  });

  it(
    'once idle: reserves the lease, writes continue-1.json (reason replay); the dispatcher re-drives the worker, the attempt completes once and publishes',
    async () => {
      h.clock.advance(20 * MINUTE);
      const dead = await h.json(`${prefix}attempts/1/lease.json`);
      const done = await replay(`${prefix}request.json`, '--json');
      expect(done.stderr).toBe('');
      expect(done.code).toBe(0);
      expect(done.json).toMatchObject({
        status: 'REPLAYED',
        step: 'worker',
        action: 'continuation',
        attempt: 1,
        continuation: 1,
        previousLease: { holder: dead.holder, continuation: 0 },
        wrote: `${prefix}attempts/1/continue-1.json`,
      });
      expect(await h.json(`${prefix}attempts/1/continue-1.json`)).toMatchObject({ continuation: 1, reason: 'replay' });
      expect(await h.json(`${prefix}attempts/1/lease.json`)).toMatchObject({ continuation: 1, holder: 'replay' });

      // A second replay right away is refused; the dead invocation's late retry finds the lease reserved.
      expect((await replay(`${prefix}request.json`, '--json')).json).toMatchObject({ status: 'REFUSED', reason: 'ATTEMPT_ACTIVE' });
      h.requeue(`${prefix}request.json`);
      // S3 delivers the continuation's notification twice: one worker takes the reserved lease.
      h.requeue(`${prefix}attempts/1/continue-1.json`);
      expect(h.pending().filter((k) => k === `${prefix}attempts/1/continue-1.json`)).toHaveLength(2);
      const before = duplicates(prefix);
      const dispatched = h.dispatched.length;
      await h.drain();

      // Three deliveries reached the worker (the late retry and the continuation twice); one worked.
      const workerKeys = h.dispatched
        .slice(dispatched)
        .filter((d) => d.fn === 'worker')
        .map((d) => d.key.slice(prefix.length));
      expect(workerKeys.sort()).toEqual(['attempts/1/continue-1.json', 'attempts/1/continue-1.json', 'request.json']);
      expect(duplicates(prefix) - before).toBe(2);
      expect(await h.json(`${prefix}attempts/1/lease.json`)).toMatchObject({ continuation: 1 });
      expect((await h.json(`${prefix}attempts/1/lease.json`)).holder).not.toBe('replay');
      expect(await h.json(`${prefix}run.json`)).toMatchObject({ status: 'PUBLISHED', attempt: 1 });
      expect(await h.json(`${prefix}publish.json`)).toMatchObject({ attempt: 1 });
      const branch = (await h.json(`${prefix}request.json`)).agentBranch;
      expect([...h.standin.repo(h.fullName).pulls.values()].filter((p) => p.head === branch)).toHaveLength(1);
      expect(await h.store.get('locks/acme/orders/issues/1.json')).toBeUndefined();
    },
    SLOW,
  );

  it('after the attempt ended: replaying it, or its published candidate, is refused', async () => {
    h.clock.advance(20 * MINUTE);
    const ended = await replay(`${prefix}attempts/1/continue-1.json`, '--json');
    expect(ended.code).toBe(1);
    expect(ended.json).toMatchObject({ reason: 'ATTEMPT_ENDED' });
    const published = await replay(`${prefix}candidate/pr-candidate.json`, '--json');
    expect(published.code).toBe(1);
    expect(published.json).toMatchObject({ reason: 'ALREADY_PUBLISHED' });
    expect(h.pending()).toEqual([]);
  });
});

describe('replays and the continuation limit', () => {
  it(
    'a replayed continuation does not count: after it the attempt may still continue for lack of time, and completes',
    async () => {
      short = true;
      expect((await h.deliver('issues', h.payloads.labeled(4))).statusCode).toBe(202);
      const prefix = `runs/acme/orders/${(await h.json('issues/acme/orders/4/latest.json')).runId}/`;
      let phase: 'before' | 'armed' | 'killed' = 'before';
      const stop = h.interceptWorkerWrites((key) => {
        if (!key.startsWith(prefix)) return;
        // The invocation of continuation 2 dies at its first checkpoint.
        if (phase === 'before' && key.endsWith('/continue-2.json')) phase = 'armed';
        else if (phase === 'armed' && key.includes('/checkpoints/')) {
          phase = 'killed';
          throw new Killed(`killed before writing ${key}`);
        }
        // From the fourth continuation on there is time enough.
        if (key.endsWith('/continue-4.json')) short = false;
      });
      try {
        await h.drain({ throwOnError: false });
        expect(phase).toBe('killed');
        expect(await h.json(`${prefix}attempts/1/lease.json`)).toMatchObject({ continuation: 2 });
        h.clock.advance(20 * MINUTE);
        expect((await replay(`${prefix}attempts/1/continue-2.json`, '--json')).json).toMatchObject({ status: 'REPLAYED', continuation: 3 });
        await h.drain();
      } finally {
        stop();
        short = false;
      }
      const replayed = await Promise.all([1, 2, 3, 4].map(async (k) => (await h.json(`${prefix}attempts/1/continue-${k}.json`))?.reason === 'replay'));
      expect(replayed).toEqual([false, false, true, false]);
      expect(await h.json(`${prefix}run.json`)).toMatchObject({ status: 'PUBLISHED', attempt: 1 });
    },
    SLOW,
  );
});

describe('what replay refuses', () => {
  it.each([
    ['a key that is not a run key', 'locks/acme/orders/issues/1.json', 'NOT_A_RUN_KEY'],
    ['a look-alike run key', 'runs/acme/orders/NOTARUNID000/request.json', 'NOT_A_RUN_KEY'],
    ['a run that does not exist', 'runs/acme/orders/aaaaaaaaaaaa/request.json', 'RUN_NOT_FOUND'],
  ])('%s', async (_what, key, reason) => {
    const refused = await replay(key, '--json');
    expect(refused.code).toBe(1);
    expect(refused.json).toMatchObject({ status: 'REFUSED', reason });
    expect(refused.stderr).toContain(reason);
  });

  it(
    'a cancelled run, and a run.json key (it starts no step)',
    async () => {
      const prefix = await runThatDies(2);
      expect((await h.deliver('issue_comment', h.payloads.comment(2, '/agent cancel', { sender: MAINTAINER }))).statusCode).toBe(202);
      h.clock.advance(20 * MINUTE);
      expect((await replay(`${prefix}request.json`, '--json')).json).toMatchObject({ reason: 'RUN_CANCELLED' });
      expect((await replay(`${prefix}run.json`, '--json')).json).toMatchObject({ reason: 'NOT_REPLAYABLE' });
      expect(await h.store.get(`${prefix}attempts/1/continue-1.json`)).toBeUndefined();
    },
    SLOW,
  );

  it('usage: a bucket and a key are required (exit 2)', async () => {
    expect((await replay('')).code).toBe(2);
  });
});

describe('replaying a publisher step', () => {
  it(
    'a candidate whose publisher invocation was dead-lettered is re-put unchanged and published once',
    async () => {
      expect((await h.deliver('issues', h.payloads.labeled(3))).statusCode).toBe(202);
      const prefix = `runs/acme/orders/${(await h.json('issues/acme/orders/3/latest.json')).runId}/`;
      // The publisher fails for good, through its own and Lambda's retries: every pull request call answers 502.
      h.standin.faults.inject({ kind: '502', count: 1000, match: (r) => r.path.includes('/pulls') });
      const failed = await h.drain({ retries: 2, throwOnError: false });
      h.standin.faults.clear();
      expect(failed.filter((d) => d.fn === 'publisher' && d.key.endsWith('/pr-candidate.json')).map((d) => d.error !== undefined)).toEqual([true, true, true]);
      const candidate = await h.store.get(`${prefix}candidate/pr-candidate.json`);
      expect(candidate).toBeDefined();
      expect(await h.store.get(`${prefix}publish.json`)).toBeUndefined();

      const done = await replay(`${prefix}candidate/pr-candidate.json`);
      expect(done.code).toBe(0);
      expect(done.stdout).toContain('the publisher runs again');
      expect(Buffer.from((await h.store.get(`${prefix}candidate/pr-candidate.json`))!.body)).toEqual(Buffer.from(candidate!.body));
      // The re-put's own notification is what starts the publisher again.
      expect(h.pending()).toEqual([`${prefix}candidate/pr-candidate.json`]);
      await h.drain();
      expect(await h.json(`${prefix}publish.json`)).toMatchObject({ attempt: 1 });
      const branch = (await h.json(`${prefix}request.json`)).agentBranch;
      expect([...h.standin.repo(h.fullName).pulls.values()].filter((p) => p.head === branch)).toHaveLength(1);
    },
    SLOW,
  );
});
