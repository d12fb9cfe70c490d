import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGitHubApi } from '../../src/app/github/github-api.js';
import { postAnalysisReport } from '../../src/app/publisher/analysis-comment.js';
import type { ArtifactStore } from '../../src/core/ports.js';
import { analysisReportMarker, GITHUB_COMMENT_LIMIT } from '../../src/core/phases/analysis-report.js';
import { parseTask } from '../../src/core/task/parse-task.js';
import { MIGRATION_CHANGED_FILES, directWorkerHandler, startAppHarness, type AppHarness } from '../helpers/app-harness.js';

/**
 * `/agent analyze` end to end: a signed issue_comment delivery -> webhook -> worker over the git
 * http-backend and s3rver -> the analysis report posted on the issue as its own comment, the
 * full report stored as run-report.md, and nothing changed on GitHub.
 */

const ISSUE = 3;

const workerWith = (h: AppHarness, store: ArtifactStore) => directWorkerHandler(h, store);

/** A store whose process "dies" on the first write of a key matching `at` (and every write after). */
function dyingAt(inner: ArtifactStore, at: RegExp): ArtifactStore {
  let dead = false;
  const check = (key: string) => {
    if (!dead && at.test(key)) dead = true;
    if (dead) throw new Error(`died before writing ${key}`);
  };
  return {
    get: (key) => inner.get(key),
    list: (prefix) => inner.list(prefix),
    delete: async (key) => (check(key), inner.delete(key)),
    put: async (key, body, options) => (check(key), inner.put(key, body, options)),
    putIfAbsent: async (key, body, options) => (check(key), inner.putIfAbsent(key, body, options)),
    putIfMatch: async (key, body, etag, options) => (check(key), inner.putIfMatch(key, body, etag, options)),
  };
}

describe('analysis report: /agent analyze posts the report on the issue', () => {
  let h: AppHarness;
  let runPrefix: string;
  let request: { runId: string; agentBranch: string };
  let report: { id: number; body: string; user: string };
  let progress: string;
  let postedBeforeRetry: number;

  beforeAll(async () => {
    h = await startAppHarness();
    const ack = await h.deliver('issue_comment', h.payloads.comment(ISSUE, '/agent analyze'));
    expect(ack.statusCode).toBe(202);
    const requestKey = h.pending().find((k) => k.endsWith('/request.json'))!;
    runPrefix = requestKey.replace(/request\.json$/, '');
    request = (await h.json(requestKey))!;
    // The first invocation dies before its last progress (its write of latest.json fails); Lambda
    // retries the same event with the same request id, and the retry resumes the attempt. The
    // worker writes nothing on GitHub: the publisher posts the report from the last progress, and
    // a second delivery of that notification finds the comment it posted.
    const context = { awsRequestId: 'analysis-1', getRemainingTimeInMillis: () => 900_000 };
    await expect(workerWith(h, dyingAt(h.store, /\/latest\.json$/))({ key: requestKey, capability: 'c'.repeat(43) }, context)).rejects.toThrow(
      'died before writing',
    );
    await h.drain({ only: ['publisher'] });
    postedBeforeRetry = h.comments(ISSUE).filter((c) => c.body.includes('draftsman:analysis-report')).length;
    await workerWith(h, h.store)({ key: requestKey, capability: 'c'.repeat(43) }, context);
    await h.drain({ only: ['publisher'] });
    h.requeue(`${runPrefix}attempts/1/progress.json`);
    await h.drain({ only: ['publisher'] });
    const bot = h.comments(ISSUE).filter((c) => c.user === h.botLogin);
    report = bot.find((c) => c.body.startsWith(analysisReportMarker(request.runId, 1)))!;
    progress = bot.find((c) => c.body.includes('draftsman:progress'))!.body;
  }, 90_000);

  afterAll(async () => h?.stop());

  it('analysis report: posted once on the issue with every section, within the comment limit, though the worker was retried', () => {
    expect(postedBeforeRetry).toBe(0);
    expect(report, 'the report comment').toBeDefined();
    expect(h.comments(ISSUE).filter((c) => c.body.includes('draftsman:analysis-report'))).toHaveLength(1);
    expect(report.body.length).toBeLessThanOrEqual(GITHUB_COMMENT_LIMIT);
    for (const heading of ['### Plan', '### Target files', '### Modules and owners', '### Risk (forecast)', '### Open questions', '### Ready-to-paste task'])
      expect(report.body).toContain(heading);
    // The plan in words, each step with the files the target selection said it would change.
    expect(report.body).toContain('1. migrate-import: move imports from javax.persistence to jakarta.persistence; would change 2 files');
    expect(report.body).toContain('2. bump-dependency: bump org.springframework.boot:spring-boot-starter-parent to 3.2.5; would change 1 file: `pom.xml`');
    for (const path of MIGRATION_CHANGED_FILES) expect(report.body).toContain(`| \`${path}\` |`);
    // CODEOWNERS owners of the module, never as a mention.
    expect(report.body).toMatch(/\| order-service \| \d+ \| [^\n]*`acme\/orders`/);
    expect(report.body).not.toMatch(/(^|\s)@acme\//m);
    expect(report.body).toMatch(/the risk would be \*\*(LOW|MEDIUM|HIGH)\*\*/);
  });

  it('analysis report: claims no change, and none happened (no pull request, no new branch)', () => {
    expect(report.body).toContain('draftsman changed no file, made no commit and opened no pull request');
    expect(report.body).not.toMatch(/\bChanged \d+ files?\b/i);
    expect(report.body).not.toMatch(/\b\d+ files? changed\b/i);
    expect(h.standin.repo(h.fullName).pulls.size).toBe(0);
    expect(progress).toContain('**Status:** COMPLETED');
    expect(progress).toContain(`analysis finished: the report is posted on this issue (`);
    expect(progress).not.toContain('see run-report.md');
  });

  it('analysis report: the agent block runs the same steps as a draft PR when pasted under /agent run', async () => {
    const task = parseTask({ title: 'Migrate', body: '', comment: `/agent run\n${report.body}`, source: 'github' });
    expect(task.mode).toBe('draft_pr');
    const issueTask = parseTask({ title: 'Migrate', body: h.standin.repo(h.fullName).issues.get(ISSUE)!.body ?? '', source: 'github' });
    expect(task.steps).toEqual(issueTask.steps);
    expect(await h.standin.resolve(h.fullName, `refs/heads/${request.agentBranch}`)).toBeUndefined();
  });

  it('analysis report: the full report is the run-report.md artifact, the same text when it fits', async () => {
    const stored = (await h.objects()).find((o) => o.key === `${runPrefix}attempts/1/run-report.md`);
    expect(stored?.text).toBe(report.body);
  });

  it('analysis report: posting again for the same attempt edits the one comment, never adds one', async () => {
    // The publisher's token, as a retried publisher invocation holds it (the worker's cannot comment).
    const ids = new Set(h.issued.filter((t) => t.fn === 'publisher').map((t) => t.tokenId));
    const token = h.standin.state.tokenValues().find((v) => ids.has(h.tokenId(v) ?? ''))!;
    const api = createGitHubApi({ token, baseUrl: h.standin.url, policy: { retries: 0, msPerSecond: 1 } });
    const target = { owner: h.owner, repo: h.repo, issue: ISSUE, runId: request.runId, attempt: 1 };
    await postAnalysisReport(api, target, report.body);
    await postAnalysisReport(api, target, `${report.body}\nedited`);
    const reports = h.comments(ISSUE).filter((c) => c.body.includes('draftsman:analysis-report'));
    expect(reports).toHaveLength(1);
    expect(reports[0].id).toBe(report.id);
    expect(reports[0].body.endsWith('\nedited')).toBe(true);
    // A delivery of the same attempt again is a duplicate: still one report.
    h.requeue(`${runPrefix}request.json`);
    await h.drain();
    expect(h.comments(ISSUE).filter((c) => c.body.includes('draftsman:analysis-report'))).toHaveLength(1);
  });
});

describe('analysis report: a labelled issue without steps and without a model', () => {
  let h: AppHarness;
  let report: string | undefined;

  beforeAll(async () => {
    h = await startAppHarness();
    h.standin.setIssue(h.fullName, 5, { title: 'Rename the class `OrderService` to `OrderManager`', body: 'The name no longer fits what it does.' });
    expect((await h.deliver('issues', h.payloads.labeled(5))).statusCode).toBe(202);
    await h.drain();
    report = h.comments(5).find((c) => c.user === h.botLogin && c.body.startsWith('<!-- draftsman:analysis-report '))?.body;
  }, 90_000);

  afterAll(async () => h?.stop());

  it('analysis report: is posted, changes nothing, and suggests the recipe its words name', () => {
    expect(report, 'the report comment').toBeDefined();
    expect(report).toContain('The task has no recipe steps and no model is configured, so a draft PR would have nothing to apply');
    expect(report).toContain('its words name a recipe. This block is a suggestion read from them');
    expect(report).toContain('order-service/src/main/java/com/acme/order/OrderService.java');
    expect(report).not.toMatch(/\bChanged \d+ files?\b/i);
    expect(h.standin.repo(h.fullName).pulls.size).toBe(0);
    const pasted = parseTask({ title: 't', body: '', comment: `/agent run\n${report}`, source: 'github' });
    expect(pasted.steps).toEqual([{ recipe: 'rename-symbol', from: 'OrderService', to: 'OrderManager', kind: 'class' }]);
  });
});
