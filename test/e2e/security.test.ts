import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAINTAINER, MIGRATION_CHANGED_FILES, MODEL_API_KEY, READER, startAppHarness, type AppHarness } from '../helpers/app-harness.js';

/**
 * The security invariants on the whole App: token scopes per function, no secret anywhere a run
 * leaves a trace, signatures, redeliveries, permissions, the issue snapshot, and cancel.
 * One harness; each scenario uses its own issue, so locks and runs never collide.
 */

const CANARY = 'whsec_CANARY_6f1d0c9e2b7a4c38a5e1';

/** token-read's fixed scopes, plus the metadata:read GitHub grants every token. */
// A worker reads; it holds no issues permission (the progress comment is the publisher's).
const WORKER_SCOPES = { contents: 'read', metadata: 'read', checks: 'read', statuses: 'read', pull_requests: 'read' };

/** A task block that would change only README.md: what the edited issue asks for. */
const EDITED_BODY = `Please reword the README instead.

\`\`\`agent
mode: draft_pr
steps:
  - recipe: replace
    find: Orders
    replace: Purchases
\`\`\`
`;

describe('security invariants end to end', () => {
  let h: AppHarness;
  let fullRunPrefix: string;

  const runPrefixOf = async (issue: number): Promise<string | undefined> => {
    const latest = await h.json(`issues/acme/orders/${issue}/latest.json`);
    return latest ? `runs/acme/orders/${latest.runId}/` : undefined;
  };
  const requestKeysFor = async (issue: number): Promise<string[]> => {
    const keys: string[] = [];
    for (const o of await h.objects()) {
      if (!/^runs\/acme\/orders\/[^/]+\/request\.json$/.test(o.key)) continue;
      if (JSON.parse(o.text).issue?.number === issue) keys.push(o.key);
    }
    return keys;
  };

  beforeAll(async () => {
    h = await startAppHarness({ canary: CANARY, model: { script: () => ({ content: 'I could not find a safe change to make.' }) } });
    // Issue 1: a complete run, webhook -> worker -> publisher, for the scope and leak checks.
    expect((await h.deliver('issues', h.payloads.labeled(1))).statusCode).toBe(202);
    await h.drain();
    fullRunPrefix = (await runPrefixOf(1))!;
    // Issue 7: a task without recipe steps, so the worker asks the model (the leak scan covers its requests).
    h.standin.setIssue(h.fullName, 7, { body: 'Please replace the LegacyAuthClient.exchangeToken call in OrderService with TokenExchangeService.' });
    expect((await h.deliver('issues', h.payloads.labeled(7))).statusCode).toBe(202);
    await h.drain();
  }, 60_000);

  afterAll(async () => h?.stop());

  it('the complete run published a draft PR (the scenario the checks below look at)', async () => {
    expect(await h.json(`${fullRunPrefix}publish.json`)).toMatchObject({ prNumber: expect.any(Number) });
    expect(h.issued.map((t) => `${t.fn}:${t.role}`)).toEqual(expect.arrayContaining(['intake:read', 'worker:worker', 'publisher:write']));
    // The webhook answers without a token.
    expect(h.issued.filter((t) => t.fn === 'webhook')).toEqual([]);
  });

  it('the worker only ever held read-only tokens (no issues permission), and every API call and git request it made carried one and read', () => {
    const worker = h.issued.filter((t) => t.fn === 'worker');
    expect(worker.length).toBeGreaterThan(0);
    for (const t of worker) {
      expect(t.role).toBe('worker');
      expect(t.permissions).toEqual(WORKER_SCOPES);
    }
    const ids = new Set(worker.map((t) => t.tokenId));
    const calls = h.standin.calls.filter((c) => c.tokenId && ids.has(c.tokenId));
    expect(calls.length).toBeGreaterThan(3);
    for (const c of calls) {
      expect(c.tokenPermissions).toEqual(WORKER_SCOPES);
      expect(['GET', 'HEAD'], `${c.method} ${c.path}`).toContain(c.method);
      expect(`${c.method} ${c.path}`).not.toMatch(/ \/repos\/[^/]+\/[^/]+\/(git\/(blobs|trees|commits|refs)|pulls)/);
    }
    // Git over HTTP: every authorised request was made with a worker token with contents:read.
    const authorised = h.gitAccess.filter((a) => a.tokenId);
    expect(authorised.some((a) => a.service === 'git-upload-pack' && a.method === 'POST' && a.status === 200)).toBe(true);
    for (const a of authorised) {
      expect(ids.has(a.tokenId!)).toBe(true);
      expect(a.tokenPermissions).toMatchObject({ contents: 'read' });
      expect(a.access).toBe('read');
    }
    // Requests without a token were only the first, anonymous probes (401 then the credential).
    for (const a of h.gitAccess.filter((x) => !x.tokenId)) expect(a.status).toBe(401);
  });

  it('no function but the publisher got a write token, and that token never reached a clone', () => {
    const writers = h.issued.filter((t) => t.permissions.contents === 'write' || t.permissions.pull_requests === 'write');
    expect(writers.length).toBeGreaterThan(0);
    expect(new Set(writers.map((t) => t.fn))).toEqual(new Set(['publisher']));
    const publisherIds = new Set(h.issued.filter((t) => t.fn === 'publisher').map((t) => t.tokenId));
    expect(h.gitAccess.filter((a) => a.tokenId && publisherIds.has(a.tokenId))).toEqual([]);
    // The publisher reads the policy and the base tree, and writes git data, the PR and comments;
    // it never fetches repository content over git (the harness wires no model at all).
    const publisherCalls = h.standin.calls.filter((c) => c.tokenId && publisherIds.has(c.tokenId));
    expect(publisherCalls.length).toBeGreaterThan(0);
    for (const c of publisherCalls)
      expect(c.path).toMatch(/^\/repos\/acme\/orders(\/git\/|\/pulls|\/issues|\/contents\/\.agent-policy\.yaml$|\/branches\/|\/commits\/|$)/);
  });

  it('the model was asked only by the worker, with the model key alone, and saw the task but no token', () => {
    const requests = h.model!.requests;
    expect(requests.length).toBeGreaterThan(0);
    for (const r of requests) {
      expect(r.authorization).toBe(`Bearer ${MODEL_API_KEY}`);
      expect(r.problems).toEqual([]);
      for (const token of h.standin.state.tokenValues()) expect(r.raw).not.toContain(token);
    }
    expect(requests.some((r) => r.raw.includes('TokenExchangeService'))).toBe(true);
  });

  it('no minted token, no line of the App private key and no webhook secret appears in S3, a log line, a comment, a PR or a request body', async () => {
    const secrets = h.secrets();
    expect(secrets.filter((s) => s.label.startsWith('token:')).length).toBeGreaterThanOrEqual(3);
    expect(secrets.some((s) => s.label === 'private-key')).toBe(true);
    expect(secrets.some((s) => s.value === CANARY)).toBe(true);
    // The scan has something to look at.
    expect((await h.objects()).length).toBeGreaterThan(20);
    expect(h.logs.lines.length).toBeGreaterThan(5);
    expect(await h.leaks()).toEqual([]);
  });

  it('a bad signature gets 401 and changes nothing: no S3 object, no API call, no comment', async () => {
    const objects = (await h.objects()).map((o) => `${o.key}:${o.text.length}`);
    const calls = h.standin.calls.length;
    const comments = h.comments(6).length;
    const issued = h.issued.length;
    const res = await h.deliver('issues', h.payloads.labeled(6), { badSignature: true });
    expect(res.statusCode).toBe(401);
    expect((await h.objects()).map((o) => `${o.key}:${o.text.length}`)).toEqual(objects);
    expect(h.standin.calls.length).toBe(calls);
    expect(h.comments(6)).toHaveLength(comments);
    expect(h.pending()).toEqual([]);
    expect(h.issued).toHaveLength(issued);
  });

  it('a redelivery (same delivery id) creates no second run, neither while the run is queued nor after it finished', async () => {
    const payload = h.payloads.labeled(2);
    const first = await h.deliver('issues', payload);
    expect(first.statusCode).toBe(202);
    const again = await h.deliver('issues', payload, { deliveryId: first.deliveryId });
    expect(again.statusCode).toBe(202);
    expect(await requestKeysFor(2)).toHaveLength(1);
    expect(h.comments(2)).toHaveLength(1);
    const dispatched = await h.drain();
    expect(dispatched.filter((d) => d.fn === 'worker').map((d) => d.key)).toEqual([(await requestKeysFor(2))[0]]);
    const prefix = (await runPrefixOf(2))!;
    expect(await h.json(`${prefix}publish.json`)).toBeDefined();
    const pulls = h.standin.repo(h.fullName).pulls.size;

    // GitHub redelivers the same delivery after everything finished.
    const late = await h.deliver('issues', payload, { deliveryId: first.deliveryId });
    expect(late.statusCode).toBe(202);
    expect(await requestKeysFor(2)).toHaveLength(1);
    expect(h.comments(2)).toHaveLength(1);
    expect(h.pending()).toEqual([]);
    expect(h.standin.repo(h.fullName).pulls.size).toBe(pulls);
    // It must not leave the issue locked either: a new run can start right away.
    expect(await h.store.get('locks/acme/orders/issues/2.json')).toBeUndefined();
  });

  it('a comment by a read-only user starts nothing and gets one short reply', async () => {
    const before = h.comments(5).length;
    const res = await h.deliver('issue_comment', h.payloads.comment(5, '/agent run', { sender: READER }));
    expect(res.statusCode).toBe(202);
    const added = h.comments(5).slice(before);
    expect(added).toHaveLength(1);
    expect(added[0].body).toContain(`@${READER}`);
    expect(added[0].body).toContain('`write`');
    expect(added[0].body.length).toBeLessThan(200);
    expect(await requestKeysFor(5)).toEqual([]);
    expect(await h.store.get('locks/acme/orders/issues/5.json')).toBeUndefined();
    expect(await h.store.get('issues/acme/orders/5/latest.json')).toBeUndefined();
    expect(h.pending()).toEqual([]);
  });

  it('an issue edited after the label does not change the task: the candidate follows the snapshot', async () => {
    const original = h.standin.repo(h.fullName).issues.get(3)!.body;
    expect((await h.deliver('issues', h.payloads.labeled(3))).statusCode).toBe(202);
    h.clock.advance(60_000);
    h.standin.setIssue(h.fullName, 3, { body: EDITED_BODY, title: 'Reword the README' });
    await h.drain({ only: ['worker'] });
    const prefix = (await runPrefixOf(3))!;
    const request = await h.json(`${prefix}request.json`);
    expect(request.issue.body).toBe(original);
    expect(request.issue.title).toBe('Migrate to Jakarta Persistence (3)');
    const candidate = await h.json(`${prefix}candidate/pr-candidate.json`);
    expect(candidate.files.map((f: { path: string }) => f.path).sort()).toEqual(MIGRATION_CHANGED_FILES);
    expect(candidate.title).not.toContain('README');
    await h.drain();
  });

  it('/agent cancel stops a running worker between phases: CANCELLED, no candidate, the lock released', async () => {
    expect((await h.deliver('issues', h.payloads.labeled(4))).statusCode).toBe(202);
    let cancelled = false;
    const stop = h.interceptWorkerWrites(async (key) => {
      // The maintainer cancels while the worker is checkpointing its first phase.
      if (cancelled || !key.includes('/checkpoints/')) return;
      cancelled = true;
      const res = await h.deliver('issue_comment', h.payloads.comment(4, '/agent cancel', { sender: MAINTAINER }));
      expect(res.statusCode).toBe(202);
    });
    try {
      await h.drain();
    } finally {
      stop();
    }
    expect(cancelled).toBe(true);
    const prefix = (await runPrefixOf(4))!;
    expect(await h.json(`${prefix}control/cancel.json`)).toMatchObject({ by: MAINTAINER, attempt: 1 });
    expect(await h.json(`${prefix}run.json`)).toMatchObject({ status: 'CANCELLED', attempt: 1 });
    const keys = (await h.objects()).map((o) => o.key).filter((k) => k.startsWith(prefix));
    expect(keys.filter((k) => k.includes('/candidate/'))).toEqual([]);
    expect(keys.filter((k) => k.includes('/checkpoints/')).length).toBeLessThan(10);
    expect(await h.store.get('locks/acme/orders/issues/4.json')).toBeUndefined();
    const progress = h.comments(4).find((c) => c.user === h.botLogin)!;
    expect(progress.body).toContain('**Status:** CANCELLED');
    const branch = (await h.json(`${prefix}request.json`)).agentBranch;
    expect([...h.standin.repo(h.fullName).pulls.values()].filter((p) => p.head === branch)).toEqual([]);
  });
});
