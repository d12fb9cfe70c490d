import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGitHubApi } from '../../src/app/github/github-api.js';
import type { ArtifactStore } from '../../src/core/ports.js';
import { DEFAULT_POLICY, MAINTAINER, MIGRATION_CHANGED_FILES, startAppHarness, type AppHarness } from '../helpers/app-harness.js';

/**
 * The gate an approval covers is the publisher's (docs/trust-chain.md, "The gate an approval
 * covers"): the worker, with its own store, writes a `pendingGate` of its choosing into run.json
 * and, once the gate is shown, names `deploy/prod/secrets.yaml` in a new approval request. The
 * maintainer's `/agent approve` still approves the gate the publisher recorded and showed, over
 * the files the worker really changed; attempt 2 publishes exactly those.
 */
const POLICY = DEFAULT_POLICY.replace('  maxChangedFiles: 20\n', '  maxChangedFiles: 20\n  requireApprovalFor:\n    - pom.xml\n');
const SECRET_PATH = 'deploy/prod/secrets.yaml';

async function firstRun(h: AppHarness, issue: number): Promise<{ prefix: string; runId: string }> {
  expect((await h.deliver('issues', h.payloads.labeled(issue))).statusCode).toBe(202);
  const prefix = h
    .pending()
    .find((k) => k.endsWith('/request.json'))!
    .replace(/request\.json$/, '');
  return { prefix, runId: prefix.split('/')[3] };
}

describe('a worker that picks the gate an approval covers', () => {
  let h: AppHarness;
  let prefix = '';
  let runId = '';
  let workerStore: ArtifactStore | undefined;
  let shown = '';

  beforeAll(async () => {
    h = await startAppHarness({ policy: POLICY });
    ({ prefix, runId } = await firstRun(h, 1));
    const stop = h.interceptWorkerWrites((_key, store) => void (workerStore ??= store));
    await h.drain({ only: ['worker'] });
    stop();
    // The worker's forgeries, with its own store: a gate id of its choosing in run.json ...
    const run = await h.json(`${prefix}run.json`);
    await workerStore!.put(`${prefix}run.json`, JSON.stringify({ ...run, pendingGate: 'gate-0123456789abcdef' }));
    await h.drain();
    shown = h.comments(1).find((c) => c.user === h.botLogin)!.body;
    // ... and, after the gate was shown, an approval request naming another file.
    const asked = await h.json(`${prefix}attempts/1/approval-request.json`);
    await workerStore!.put(
      `${prefix}attempts/1/approval-request.json`,
      JSON.stringify({ ...asked, gateId: 'gate-0123456789abcdef', changes: [{ path: SECRET_PATH, contentId: 'b'.repeat(40) }] }),
    );
    await h.drain();
    expect((await h.deliver('issue_comment', h.payloads.comment(1, '/agent approve', { sender: MAINTAINER }))).statusCode).toBe(202);
    await h.drain();
  }, 180_000);

  afterAll(async () => h?.stop());

  it('shows the gate the publisher recomputed: every changed file, pom.xml raising REQUIRES_APPROVAL, nothing the worker named later', async () => {
    const gate = await h.json(`${prefix}control/gate-1.json`);
    expect(gate.changes.map((c: { path: string }) => c.path).sort()).toEqual(MIGRATION_CHANGED_FILES);
    expect(gate.violations).toContainEqual(expect.objectContaining({ rule: 'REQUIRES_APPROVAL', path: 'pom.xml' }));
    expect(shown).toContain(`gate \`${gate.gateId}\``);
    expect(shown).toContain('`pom.xml`');
    const now = h.comments(1).find((c) => c.user === h.botLogin && c.body.includes('draftsman:progress'))!.body;
    expect(now).not.toContain(SECRET_PATH);
  });

  it('approves that gate, not the one run.json names, and publishes exactly the files it covers', async () => {
    const gate = await h.json(`${prefix}control/gate-1.json`);
    expect(await h.json(`${prefix}control/approve-2.json`)).toMatchObject({ gateId: gate.gateId });
    expect(await h.json(`${prefix}attempts/2/request.json`)).toMatchObject({ approvedGates: [gate.gateId] });
    const published = await h.json(`${prefix}publish.json`);
    expect(published).toMatchObject({ runId, attempt: 2 });
    const candidate = await h.json(`${prefix}candidate/pr-candidate.json`);
    expect(candidate.files.map((f: { path: string }) => f.path).sort()).toEqual(MIGRATION_CHANGED_FILES);
    expect(candidate.files.map((f: { path: string; blobSha: string }) => `${f.path}@${f.blobSha}`).sort()).toEqual(
      gate.changes.map((c: { path: string; contentId: string }) => `${c.path}@${c.contentId}`).sort(),
    );
  });
});

/**
 * A worker that names other files in its first approval request gets a gate over those files,
 * shown as such; the approval covers them and nothing else, so the change it really made stops
 * again at the next attempt and nothing is published.
 */
describe('a worker that lies about what its gate covers', () => {
  let h: AppHarness;
  let prefix = '';

  beforeAll(async () => {
    h = await startAppHarness({ policy: POLICY });
    ({ prefix } = await firstRun(h, 2));
    const stop = h.interceptWorkerWrites(async (key, store) => {
      if (!key.endsWith('/attempts/1/progress.json')) return;
      const asked = await store.get(`${prefix}attempts/1/approval-request.json`);
      if (!asked) return;
      const claim = JSON.parse(new TextDecoder().decode(asked.body));
      if (claim.changes[0]?.path === 'README.md') return;
      await store.put(`${prefix}attempts/1/approval-request.json`, JSON.stringify({ ...claim, changes: [{ path: 'README.md', contentId: 'c'.repeat(40) }] }));
    });
    await h.drain({ only: ['worker'] });
    stop();
    await h.drain();
    expect((await h.deliver('issue_comment', h.payloads.comment(2, '/agent approve', { sender: MAINTAINER }))).statusCode).toBe(202);
    await h.drain();
  }, 180_000);

  afterAll(async () => h?.stop());

  it('records no gate for a change the trusted policy lets through, so there is nothing to approve and nothing is published', async () => {
    // README.md alone raises nothing under the trusted policy: no gate, and `/agent approve` has nothing to approve.
    expect(await h.store.get(`${prefix}control/gate-1.json`)).toBeUndefined();
    expect(await h.store.get(`${prefix}attempts/2/request.json`)).toBeUndefined();
    expect(h.comments(2).some((c) => c.body.includes('Nothing is waiting for approval'))).toBe(true);
    expect(h.standin.repo(h.fullName).pulls.size).toBe(0);
  });
});

/**
 * An approval is about a gate its author saw: a comment written before the gate was recorded
 * (an old `/agent approve` delivered again, or one typed before the run stopped) approves nothing.
 */
describe('an approve comment older than the gate', () => {
  let h: AppHarness;
  let prefix = '';

  beforeAll(async () => {
    h = await startAppHarness({ policy: POLICY });
    const written = h.clock.now();
    ({ prefix } = await firstRun(h, 3));
    h.clock.advance(5 * 60 * 1000);
    await h.drain();
    const old = h.payloads.comment(3, '/agent approve', { sender: MAINTAINER, createdAt: written });
    expect((await h.deliver('issue_comment', old)).statusCode).toBe(202);
    await h.drain();
  }, 180_000);

  afterAll(async () => h?.stop());

  it('is refused with a reply naming the gate; no attempt 2', async () => {
    const gate = await h.json(`${prefix}control/gate-1.json`);
    expect(h.comments(3).some((c) => c.body.includes(`before gate \`${gate.gateId}\``))).toBe(true);
    expect(await h.store.get(`${prefix}attempts/2/request.json`)).toBeUndefined();
  });
});

/**
 * The progress comment and the lock are the trusted functions' (docs/trust-chain.md, "The
 * progress comment and the lock"): the token a worker holds cannot edit the comment a maintainer
 * reads, and its store cannot release its issue's lock.
 */
describe('what a worker cannot touch', () => {
  let h: AppHarness;
  let lockDelete: unknown;

  beforeAll(async () => {
    h = await startAppHarness({ policy: POLICY });
    await firstRun(h, 4);
    let tried = false;
    const stop = h.interceptWorkerWrites(async (key, store) => {
      if (tried || !key.includes('/checkpoints/')) return;
      tried = true;
      lockDelete = await store.delete('locks/acme/orders/issues/4.json').then(
        () => 'deleted',
        (error: unknown) => error,
      );
    });
    await h.drain();
    stop();
  }, 180_000);

  afterAll(async () => h?.stop());

  it("cannot delete its issue's lock", () => {
    expect(lockDelete).toBeInstanceOf(Error);
    expect(String((lockDelete as Error).message)).toMatch(/AccessDenied|denied/i);
  });

  it('holds a token that cannot edit the progress comment', async () => {
    const ids = new Set(h.issued.filter((t) => t.fn === 'worker').map((t) => t.tokenId));
    expect(ids.size).toBeGreaterThan(0);
    const token = h.standin.state.tokenValues().find((v) => ids.has(h.tokenId(v) ?? ''))!;
    const progress = h.comments(4).find((c) => c.user === h.botLogin && c.body.includes('draftsman:progress'))!;
    const api = createGitHubApi({ token, baseUrl: h.standin.url, policy: { retries: 0, msPerSecond: 1 } });
    await expect(api.rest.issues.updateComment({ owner: 'acme', repo: 'orders', comment_id: progress.id, body: 'approved already' })).rejects.toMatchObject({
      status: 403,
    });
    expect(h.comments(4).find((c) => c.id === progress.id)!.body).toContain('**Approval needed**');
  });
});
