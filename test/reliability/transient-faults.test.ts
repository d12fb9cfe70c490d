import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArtifactStoreError } from '../../src/core/artifacts/artifact-error.js';
import { mavenMultiModuleRepo } from '../fixtures/realistic-repos.js';
import { DEFAULT_POLICY, startAppHarness, type AppHarness } from '../helpers/app-harness.js';
import { answer, callTools } from '../helpers/scripted-model-server.js';

/**
 * Transient faults inside a phase (docs/architecture.md, "Transient faults"): S3 failing longer
 * than the store's own retries absorb, in the middle of a phase, fails the worker invocation;
 * Lambda's retry (same payload, same request id) resumes the attempt from its last checkpoint,
 * replaying the model exchanges it recorded. The run ends as a fault-free run of the same task
 * would: one draft PR, the same tree, a ledger without gap. A deterministic failure still ends
 * the attempt FAILED, without a retry.
 */

/** The S3 adapter's attempts per request (its default): this many 503s in a row exhaust them. */
const STORE_ATTEMPTS = 5;
const RESUMED_LOG = 'retry of a failed invocation: resuming the attempt';

const latestRun = async (h: AppHarness, issue: number): Promise<string> =>
  `runs/acme/orders/${(await h.json(`issues/acme/orders/${issue}/latest.json`)).runId}/`;

/** The ledger of attempt 1, in sequence order. */
async function ledger(h: AppHarness, prefix: string): Promise<{ seq: number; type: string; phase?: string; payload: Record<string, unknown> }[]> {
  const out = [];
  for (const key of await h.store.list(`${prefix.replace(/^runs\//, 'trail/')}1/ledger/`)) out.push(await h.json(key));
  return out.sort((a, b) => a.seq - b.seq);
}

function expectGapFree(entries: { seq: number }[]): void {
  expect(entries.map((e) => e.seq)).toEqual(Array.from({ length: entries.length }, (_, i) => i));
}

function pullsFor(h: AppHarness, branch: string) {
  return [...h.standin.repo(h.fullName).pulls.values()].filter((p) => p.head === branch);
}

/** Request bodies compare by digest: a difference shows as one line, not two prompts. */
const digest = (raw: string): string => createHash('sha256').update(raw).digest('hex');

/** Log lines of the worker resuming an attempt after its own failed invocation. */
const resumedLines = (h: AppHarness): number => h.logs.lines.filter((l) => l.includes(RESUMED_LOG)).length;

/**
 * Arms `arm` once, just before the worker's first write whose key `when` accepts (while the
 * write is on its way, so that very write meets what `arm` injects); returns an unsubscribe.
 */
function onceBeforeWrite(h: AppHarness, when: (key: string) => boolean, arm: (key: string) => void): { fired: () => boolean; stop: () => void } {
  let fired = false;
  const stop = h.interceptWorkerWrites((key) => {
    if (fired || !when(key)) return;
    fired = true;
    arm(key);
  });
  return { fired: () => fired, stop };
}

/** Every PUT of exactly `key` fails with 503 as often as the store tries: the store gives up (STORE_UNAVAILABLE). */
function outageOf(h: AppHarness, key: string): void {
  h.s3.faults.fail({ status: 503, count: STORE_ATTEMPTS, match: (method, k) => method === 'PUT' && k === key });
}

describe('recipe runs: S3 outages inside a phase', () => {
  let h: AppHarness;
  let reference: { prefix: string; headTreeSha: string; ledger: { type: string; phase?: string }[] };

  beforeAll(async () => {
    h = await startAppHarness();
    expect((await h.deliver('issues', h.payloads.labeled(1))).statusCode).toBe(202);
    await h.drain({ retries: 2 });
    const prefix = await latestRun(h, 1);
    reference = { prefix, headTreeSha: (await h.json(`${prefix}candidate/pr-candidate.json`)).headTreeSha, ledger: await ledger(h, prefix) };
    expect(resumedLines(h)).toBe(0);
  }, 120_000);

  afterAll(async () => h?.stop());

  it('a patch write inside the change phase outlasting the store retries: the invocation fails, the retry resumes, one PR with the same tree', async () => {
    expect((await h.deliver('issues', h.payloads.labeled(2))).statusCode).toBe(202);
    const fault = onceBeforeWrite(
      h,
      (key) => key.includes('/attempts/1/patches/'),
      (key) => outageOf(h, key),
    );
    try {
      await h.drain({ retries: 2 });
    } finally {
      fault.stop();
    }
    expect(fault.fired()).toBe(true);
    expect(h.s3.faults.pending()).toBe(0);
    const prefix = await latestRun(h, 2);
    const run = await h.json(`${prefix}run.json`);
    expect(run.status).toBe('PUBLISHED');
    // The first invocation threw; Lambda's retry took the lease over and resumed from the checkpoints.
    expect(resumedLines(h)).toBe(1);
    const entries = await ledger(h, prefix);
    expectGapFree(entries);
    const interrupted = entries.filter((e) => e.type === 'PHASE_INTERRUPTED');
    expect(interrupted).toEqual([expect.objectContaining({ phase: 'mechanical_change', payload: expect.objectContaining({ reason: 'STORE_UNAVAILABLE' }) })]);
    expect(entries.filter((e) => e.type === 'RESUMED')).toEqual([expect.objectContaining({ phase: 'baseline' })]);
    expect(entries.some((e) => e.type === 'PHASE_FAILED')).toBe(false);
    // The retry did not start over: the phases before the fault ran once.
    const started = (list: { type: string; phase?: string }[]) => list.filter((e) => e.type === 'PHASE_STARTED').map((e) => e.phase);
    const phases = started(reference.ledger);
    const change = phases.indexOf('mechanical_change');
    expect(started(entries)).toEqual([...phases.slice(0, change + 1), ...phases.slice(change)]);

    const candidate = await h.json(`${prefix}candidate/pr-candidate.json`);
    expect(candidate.headTreeSha).toBe(reference.headTreeSha);
    const branch = (await h.json(`${prefix}request.json`)).agentBranch;
    const pulls = pullsFor(h, branch);
    expect(pulls).toHaveLength(1);
    expect(pulls[0].draft).toBe(true);
  }, 120_000);

  it('a ledger write inside a phase outlasting the store retries leaves no gap in the sequence', async () => {
    const before = resumedLines(h);
    expect((await h.deliver('issues', h.payloads.labeled(3))).statusCode).toBe(202);
    // The first ledger write after the change phase's patch: SEGMENT_RECORDED, inside the phase.
    let patched = false;
    const fault = onceBeforeWrite(
      h,
      (key) => {
        if (key.includes('/attempts/1/patches/')) patched = true;
        return patched && /^trail\/.+\/1\/ledger\//.test(key);
      },
      (key) => outageOf(h, key),
    );
    try {
      await h.drain({ retries: 2 });
    } finally {
      fault.stop();
    }
    expect(fault.fired()).toBe(true);
    const prefix = await latestRun(h, 3);
    expect((await h.json(`${prefix}run.json`)).status).toBe('PUBLISHED');
    expect(resumedLines(h) - before).toBe(1);
    const entries = await ledger(h, prefix);
    expectGapFree(entries);
    expect(entries.filter((e) => e.type === 'PHASE_INTERRUPTED')).toHaveLength(1);
    expect((await h.json(`${prefix}candidate/pr-candidate.json`)).headTreeSha).toBe(reference.headTreeSha);
    expect(pullsFor(h, (await h.json(`${prefix}request.json`)).agentBranch)).toHaveLength(1);
  }, 120_000);

  it('a deterministic store failure inside a phase still ends the attempt FAILED, without a retry', async () => {
    const before = resumedLines(h);
    expect((await h.deliver('issues', h.payloads.labeled(4))).statusCode).toBe(202);
    // What the S3 adapter throws for an answer no retry fixes (access denied).
    const fault = onceBeforeWrite(
      h,
      (key) => key.includes('/attempts/1/patches/'),
      (key) => {
        throw new ArtifactStoreError('STORE_REQUEST_FAILED', `S3 put failed for ${key}: AccessDenied`, { operation: 'put', key, attempts: 1, status: 403 });
      },
    );
    let dispatched;
    try {
      dispatched = await h.drain({ retries: 2 });
    } finally {
      fault.stop();
    }
    expect(fault.fired()).toBe(true);
    expect(dispatched.filter((d) => d.fn === 'worker').every((d) => d.error === undefined)).toBe(true);
    expect(resumedLines(h) - before).toBe(0);
    const prefix = await latestRun(h, 4);
    const run = await h.json(`${prefix}run.json`);
    expect(run.status).toBe('FAILED');
    const entries = await ledger(h, prefix);
    expectGapFree(entries);
    expect(entries.filter((e) => e.type === 'PHASE_FAILED')).toEqual([
      expect.objectContaining({ phase: 'mechanical_change', payload: expect.objectContaining({ reason: 'PHASE_FAILED' }) }),
    ]);
    expect(entries.some((e) => e.type === 'PHASE_INTERRUPTED')).toBe(false);
    expect(await h.store.get(`${prefix}candidate/pr-candidate.json`)).toBeUndefined();
  }, 120_000);

  it('an outage that never clears ends with the platform retries: three invocations, each resumed, no PR, the lease kept for the sweeper', async () => {
    const before = resumedLines(h);
    expect((await h.deliver('issues', h.payloads.labeled(5))).statusCode).toBe(202);
    const invocations = 3; // the first and Lambda's two retries
    const fault = onceBeforeWrite(
      h,
      (key) => key.includes('/attempts/1/patches/'),
      (key) => h.s3.faults.fail({ status: 503, count: invocations * STORE_ATTEMPTS, match: (method, k) => method === 'PUT' && k === key }),
    );
    let dispatched;
    try {
      dispatched = await h.drain({ retries: 2, throwOnError: false });
    } finally {
      fault.stop();
    }
    expect(h.s3.faults.pending()).toBe(0);
    const worker = dispatched.filter((d) => d.fn === 'worker');
    expect(worker).toHaveLength(1);
    expect(worker[0].error).toBeInstanceOf(ArtifactStoreError);
    expect((worker[0].error as ArtifactStoreError).reason).toBe('STORE_UNAVAILABLE');
    expect(resumedLines(h) - before).toBe(invocations - 1);
    const prefix = await latestRun(h, 5);
    expect(await h.store.get(`${prefix}run.json`)).toBeUndefined();
    expect(await h.store.get(`${prefix}candidate/pr-candidate.json`)).toBeUndefined();
    expect(await h.json(`${prefix}attempts/1/lease.json`)).toMatchObject({ continuation: 0 });
    const entries = await ledger(h, prefix);
    expectGapFree(entries);
    expect(entries.filter((e) => e.type === 'PHASE_INTERRUPTED')).toHaveLength(invocations);
    expect(entries.some((e) => e.type === 'PHASE_FAILED')).toBe(false);
  }, 120_000);
});

describe('model runs: a transient fault after some model calls', () => {
  const SERVICE = 'order-service/src/main/java/com/acme/order/OrderService.java';
  const files: Record<string, string> = { ...mavenMultiModuleRepo(), '.agent-policy.yaml': DEFAULT_POLICY };
  const edited = files[SERVICE].replace('legacyAuthClient.exchangeToken(code)', 'legacyAuthClient.exchangeToken(code.trim())');
  let h: AppHarness;
  let reference: { requests: string[]; headTreeSha: string };

  /** The model's turn within its conversation, so every run of the task gets the same answers: read, write, finish. */
  const script = (body: { messages: { role: string }[] }) => {
    const turn = body.messages.filter((m) => m.role === 'assistant').length;
    if (turn === 0) return callTools({ id: 'read-1', name: 'file_read', arguments: { path: SERVICE } });
    if (turn === 1) return callTools({ id: 'write-1', name: 'file_write', arguments: { path: SERVICE, content: edited } });
    return answer('Trimmed the code before the token exchange in OrderService.');
  };

  const runIssue = async (issue: number): Promise<{ prefix: string; requests: string[] }> => {
    h.standin.setIssue(h.fullName, issue, {
      title: 'Trim the code before the token exchange',
      body: 'The LegacyAuthClient.exchangeToken call in OrderService fails when the code has surrounding whitespace; trim it first.',
    });
    const from = h.model!.requests.length;
    expect((await h.deliver('issues', h.payloads.labeled(issue))).statusCode).toBe(202);
    await h.drain({ retries: 2 });
    return { prefix: await latestRun(h, issue), requests: h.model!.requests.slice(from).map((r) => digest(r.raw)) };
  };

  beforeAll(async () => {
    h = await startAppHarness({ files, model: { script } });
    const run = await runIssue(1);
    expect((await h.json(`${run.prefix}run.json`)).status).toBe('PUBLISHED');
    reference = { requests: run.requests, headTreeSha: (await h.json(`${run.prefix}candidate/pr-candidate.json`)).headTreeSha };
    expect(reference.requests).toHaveLength(3);
  }, 120_000);

  afterAll(async () => h?.stop());

  it('an outage after the segment: the retry replays every recorded exchange and asks the model nothing again', async () => {
    const fault = onceBeforeWrite(
      h,
      (key) => key.includes('/attempts/1/patches/'),
      (key) => outageOf(h, key),
    );
    let run;
    try {
      run = await runIssue(2);
    } finally {
      fault.stop();
    }
    expect(fault.fired()).toBe(true);
    expect((await h.json(`${run.prefix}run.json`)).status).toBe('PUBLISHED');
    expect(run.requests).toEqual(reference.requests);
    const entries = await ledger(h, run.prefix);
    expectGapFree(entries);
    expect(entries.filter((e) => e.type === 'MODEL_EXCHANGE')).toHaveLength(3);
    expect((await h.json(`${run.prefix}candidate/pr-candidate.json`)).headTreeSha).toBe(reference.headTreeSha);
    expect(pullsFor(h, (await h.json(`${run.prefix}request.json`)).agentBranch)).toHaveLength(1);
    expect(h.model!.problems()).toEqual([]);
  }, 120_000);

  it("an outage in a tool's ledger write between two model calls: the invocation fails instead of telling the model, and the retry pays only the call it never made", async () => {
    // The edit's ledger entry (EDIT_APPLIED), written while file_write runs: after the second exchange was recorded.
    let exchanges = 0;
    const from = h.model!.requests.length;
    const fault = onceBeforeWrite(
      h,
      (key) => /^trail\/.+\/1\/ledger\//.test(key) && h.model!.requests.length - from === 2 && ++exchanges === 2,
      (key) => outageOf(h, key),
    );
    let run;
    try {
      run = await runIssue(3);
    } finally {
      fault.stop();
    }
    expect(fault.fired()).toBe(true);
    expect((await h.json(`${run.prefix}run.json`)).status).toBe('PUBLISHED');
    // Byte for byte what a fault-free run asked: the store's error never reached the conversation.
    expect(run.requests).toEqual(reference.requests);
    for (const r of h.model!.requests.slice(from)) expect(r.raw).not.toContain('STORE_UNAVAILABLE');
    const entries = await ledger(h, run.prefix);
    expectGapFree(entries);
    expect(entries.filter((e) => e.type === 'MODEL_EXCHANGE')).toHaveLength(3);
    expect(entries.filter((e) => e.type === 'EDIT_APPLIED')).toHaveLength(1);
    expect((await h.json(`${run.prefix}candidate/pr-candidate.json`)).headTreeSha).toBe(reference.headTreeSha);
  }, 120_000);
});
