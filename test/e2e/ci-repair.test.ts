import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_POLICY, startAppHarness, type AppHarness } from '../helpers/app-harness.js';
import { parentsOf, pushHumanCommit } from '../helpers/push-commit.js';

/**
 * A failing check suite on an agent PR's head starts one `ci-repair` attempt per head SHA, with
 * the failing checks' output and annotations in its task. The run is recipe-only (the migration
 * task): the repair re-runs the recipe on the branch head. After a maintainer pushed a file that
 * still imports javax.persistence, the repair migrates it in one commit on top; on the repair's
 * own head there is nothing left to change, and the PR says so once.
 */

const ISSUE = 2;
const LEGACY = 'order-service/src/main/java/com/acme/order/LegacyOrder.java';
const LEGACY_SOURCE = 'package com.acme.order;\n\nimport javax.persistence.Entity;\n\n@Entity\npublic class LegacyOrder {\n}\n';
const withRepairs = (n: number) => DEFAULT_POLICY.replace('  maxChangedFiles: 20\n', `  maxChangedFiles: 20\n  ciRepair:\n    maxAttempts: ${n}\n`);

async function publishRun(h: AppHarness): Promise<{ prefix: string; branch: string; prNumber: number; head: string }> {
  await h.deliver('issues', h.payloads.labeled(ISSUE));
  await h.drain();
  const latest = await h.json(`issues/acme/orders/${ISSUE}/latest.json`);
  const prefix = `runs/acme/orders/${latest.runId}/`;
  const published = await h.json(`${prefix}publish.json`);
  return { prefix, branch: published.branch, prNumber: published.prNumber, head: published.publishedCommitSha };
}

/** A failing suite on `sha` (with a failing check run carrying output and an annotation), delivered as `check_suite.completed`. */
async function failSuite(h: AppHarness, sha: string, branch: string, name = 'build'): Promise<Record<string, unknown>> {
  const suite = h.standin.addCheckSuite(h.fullName, {
    headSha: sha,
    headBranch: branch,
    conclusion: 'failure',
    runs: [
      {
        name,
        conclusion: 'failure',
        output: { title: 'Compilation failed', summary: 'javax.persistence does not exist' },
        annotations: [{ path: LEGACY, startLine: 3, endLine: 3, level: 'failure', message: 'package javax.persistence does not exist' }],
      },
    ],
  });
  const payload = h.payloads.checkSuiteCompleted({ id: suite.id, headSha: sha, headBranch: branch, conclusion: 'failure' });
  expect((await h.deliver('check_suite', payload)).statusCode).toBe(202);
  return payload;
}

describe('ci repair: failing checks on an agent PR', () => {
  let h: AppHarness;
  let run: Awaited<ReturnType<typeof publishRun>>;

  beforeAll(async () => {
    h = await startAppHarness({ policy: withRepairs(3) });
    run = await publishRun(h);
  }, 60_000);

  afterAll(async () => h?.stop());

  it('ci repair: a failing check suite triggers exactly one repair attempt per head SHA and the body shows it', async () => {
    const humanHead = await pushHumanCommit(h, run.branch, { [LEGACY]: LEGACY_SOURCE }, 'Add the legacy order entity');
    const first = await failSuite(h, humanHead, run.branch);
    const request = await h.json(`${run.prefix}attempts/2/request.json`);
    expect(request).toMatchObject({
      attempt: 2,
      reason: 'ci-repair',
      followUp: { kind: 'ci-repair', source: `repair-${humanHead}`, onto: { headSha: humanHead, branch: run.branch } },
    });
    expect(request.followUp.ciFailures.failures).toMatchObject([
      { name: 'build', conclusion: 'failure', title: 'Compilation failed', annotations: [{ path: LEGACY, startLine: 3 }] },
    ]);
    // While the repair is queued, a revision waits (one attempt at a time).
    await h.deliver('issue_comment', h.payloads.prComment(run.prNumber, '/agent revise also tidy up'));
    expect(h.comments(run.prNumber).at(-1)?.body).toContain('already active');
    // A second failing suite on the same head, and a redelivery, start nothing more.
    await failSuite(h, humanHead, run.branch, 'lint');
    await h.deliver('check_suite', first);
    expect(await h.store.get(`${run.prefix}attempts/3/request.json`)).toBeUndefined();
    await h.drain();

    const published = await h.json(`${run.prefix}publish.json`);
    expect(published).toMatchObject({ attempt: 2 });
    const head = (await h.standin.resolve(h.fullName, run.branch))!;
    expect(head).toBe(published.publishedCommitSha);
    expect(parentsOf(h, head)).toEqual([humanHead]);
    expect((await h.standin.readFile(h.fullName, run.branch, LEGACY))!.toString()).toContain('import jakarta.persistence.Entity;');
    const body = h.standin.repo(h.fullName).pulls.get(run.prNumber)!.body!;
    expect(body).toContain('## Revisions');
    expect(body).toContain('### Attempt 2: CI repair');
    expect(body).toContain(`\`${LEGACY}\``);
    // The attempt's ledger records the follow-up it worked from.
    const ledger = (await h.objects())
      .filter((o) => o.key.startsWith(`${run.prefix.replace(/^runs\//, 'trail/')}2/ledger/`))
      .map((o) => o.text)
      .join('\n');
    expect(ledger).toContain('Make the failing checks pass');
    // Once the repair is done, the same head's suite delivered again still starts nothing.
    await h.deliver('check_suite', first);
    expect(await h.store.get(`${run.prefix}attempts/3/request.json`)).toBeUndefined();
  }, 90_000);

  it('ci repair: on a head the recipe cannot improve, the repair says so on the PR once; the policy bounds the attempts', async () => {
    const repairHead = (await h.standin.resolve(h.fullName, run.branch))!;
    const suite = await failSuite(h, repairHead, run.branch);
    expect(await h.json(`${run.prefix}attempts/3/request.json`)).toMatchObject({ reason: 'ci-repair', followUp: { onto: { headSha: repairHead } } });
    await h.drain();
    expect(await h.standin.resolve(h.fullName, run.branch)).toBe(repairHead);
    const notes = h.comments(run.prNumber).filter((c) => c.body.includes('nothing more was changed'));
    expect(notes).toHaveLength(1);
    expect(notes[0].body).toContain(`CI failed on \`${repairHead.slice(0, 12)}\``);
    // The same head's suite again: its marker stops it (two of three repairs are used).
    await h.deliver('check_suite', suite);
    expect(await h.store.get(`${run.prefix}attempts/4/request.json`)).toBeUndefined();
    expect(h.comments(run.prNumber).filter((c) => c.body.includes('nothing more was changed'))).toHaveLength(1);

    // The third repair (a new head) uses up maxAttempts: 3; a failure on a later head starts nothing.
    await failSuite(h, await pushHumanCommit(h, run.branch, { 'NOTES.md': 'more\n' }, 'Notes'), run.branch);
    expect(await h.json(`${run.prefix}attempts/4/request.json`)).toMatchObject({ reason: 'ci-repair' });
    await h.drain();
    await failSuite(h, await pushHumanCommit(h, run.branch, { 'NOTES.md': 'even more\n' }, 'More notes'), run.branch);
    expect(await h.store.get(`${run.prefix}attempts/5/request.json`)).toBeUndefined();
    expect(h.pending().filter((k) => k.includes('/attempts/'))).toEqual([]);
  }, 90_000);
});

describe('ci repair: maxAttempts 0 turns it off', () => {
  let h: AppHarness;

  beforeAll(async () => {
    h = await startAppHarness({ policy: withRepairs(0) });
  }, 60_000);

  afterAll(async () => h?.stop());

  it('ci repair: with maxAttempts 0 a failing suite starts no attempt', async () => {
    const run = await publishRun(h);
    await failSuite(h, run.head, run.branch);
    expect(await h.store.get(`${run.prefix}attempts/2/request.json`)).toBeUndefined();
    expect(h.pending().filter((k) => k.includes('/attempts/'))).toEqual([]);
  }, 90_000);
});
