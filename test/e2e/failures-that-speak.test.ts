import { afterEach, describe, expect, it } from 'vitest';
import { mavenMultiModuleRepo } from '../fixtures/realistic-repos.js';
import { MIGRATION_ISSUE_BODY, startAppHarness, type AppHarness, type AppHarnessOptions } from '../helpers/app-harness.js';
import { answer } from '../helpers/scripted-model-server.js';

/**
 * A run that cannot reach a working model says so on the issue, in the progress comment the
 * admin reads: the setting that is missing (before any phase runs), or the provider that
 * refused, its HTTP status, the wait it asked for and what to do. Nothing points at the ledger.
 */
const PROSE_TASK = 'Guard the LegacyAuthClient.exchangeToken call in OrderService against surrounding whitespace in the code.';

describe('failures that speak, through the App', () => {
  let h: AppHarness | undefined;
  afterEach(async () => {
    await h?.stop();
    h = undefined;
  });

  const start = async (options: AppHarnessOptions) => (h = await startAppHarness({ files: mavenMultiModuleRepo(), ...options }));
  const runIssue = async (harness: AppHarness, issue: number, body: string) => {
    harness.standin.setIssue(harness.fullName, issue, { title: 'Trim the token exchange code', body });
    expect((await harness.deliver('issues', harness.payloads.labeled(issue))).statusCode).toBe(202);
    await harness.drain();
    const latest = await harness.json(`issues/acme/orders/${issue}/latest.json`);
    const run = await harness.json(`runs/acme/orders/${latest.runId}/run.json`);
    return { run, body: harness.comments(issue).find((c) => c.user === harness.botLogin)?.body ?? '' };
  };

  it('a missing model key ends a model task before its first phase, naming the setting; a recipe task still runs', async () => {
    const harness = await start({ model: { script: () => answer('x') }, modelCall: { provider: 'anthropic', apiKey: '' } });

    const prose = await runIssue(harness, 1, PROSE_TASK);

    expect(prose.run).toMatchObject({ status: 'FAILED', reason: 'MODEL_CONFIG_INVALID' });
    expect(prose.body).toContain('**Status:** FAILED');
    expect(prose.body).toContain('the model is not configured: MODEL_API_KEY is missing (provider anthropic needs an API key); fix');
    expect(prose.body).toContain('`/agent retry`');
    // No phase ran: no ingestion, no model request.
    expect(await harness.store.list(`runs/acme/orders/${prose.run.runId}/attempts/1/checkpoints/`)).toEqual([]);
    expect(harness.model!.requests).toHaveLength(0);

    const recipe = await runIssue(harness, 2, MIGRATION_ISSUE_BODY);
    expect(recipe.run.status).toBe('PUBLISHED');
    expect(harness.standin.repo(harness.fullName).pulls).toHaveLength(1);
  }, 300_000);

  it('a rate-limited provider: the issue names the provider, the HTTP status, the Retry-After and what to do', async () => {
    const harness = await start({
      model: {
        script: () => ({ status: 429, headers: { 'retry-after': '30' }, body: '{"error":{"message":"Rate limit reached for requests","type":"requests"}}' }),
      },
    });

    const { run, body } = await runIssue(harness, 3, PROSE_TASK);

    expect(run).toMatchObject({ status: 'FAILED', reason: 'MODEL_ERROR' });
    expect(body).toContain(`MODEL_RATE_LIMITED: model endpoint ${harness.model!.baseUrl}/chat/completions answered HTTP 429`);
    expect(body).toContain('Rate limit reached for requests');
    expect(body).toContain('provider openai, model scripted, 1 attempt, Retry-After 30 s');
    expect(body).toContain("the provider's rate limit or quota for this key is used up: wait for the time it asks (Retry-After)");
    expect(body).not.toContain('see the ledger');
  }, 300_000);

  it('a worker killed during a model call: the next sweep after its heartbeat went stale ends the run and says so on the issue', async () => {
    let killed = false;
    const harness = await start({
      model: {
        script: () => {
          // The process dies while the provider is answering: from here on, nothing it does reaches the bucket.
          killed = true;
          return { status: 500 };
        },
      },
    });
    harness.interceptWorkerWrites(() => {
      if (killed) throw new Error('the worker process is gone');
    });
    harness.standin.setIssue(harness.fullName, 4, { title: 'Trim the token exchange code', body: PROSE_TASK });
    await harness.deliver('issues', harness.payloads.labeled(4));
    await harness.drain({ throwOnError: false });
    expect(killed).toBe(true);
    const latest = await harness.json('issues/acme/orders/4/latest.json');
    const runKey = `runs/acme/orders/${latest.runId}/run.json`;
    const progressBody = () => harness.comments(4).find((c) => c.user === harness.botLogin)?.body ?? '';
    // The worker writes run.json when the attempt ends: the issue still says it runs.
    expect(await harness.json(runKey)).toBeUndefined();
    expect(progressBody()).toContain('**Status:** RUNNING');
    expect(await harness.json(`runs/acme/orders/${latest.runId}/attempts/1/heartbeat.json`)).toMatchObject({ state: 'running' });

    // Three minutes later the worker may still be waiting on its provider: a sweep leaves it be.
    harness.clock.advance(3 * 60_000);
    expect((await harness.sweep()).runsFailed).toEqual([]);
    expect(progressBody()).toContain('**Status:** RUNNING');

    // Past four minutes without a beat, the sweep (every 15 minutes when deployed) ends it.
    harness.clock.advance(2 * 60_000);
    const report = await harness.sweep();

    expect(report.runsFailed).toMatchObject([{ issue: 4, runId: latest.runId, commentUpdated: true }]);
    expect(await harness.json(runKey)).toMatchObject({ status: 'FAILED', reason: 'STUCK' });
    expect(progressBody()).toContain('**Status:** FAILED');
    expect(progressBody()).toContain('the worker stopped answering: its last heartbeat was 5 minutes ago');
    expect(await harness.json('locks/acme/orders/issues/4.json')).toBeUndefined();
  }, 300_000);

  it('a worker that dies before its first heartbeat: the first sweep ten minutes after its dispatch ends the run and says the worker never started', async () => {
    const harness = await start({ model: { script: () => answer('unused') } });
    // The worker process dies as it starts (a crash at import, a bad deployment): nothing it writes reaches the bucket.
    harness.interceptWorkerWrites(() => {
      throw new Error('the worker process is gone');
    });
    harness.standin.setIssue(harness.fullName, 6, { title: 'Trim the token exchange code', body: PROSE_TASK });
    await harness.deliver('issues', harness.payloads.labeled(6));
    await harness.drain({ throwOnError: false });
    const latest = await harness.json('issues/acme/orders/6/latest.json');
    const progressBody = () => harness.comments(6).find((c) => c.user === harness.botLogin)?.body ?? '';
    expect(await harness.json(`runs/acme/orders/${latest.runId}/attempts/1/heartbeat.json`)).toBeUndefined();

    // Lambda retries a failed start within minutes: a sweep five minutes on leaves it be.
    harness.clock.advance(5 * 60_000);
    expect((await harness.sweep()).runsFailed).toEqual([]);

    harness.clock.advance(6 * 60_000);
    const report = await harness.sweep();
    expect(report.runsFailed).toMatchObject([{ issue: 6, runId: latest.runId, commentUpdated: true }]);
    expect(await harness.json(`runs/acme/orders/${latest.runId}/run.json`)).toMatchObject({ status: 'FAILED', reason: 'STUCK' });
    expect(progressBody()).toContain('the worker never started: it was dispatched 11 minutes ago');
    expect(await harness.json('locks/acme/orders/issues/6.json')).toBeUndefined();
  }, 300_000);
});
