import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGitHubApi } from '../../src/app/github/github-api.js';
import { STANDIN_GITHUB_POLICY } from '../helpers/github-standin/index.js';
import { harnessReadTokens, startAppHarness, type AppHarness } from '../helpers/app-harness.js';

/**
 * Fault injection on the whole App (issue 8): S3 answering 500/503 for a while, GitHub
 * answering 502 and secondary-rate-limit 403s with retry-after, the publisher dying between
 * creating the ref and opening the PR. Each run must still end in exactly one draft PR with no
 * artifact lost and nothing duplicated. Then the canary scan over everything these runs left.
 */
const CANARY = 'whsec_RELIABILITY_CANARY_4b1e9f0a7c2d';
let h: AppHarness;

const latestRun = async (issue: number): Promise<string> => `runs/acme/orders/${(await h.json(`issues/acme/orders/${issue}/latest.json`)).runId}/`;

/** Keys under a run, with the run id taken out, so two runs of the same task compare. */
/** The run's keys; a dispatch record is named by the hash of a random capability, so only its presence counts. */
async function runShape(prefix: string): Promise<string[]> {
  return (await h.store.list(prefix)).map((k) => k.slice(prefix.length).replace(/^dispatch\/[0-9a-f]{64}\.json$/, 'dispatch/<capability>.json')).sort();
}

function pullsFor(branch: string) {
  return [...h.standin.repo(h.fullName).pulls.values()].filter((p) => p.head === branch);
}

/** Ledger entries of attempt 1: sequence numbers 0..n-1 with no gap and no repeat. */
async function ledgerSeqs(prefix: string): Promise<number[]> {
  const seqs: number[] = [];
  for (const key of await h.store.list(`${prefix.replace(/^runs\//, 'trail/')}1/ledger/`)) seqs.push((await h.json(key)).seq);
  return seqs;
}

let reference: { prefix: string; shape: string[]; headTreeSha: string };

beforeAll(async () => {
  h = await startAppHarness({ canary: CANARY });
  // Issue 1: the reference, no faults.
  expect((await h.deliver('issues', h.payloads.labeled(1))).statusCode).toBe(202);
  await h.drain();
  const prefix = await latestRun(1);
  reference = { prefix, shape: await runShape(prefix), headTreeSha: (await h.json(`${prefix}candidate/pr-candidate.json`)).headTreeSha };
}, 120_000);

afterAll(async () => h?.stop());

describe('S3 returns 500 and 503 for a while, then recovers', () => {
  it('the run completes with every artifact, one PR, and a gap-free ledger', async () => {
    const injectedBefore = h.s3.faults.injected();
    // The webhook's writes meet two 503s first.
    h.s3.faults.fail({ status: 503, count: 2 });
    expect((await h.deliver('issues', h.payloads.labeled(2))).statusCode).toBe(202);
    let armed = 0;
    const stop = h.interceptWorkerWrites((key) => {
      if (armed === 0 && key.includes('/checkpoints/')) {
        armed++;
        // At most four failures in a row for any one request: the store's five attempts absorb them.
        h.s3.faults.fail({ status: 500, count: 2 });
        // Lost answers: the write happened, the worker hears 500 (conditional writes must see their own object).
        h.s3.faults.fail({ status: 500, count: 2, after: true, match: (method) => method === 'PUT' });
      } else if (armed === 1 && key.includes('/ledger/')) {
        armed++;
        h.s3.faults.fail({ status: 503, count: 4 });
      } else if (armed === 2 && key.endsWith('/pr-candidate.json')) {
        armed++;
        h.s3.faults.fail({ status: 503, count: 3, match: (method) => method === 'PUT' });
        h.s3.faults.fail({ status: 500, count: 1, after: true, match: (method) => method === 'PUT' });
      }
    });
    try {
      await h.drain();
    } finally {
      stop();
    }
    expect(armed).toBe(3);
    expect(h.s3.faults.pending()).toBe(0);
    expect(h.s3.faults.injected() - injectedBefore).toBe(14);

    const prefix = await latestRun(2);
    expect(await runShape(prefix)).toEqual(reference.shape);
    const candidate = await h.json(`${prefix}candidate/pr-candidate.json`);
    expect(candidate.headTreeSha).toBe(reference.headTreeSha);
    const seqs = await ledgerSeqs(prefix);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i));
    expect(seqs).toEqual(await ledgerSeqs(reference.prefix));
    expect(await h.json(`${prefix}publish.json`)).toMatchObject({ prNumber: expect.any(Number) });
    expect(pullsFor(candidate.agentBranch ?? (await h.json(`${prefix}request.json`)).agentBranch)).toHaveLength(1);
    expect(h.comments(2).filter((c) => c.user === h.botLogin && c.body.includes('draftsman:progress'))).toHaveLength(1);
  }, 120_000);
});

describe('GitHub returns 502 and secondary rate limits, then recovers', () => {
  it('retry-after is honoured and 5xx back off', async () => {
    const broker = harnessReadTokens(h);
    const { token } = await broker.token({ installationId: h.installationId, repositoryId: h.repositoryId, role: 'read' });
    const limits: Record<string, unknown>[] = [];
    const logger = { debug() {}, info() {}, error() {}, warn: (_message: string, meta?: Record<string, unknown>) => void limits.push(meta ?? {}) };
    const api = createGitHubApi({ token, baseUrl: h.standin.url, policy: STANDIN_GITHUB_POLICY, logger });
    h.standin.faults.inject({ kind: 'secondary-rate-limit', count: 2, retryAfter: 7, match: (r) => r.method === 'GET' && r.path === '/repos/acme/orders' });
    h.standin.faults.inject({ kind: '502', count: 2, match: (r) => r.method === 'GET' && r.path === '/repos/acme/orders' });
    const callsBefore = h.standin.calls.length;
    const repo = await api.rest.repos.get({ owner: 'acme', repo: 'orders' });
    expect(repo.status).toBe(200);
    // Rules match in the order injected: two rate limits (7 s each, as told), then two 502s (the retry plugin's backoff).
    expect(limits).toEqual(
      [0, 1].map((retryCount) => ({ limit: 'secondary', route: 'GET /repos/{owner}/{repo}', retryAfterSeconds: 7, retryCount, retrying: true })),
    );
    expect(h.standin.calls.slice(callsBefore).map((c) => c.status)).toEqual([403, 403, 502, 502, 200]);
  });

  it('a whole run under 502s and rate limits on the webhook, worker and publisher calls: one comment, one ref, one PR', async () => {
    const fault = (kind: '502' | 'secondary-rate-limit', count: number, method: string, path: RegExp) =>
      h.standin.faults.inject({ kind, count, retryAfter: 2, match: (r) => r.method === method && path.test(r.path) });
    fault('502', 2, 'POST', /^\/repos\/acme\/orders\/issues\/3\/comments$/);
    fault('secondary-rate-limit', 1, 'GET', /^\/repos\/acme\/orders\/contents\/\.agent-policy\.yaml$/);
    fault('502', 2, 'POST', /^\/repos\/acme\/orders\/git\/trees$/);
    fault('secondary-rate-limit', 2, 'POST', /^\/repos\/acme\/orders\/git\/refs$/);
    fault('502', 1, 'POST', /^\/repos\/acme\/orders\/pulls$/);
    fault('secondary-rate-limit', 1, 'PATCH', /^\/repos\/acme\/orders\/issues\/comments\/\d+$/);
    const callsBefore = h.standin.calls.length;
    expect((await h.deliver('issues', h.payloads.labeled(3))).statusCode).toBe(202);
    await h.drain();
    expect(h.standin.faults.pending()).toBe(0);
    const calls = h.standin.calls.slice(callsBefore);
    expect(calls.filter((c) => c.status === 502)).toHaveLength(5);
    expect(calls.filter((c) => c.status === 403)).toHaveLength(4);

    const prefix = await latestRun(3);
    expect(await runShape(prefix)).toEqual(reference.shape);
    const branch = (await h.json(`${prefix}request.json`)).agentBranch;
    expect(pullsFor(branch)).toHaveLength(1);
    expect(calls.filter((c) => c.method === 'POST' && c.path.endsWith('/git/refs') && c.status === 201)).toHaveLength(1);
    expect(calls.filter((c) => c.method === 'POST' && c.path.endsWith('/pulls') && c.status === 201)).toHaveLength(1);
    // One progress comment on the issue (the failed creates never landed), plus nothing else from the webhook.
    expect(h.comments(3).filter((c) => c.user === h.botLogin && c.body.includes('draftsman:progress'))).toHaveLength(1);
  }, 120_000);
});

describe('the publisher killed after creating the ref, before opening the PR', () => {
  it('the retry opens exactly one PR on the same commit', async () => {
    // Every attempt to open the PR in the first invocation fails (1 + 3 retries): it dies there.
    h.standin.faults.inject({ kind: '502', count: 4, match: (r) => r.method === 'POST' && r.path === '/repos/acme/orders/pulls' });
    const callsBefore = h.standin.calls.length;
    expect((await h.deliver('issues', h.payloads.labeled(4))).statusCode).toBe(202);
    const dispatched = await h.drain({ retries: 2 });
    const publisherRuns = dispatched.filter((d) => d.fn === 'publisher' && d.key.endsWith('/pr-candidate.json'));
    expect(publisherRuns.map((d) => d.invocation)).toEqual([1, 2]);
    expect(publisherRuns[0].error).toBeDefined();
    expect(publisherRuns[1].error).toBeUndefined();

    const calls = h.standin.calls.slice(callsBefore);
    expect(calls.filter((c) => c.method === 'POST' && c.path.endsWith('/git/refs') && c.status === 201)).toHaveLength(1);
    const prefix = await latestRun(4);
    const branch = (await h.json(`${prefix}request.json`)).agentBranch;
    const pulls = pullsFor(branch);
    expect(pulls).toHaveLength(1);
    expect(pulls[0].draft).toBe(true);
    const publish = await h.json(`${prefix}publish.json`);
    expect(publish.prNumber).toBe(pulls[0].number);
    // The branch points at the commit the PR was opened for: the one the first invocation created.
    expect(await h.standin.resolve(h.fullName, `refs/heads/${branch}`)).toBe(publish.publishedCommitSha);
  }, 120_000);
});

describe('canary scan after the runs and the faults', () => {
  it('no minted token, no line of the App key, no webhook secret in any S3 object, log line, comment, PR or request body', async () => {
    const secrets = h.secrets();
    expect(secrets.filter((s) => s.label.startsWith('token:')).length).toBeGreaterThanOrEqual(10);
    expect(secrets.some((s) => s.value === CANARY)).toBe(true);
    expect((await h.objects()).length).toBeGreaterThan(100);
    expect(h.logs.lines.length).toBeGreaterThan(20);
    expect(await h.leaks()).toEqual([]);
  });

  it('the scan would see a leak: a token planted in a comment body is found', async () => {
    const token = secrets0(h);
    const repo = h.standin.repo(h.fullName);
    const id = Math.max(...repo.comments.keys()) + 1;
    repo.comments.set(id, { id, issueNumber: 9, body: `debug: ${token}`, user: { login: 'mallory', id: 1, type: 'User' }, createdAt: 0, updatedAt: 0 });
    try {
      expect(await h.leaks()).toEqual(expect.arrayContaining([expect.objectContaining({ where: `github:comment:${id}` })]));
    } finally {
      repo.comments.delete(id);
    }
  });
});

function secrets0(harness: AppHarness): string {
  return harness.secrets().find((s) => s.label.startsWith('token:'))!.value;
}
