import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_POLICY_FILE_BYTES } from '../../src/core/policy/agent-policy.js';
import { startAppHarness, type AppHarness } from '../helpers/app-harness.js';

/**
 * A `.agent-policy.yaml` over 1 MiB on the default branch, which GitHub's contents API answers
 * with `encoding: "none"` and no content: the webhook, the worker and the publisher each read it
 * through the one trusted-policy reader and refuse it with the same reason,
 * POLICY_FILE_TOO_LARGE. The policy grows after the webhook accepted two runs, so the worker
 * and the publisher meet it too.
 */
const OVERSIZED = `version: 1\n#${'x'.repeat(MAX_POLICY_FILE_BYTES)}\n`;

/** Commit one file on `main` of the stand-in's bare repository with git plumbing. */
function commitOnMain(h: AppHarness, path: string, content: string): void {
  const gitdir = join(h.standin.gitRoot, h.owner, `${h.repo}.git`);
  const index = join(gitdir, 'test-index');
  const env = { ...process.env, GIT_DIR: gitdir, GIT_INDEX_FILE: index, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'm', GIT_AUTHOR_EMAIL: 'm@example.com', GIT_COMMITTER_NAME: 'm', GIT_COMMITTER_EMAIL: 'm@example.com', GIT_AUTHOR_DATE: '2026-02-03T05:00:00Z', GIT_COMMITTER_DATE: '2026-02-03T05:00:00Z' };
  const git = (args: string[], input?: string) => execFileSync('git', args, { env, input, maxBuffer: 64 * 1024 * 1024 }).toString().trim();
  const parent = git(['rev-parse', 'refs/heads/main']);
  git(['read-tree', parent]);
  const blob = git(['hash-object', '-w', '--stdin'], content);
  git(['update-index', '--add', '--cacheinfo', `100644,${blob},${path}`]);
  const tree = git(['write-tree']);
  const commit = git(['commit-tree', tree, '-p', parent, '-m', 'grow the policy']);
  git(['update-ref', 'refs/heads/main', commit, parent]);
}

describe('a policy file over 1 MiB', () => {
  let h: AppHarness;
  let publishedRun: string;
  let workerRun: string;

  beforeAll(async () => {
    h = await startAppHarness();
    expect((await h.deliver('issues', h.payloads.labeled(1))).statusCode).toBe(202);
    await h.drain({ only: ['worker'] });
    publishedRun = (await h.json('issues/acme/orders/1/latest.json')).runId;
    expect((await h.deliver('issues', h.payloads.labeled(2))).statusCode).toBe(202);
    workerRun = (await h.json('issues/acme/orders/2/latest.json')).runId;
    commitOnMain(h, '.agent-policy.yaml', OVERSIZED);
    // Queue order: the publisher for issue 1's candidate, then the worker for issue 2.
    await h.drain();
  }, 300_000);

  afterAll(async () => h?.stop());

  it('the publisher refuses the candidate: POLICY_REFUSED because of POLICY_FILE_TOO_LARGE, no pull request', async () => {
    const publisher = h.dispatched.find((d) => d.fn === 'publisher' && d.key.includes(publishedRun));
    expect(publisher?.error).toBeUndefined();
    expect(publisher?.publisher?.[0]).toMatchObject({ kind: 'candidate', outcome: { kind: 'refused', reason: 'POLICY_REFUSED', error: { data: { policyReason: 'POLICY_FILE_TOO_LARGE' } } } });
    expect(h.standin.repo(h.fullName).pulls.size).toBe(0);
    expect(await h.store.get('locks/acme/orders/issues/1.json')).toBeUndefined();
  });

  it('the worker ends the attempt BLOCKED with POLICY_FILE_TOO_LARGE instead of throwing, and releases the lock', async () => {
    const worker = h.dispatched.find((d) => d.fn === 'worker' && d.key.includes(workerRun));
    expect(worker?.error).toBeUndefined();
    expect(await h.json(`runs/acme/orders/${workerRun}/run.json`)).toMatchObject({ status: 'BLOCKED', reason: 'POLICY_FILE_TOO_LARGE', attempts: [{ n: 1, status: 'BLOCKED', reason: 'POLICY_FILE_TOO_LARGE' }] });
    expect((await h.objects()).filter((o) => o.key.startsWith(`runs/acme/orders/${workerRun}/candidate/`))).toEqual([]);
    expect(await h.store.get('locks/acme/orders/issues/2.json')).toBeUndefined();
    expect(h.comments(2).find((c) => c.user === h.botLogin)?.body).toContain('POLICY_FILE_TOO_LARGE');
  });

  it('the webhook starts nothing and says why in the Action Required comment', async () => {
    expect((await h.deliver('issues', h.payloads.labeled(3))).statusCode).toBe(202);
    expect(await h.store.get('issues/acme/orders/3/latest.json')).toBeUndefined();
    const notes = h.comments(3).filter((c) => c.user === h.botLogin);
    expect(notes).toHaveLength(1);
    expect(notes[0].body).toContain('Action Required');
    expect(notes[0].body).toContain(`at most ${MAX_POLICY_FILE_BYTES} bytes`);
  });
});
