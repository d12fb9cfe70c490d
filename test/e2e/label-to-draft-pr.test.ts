import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PHASE_CONTRACTS, PHASE_NAMES } from '../../src/core/phases/phase-contracts.js';
import { ISSUE_ID_BASE, MIGRATION_CHANGED_FILES, startAppHarness, type AppHarness, type DeliveryResult } from '../helpers/app-harness.js';

/**
 * Issues 6 and 7 end to end: a signed `issues.labeled` delivery -> webhook 202 -> worker over the
 * git http-backend and s3rver -> candidate -> publisher -> a draft PR on the stand-in -> a CI
 * check suite on the PR head -> the PR body's Verification section.
 */

const ISSUE = 1;

function lsTree(gitdir: string, ref: string): Map<string, string> {
  const out = execFileSync('git', ['--git-dir', gitdir, 'ls-tree', '-r', ref], { encoding: 'utf8' });
  const entries = new Map<string, string>();
  for (const line of out.split('\n').filter(Boolean)) {
    const [meta, path] = line.split('\t');
    const [mode, , sha] = meta.split(' ');
    entries.set(path, `${mode} ${sha}`);
  }
  return entries;
}

describe('a labelled issue becomes a draft pull request', () => {
  let h: AppHarness;
  let ack: DeliveryResult;
  let labeled: { issue: { updated_at: string }; label: { id: number } };
  let runPrefix: string;
  let commentAfterWorker: string;
  let objectsAfterWorker: string[];
  let candidate: any;
  let request: any;
  let linesOfTheRun: Record<string, unknown>[];

  beforeAll(async () => {
    h = await startAppHarness();
    labeled = h.payloads.labeled(ISSUE) as typeof labeled;
    ack = await h.deliver('issues', labeled);
    const requestKey = h.pending().find((k) => k.endsWith('/request.json'))!;
    runPrefix = requestKey.replace(/request\.json$/, '');
    request = await h.json(requestKey);
    await h.drain({ only: ['worker'] });
    objectsAfterWorker = (await h.objects()).map((o) => o.key);
    // The worker's progress reaches the issue through the publisher, before the candidate does.
    await h.drain({ keys: (key) => key.endsWith('/progress.json') });
    commentAfterWorker = h.comments(ISSUE).find((c) => c.user === h.botLogin)!.body;
    candidate = await h.json(`${runPrefix}candidate/pr-candidate.json`);
    await h.drain();
    linesOfTheRun = h.logs.entries();
  }, 60_000);

  afterAll(async () => h?.stop());

  it('the webhook acknowledges with 202 and stores the snapshot of the issue', () => {
    expect(ack.statusCode).toBe(202);
    expect(request).toMatchObject({
      owner: 'acme',
      repo: 'orders',
      // The trigger key is signed content (issue id, label id, the issue's updated_at), never the delivery header.
      trigger: { kind: 'label', key: `label-${ISSUE_ID_BASE + ISSUE}-${labeled.label.id}-${labeled.issue.updated_at}`, sender: 'maya' },
      issue: { number: ISSUE, title: 'Migrate to Jakarta Persistence (1)' },
      agentBranch: `agent/i${ISSUE}/r${request.runId}`,
      source: { kind: 'github', repositoryId: h.repositoryId, installationId: h.installationId },
    });
    expect(request.issue.body).toContain('recipe: migrate-import');
  });

  it('the worker leaves a candidate in S3 on the default branch head', async () => {
    for (const name of ['pr-candidate.json', 'pr-body.md', 'diff-summary.json']) expect(objectsAfterWorker).toContain(`${runPrefix}candidate/${name}`);
    expect(candidate.files.map((f: { path: string }) => f.path).sort()).toEqual(MIGRATION_CHANGED_FILES);
    for (const f of candidate.files) expect(objectsAfterWorker).toContain(`${runPrefix}candidate/changes/${f.blobSha}`);
    // The worker passed its ingestion bracket to the pipeline: entered and left once.
    expect(h.ingestionMemoryCalls).toEqual(['enter', 'leave']);
    expect(candidate.baseCommitSha).toBe(await h.standin.resolve(h.fullName, 'refs/heads/main'));
    expect(candidate).toMatchObject({ runId: request.runId, attempt: 1, headBranch: request.agentBranch, baseBranch: 'main', draft: true });
  });

  it('the progress comment showed every one of the ten phases done', () => {
    const titles = PHASE_NAMES.map((n) => PHASE_CONTRACTS[n].title);
    expect(titles).toHaveLength(10);
    for (const title of titles) expect(commentAfterWorker).toContain(`- ✅ ${title}\n`);
    expect(commentAfterWorker).toContain('**Status:** PUBLISHING');
    expect(commentAfterWorker).toContain(`**Base commit:** \`${candidate.baseCommitSha}\``);
  });

  it('after publication the progress comment links the draft PR and still shows the ten phases done', () => {
    const pr = [...h.standin.repo(h.fullName).pulls.values()][0];
    const body = h.comments(ISSUE).find((c) => c.user === h.botLogin)!.body;
    expect(body).toContain('**Status:** PUBLISHED');
    expect(body).toContain(`/pull/${pr.number}`);
    for (const n of PHASE_NAMES) expect(body).toContain(`- ✅ ${PHASE_CONTRACTS[n].title}\n`);
  });

  it('the run wrote one EMF line per stage that ran, the attempt’s start and end, one for the publication, and the run’s outcomes (started, published), each with the run, repository and installation', () => {
    const metrics = linesOfTheRun.filter((e) => e.msg === 'metric');
    const outcomes = metrics.filter((e) => e.runOutcomes !== undefined);
    expect(outcomes).toEqual([
      expect.objectContaining({ outcome: 'started', fn: 'worker', repository: h.fullName, installation: String(h.installationId), runId: request.runId }),
      expect.objectContaining({ outcome: 'published', fn: 'publisher', repository: h.fullName, installation: String(h.installationId), runId: request.runId }),
    ]);
    const attempts = metrics.filter((e) => e.fn === 'worker' && e.phase === undefined && e.runOutcomes === undefined);
    expect(attempts).toEqual([
      expect.objectContaining({ attemptsStarted: 1, attempt: 1, runId: request.runId, repository: h.fullName }),
      expect.objectContaining({ attemptsEnded: 1, status: 'COMPLETED', attempt: 1, runId: request.runId, installationId: h.installationId }),
    ]);
    // Recipes only: no model ran, so no model metric.
    expect(attempts[1]).not.toHaveProperty('modelCalls');
    const phases = metrics.filter((e) => e.fn === 'worker' && e.phase !== undefined);
    expect(phases.map((e) => e.phase)).toEqual(['ingestion', ...PHASE_NAMES]);
    for (const e of phases) {
      expect(e).toMatchObject({ state: 'done', phaseFailed: 0, runId: request.runId, repository: h.fullName, installationId: h.installationId });
      expect(typeof e.phaseMs).toBe('number');
      expect(e._aws).toMatchObject({ CloudWatchMetrics: [{ Namespace: 'draftsman', Dimensions: [['fn', 'phase']] }] });
    }
    const pr = [...h.standin.repo(h.fullName).pulls.values()][0];
    const publications = metrics.filter((e) => e.fn === 'publisher' && e.runOutcomes === undefined);
    expect(publications).toEqual([
      expect.objectContaining({
        outcome: 'published',
        prNumber: pr.number,
        publishCount: 1,
        publishFiles: MIGRATION_CHANGED_FILES.length,
        publishLines: candidate.diffSummary.insertions + candidate.diffSummary.deletions,
        runId: request.runId,
        repository: h.fullName,
        installationId: h.installationId,
      }),
    ]);
    expect(metrics).toHaveLength(attempts.length + phases.length + publications.length + outcomes.length);
    // Every line about the run, not only the metrics, names it.
    for (const e of linesOfTheRun.filter((l) => l.fn !== 'webhook' && l.fn !== 'intake')) expect(e.runId, String(e.msg)).toBe(request.runId);
    // The webhook's and the intake's lines name the signed delivery, its repository and installation.
    for (const fn of ['webhook', 'intake']) {
      const delivery = linesOfTheRun.filter((l) => l.fn === fn);
      expect(delivery.length, fn).toBeGreaterThan(0);
      for (const e of delivery)
        expect(e, String(e.msg)).toMatchObject({ delivery: expect.any(String), repository: h.fullName, installationId: h.installationId });
    }
  });

  it('the candidate holds the migrated sources and the bumped parent', async () => {
    const read = async (path: string) => {
      const file = candidate.files.find((f: { path: string }) => f.path === path);
      const object = await h.store.get(`${runPrefix}candidate/changes/${file.blobSha}`);
      return Buffer.from(object!.body).toString('utf8');
    };
    const entity = await read('order-api/src/main/java/com/acme/order/api/OrderRequest.java');
    expect(entity).toContain('import jakarta.persistence.Entity;');
    expect(entity).not.toContain('javax.persistence');
    expect(await read('pom.xml')).toMatch(/<artifactId>spring-boot-starter-parent<\/artifactId>\s*<version>3\.2\.5<\/version>/);
  });

  it('the publisher opens one draft PR whose head commit has the candidate tree on the base as sole parent', async () => {
    const pulls = [...h.standin.repo(h.fullName).pulls.values()];
    expect(pulls).toHaveLength(1);
    const pr = pulls[0];
    expect(pr).toMatchObject({ draft: true, state: 'open', head: request.agentBranch, base: 'main', user: { login: h.botLogin } });
    const head = (await h.standin.resolve(h.fullName, `refs/heads/${request.agentBranch}`))!;
    const gitdir = join(h.standin.gitRoot, 'acme', 'orders.git');
    const tree = execFileSync('git', ['--git-dir', gitdir, 'rev-parse', `${head}^{tree}`], { encoding: 'utf8' }).trim();
    const parents = execFileSync('git', ['--git-dir', gitdir, 'rev-list', '--parents', '-n', '1', head], { encoding: 'utf8' }).trim().split(' ').slice(1);
    expect(tree).toBe(candidate.headTreeSha);
    expect(parents).toEqual([candidate.baseCommitSha]);
    expect(await h.standin.resolve(h.fullName, 'refs/heads/main')).toBe(candidate.baseCommitSha);
    const published = await h.json(`${runPrefix}publish.json`);
    expect(published).toMatchObject({
      publishedCommitSha: head,
      treeSha: candidate.headTreeSha,
      baseCommitSha: candidate.baseCommitSha,
      prNumber: pr.number,
      branch: request.agentBranch,
    });
  });

  it('the branch content is the base with exactly the candidate files replaced', async () => {
    const gitdir = join(h.standin.gitRoot, 'acme', 'orders.git');
    const expected = lsTree(gitdir, candidate.baseCommitSha);
    for (const f of candidate.files) expected.set(f.path, `${f.mode} ${f.blobSha}`);
    expect(lsTree(gitdir, `refs/heads/${request.agentBranch}`)).toEqual(expected);
    for (const f of candidate.files) {
      const onBranch = await h.standin.readFile(h.fullName, `refs/heads/${request.agentBranch}`, f.path);
      const inS3 = await h.store.get(`${runPrefix}candidate/changes/${f.blobSha}`);
      expect(onBranch?.equals(Buffer.from(inS3!.body))).toBe(true);
    }
  });

  it('the commit was created with no custom author or committer, so GitHub signs it as the App', () => {
    const commitCalls = h.standin.calls.filter((c) => c.method === 'POST' && c.path.endsWith('/git/commits'));
    expect(commitCalls).toHaveLength(1);
    const body = commitCalls[0].body as Record<string, unknown>;
    expect(body).toMatchObject({ tree: candidate.headTreeSha, parents: [candidate.baseCommitSha] });
    expect(body).not.toHaveProperty('author');
    expect(body).not.toHaveProperty('committer');
    expect(h.standin.repo(h.fullName).createdCommits).toEqual([expect.objectContaining({ customAuthor: false, customCommitter: false })]);
  });

  it('S3 delivering request.json and pr-candidate.json again changes nothing: the lease and publish.json hold', async () => {
    const calls = h.standin.calls.length;
    // Each delivery gets its own capability record under dispatch/; nothing else may change.
    const snapshot = async () => (await h.objects()).filter((o) => !o.key.startsWith(`${runPrefix}dispatch/`)).map((o) => `${o.key}:${o.text}`);
    const objects = await snapshot();
    h.requeue(`${runPrefix}request.json`);
    h.requeue(`${runPrefix}candidate/pr-candidate.json`);
    const dispatched = await h.drain();
    expect(dispatched.map((d) => d.fn)).toEqual(['worker', 'publisher']);
    expect(dispatched[1].publisher?.[0]).toMatchObject({ kind: 'candidate', outcome: { kind: 'already-published' } });
    expect(h.standin.repo(h.fullName).pulls.size).toBe(1);
    expect(h.standin.calls.slice(calls).filter((c) => c.method !== 'GET' && !c.path.endsWith('/access_tokens'))).toEqual([]);
    expect(await snapshot()).toEqual(objects);
  });

  it('a check suite completing on the PR head updates the Verification section of the PR body', async () => {
    const pr = [...h.standin.repo(h.fullName).pulls.values()][0];
    const before = pr.body ?? '';
    expect(before).toContain('## Verification');
    expect(before).not.toContain('**CI results** (failure');
    const head = (await h.standin.resolve(h.fullName, `refs/heads/${request.agentBranch}`))!;
    const suite = h.standin.addCheckSuite(h.fullName, {
      headSha: head,
      headBranch: request.agentBranch,
      conclusion: 'failure',
      runs: [
        { name: 'build (17)', conclusion: 'success', detailsUrl: 'https://ci.example/build/17' },
        { name: 'integration-tests', conclusion: 'failure', detailsUrl: 'https://ci.example/it/1' },
      ],
    });
    const res = await h.deliver(
      'check_suite',
      h.payloads.checkSuiteCompleted({ id: suite.id, headSha: head, headBranch: request.agentBranch, conclusion: 'failure' }),
    );
    expect(res.statusCode).toBe(202);
    // The failing suite also starts the one CI repair the default policy allows (test/e2e/ci-repair.test.ts).
    expect(h.pending()).toEqual([`${runPrefix}ci/${suite.id}.json`, `${runPrefix}attempts/2/request.json`]);
    await h.drain({ only: ['publisher'] });
    const after = h.standin.repo(h.fullName).pulls.get(pr.number)!.body ?? '';
    expect(after).toContain(`**CI results** (mixed on \`${head.slice(0, 12)}\`)`);
    expect(after).toMatch(/\| \[integration-tests\]\(https:\/\/ci\.example\/it\/1\) \| completed \| failure \|/);
    expect(after).toMatch(/\| \[build \(17\)\]\(https:\/\/ci\.example\/build\/17\) \| completed \| success \|/);
    // Only the Verification section changed: what precedes it is byte-identical.
    const cut = (body: string) => body.slice(0, body.indexOf('## Verification'));
    expect(cut(after)).toBe(cut(before));
  });
});
