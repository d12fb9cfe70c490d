import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mavenMultiModuleRepo } from '../fixtures/realistic-repos.js';
import { startAppHarness, type AppHarness } from '../helpers/app-harness.js';
import { answer } from '../helpers/scripted-model-server.js';

/**
 * A model endpoint that answers 404 (a base URL without `/v1`, a model the server does not
 * have) or is down (connection refused) fails the run, and the issue's progress comment says
 * which and where, so an operator need not open the ledger to learn the endpoint is wrong.
 */
const TASK = 'Guard the LegacyAuthClient.exchangeToken call in OrderService against surrounding whitespace in the code.';

describe('a model endpoint that cannot answer, through the App', () => {
  let h: AppHarness;
  const failureComment = async (issue: number) => {
    h.standin.setIssue(h.fullName, issue, { title: 'Trim the token exchange code', body: TASK });
    expect((await h.deliver('issues', h.payloads.labeled(issue))).statusCode).toBe(202);
    await h.drain();
    const latest = await h.json(`issues/acme/orders/${issue}/latest.json`);
    const run = await h.json(`runs/acme/orders/${latest.runId}/run.json`);
    return { run, body: h.comments(issue).find((c) => c.user === h.botLogin)?.body ?? '' };
  };

  beforeAll(async () => {
    h = await startAppHarness({
      files: mavenMultiModuleRepo(),
      model: {
        script: (body: any) =>
          body.model === 'scripted' ? { status: 404, body: '{"error":"model \\"scripted\\" not found, try pulling it first"}' } : answer('x'),
      },
    });
  }, 300_000);

  afterAll(async () => h?.stop());

  it('a 404: the progress comment names MODEL_NOT_FOUND, the URL and what to check', async () => {
    const { run, body } = await failureComment(1);

    expect(run).toMatchObject({ status: 'FAILED', reason: 'MODEL_ERROR' });
    expect(body).toContain(`MODEL_NOT_FOUND: model endpoint ${h.model!.baseUrl}/chat/completions answered HTTP 404 (check the base URL`);
    expect(body).toContain('not found, try pulling it first');
  });

  it('nothing listening (connection refused): the progress comment names MODEL_NETWORK_ERROR, the URL and ECONNREFUSED', async () => {
    await h.model!.close();

    const { run, body } = await failureComment(2);

    expect(run).toMatchObject({ status: 'FAILED', reason: 'MODEL_ERROR' });
    expect(body).toMatch(
      new RegExp(`MODEL_NETWORK_ERROR: model endpoint ${h.model!.baseUrl.replace(/\./g, '\\.')}/chat/completions unreachable: .*ECONNREFUSED`),
    );
  });
});
