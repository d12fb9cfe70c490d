import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mavenMultiModuleRepo } from '../fixtures/realistic-repos.js';
import { DEFAULT_POLICY, startAppHarness, type AppHarness } from '../helpers/app-harness.js';
import { answer, callTools, type ScriptedReply } from '../helpers/scripted-model-server.js';

/**
 * Spend that holds, through the App with the worker's real store: a $0.20 cap on the task holds
 * across a failed attempt, its `/agent retry` and a `/agent revise`; a $0.20 monthly cap on the
 * repository holds across two runs whose workers call the model at the same time. Every model
 * call goes through model-call (ModelCallRole), which alone writes the spend records.
 *
 * Prices: $1 per million prompt tokens, $20 per million completion tokens. Each answer reports
 * 5,000 prompt and 2,000 completion tokens ($0.045); a call's worst case (its prompt estimate
 * plus a completion cap of about 4,096 tokens) is about $0.09.
 */

const PRICES = { scripted: { inputPerMTokUsd: 1, outputPerMTokUsd: 20 } };
const USAGE = { promptTokens: 5_000, completionTokens: 2_000 };
const CALL_MICRO_USD = 45_000;
const CAP_MICRO_USD = 200_000;
const SERVICE = 'order-service/src/main/java/com/acme/order/OrderService.java';
const TASK = 'Guard the LegacyAuthClient.exchangeToken call in OrderService against surrounding whitespace in the code.';
const files = mavenMultiModuleRepo();
const EDITED = files[SERVICE].replace('legacyAuthClient.exchangeToken(code)', 'legacyAuthClient.exchangeToken(code.trim())');

const withUsage = (reply: ScriptedReply): ScriptedReply => ({ ...reply, usage: USAGE });
const read = () => withUsage(callTools({ name: 'file_read', arguments: { path: SERVICE } }));
const write = () => withUsage(callTools({ name: 'file_write', arguments: { path: SERVICE, content: EDITED } }));
const done = () => withUsage(answer('Trimmed the code in OrderService.'));
const turnOf = (body: any): number => body.messages.filter((m: any) => m.role === 'assistant').length;

const policyWith = (budgets: string) => DEFAULT_POLICY.replace('agent:\n', `agent:\n  budgets:\n${budgets}`);

/** Every model call the run's attempts ledgered (in their trails), and what it cost. */
async function ledgeredCosts(h: AppHarness, runId: string): Promise<number[]> {
  return (await h.objects())
    .filter((o) => o.key.startsWith(`trail/acme/orders/${runId}/`) && o.key.includes('/ledger/'))
    .map((o) => JSON.parse(o.text))
    .filter((e) => e.type === 'MODEL_EXCHANGE')
    .map((e) => e.payload.usage.costMicroUsd as number);
}

describe('a task cap holds across a retry and a revision', () => {
  let h: AppHarness;
  let outage = false;

  beforeAll(async () => {
    h = await startAppHarness({
      files,
      policy: policyWith('    maxCostUsd: 0.2\n'),
      prices: PRICES,
      model: {
        script: (body) => {
          const turn = turnOf(body);
          if (turn === 2 && !outage) {
            outage = true;
            return { status: 500, body: '{"error":{"message":"upstream overloaded"}}' };
          }
          return [read(), write()][turn] ?? done();
        },
      },
    });
    h.standin.setIssue(h.fullName, 1, { title: 'Trim the token exchange code', body: TASK });
  }, 60_000);

  afterAll(async () => h?.stop());

  it('attempt 1 fails at the provider, the retry publishes, the revision stops at the cap with one sentence; the task spent at most $0.20', async () => {
    await h.deliver('issues', h.payloads.labeled(1));
    await h.drain();
    const { runId } = await h.json('issues/acme/orders/1/latest.json');
    const prefix = `runs/acme/orders/${runId}/`;
    expect(await h.json(`${prefix}run.json`)).toMatchObject({ status: 'FAILED', attempt: 1 });

    await h.deliver('issue_comment', h.payloads.comment(1, '/agent retry'));
    await h.drain();
    const published = await h.json(`${prefix}publish.json`);
    expect(published).toMatchObject({ attempt: 2 });
    // The PR body and the progress comment show the task's spend over both attempts, and the price.
    const body = h.standin.repo(h.fullName).pulls.get(published.prNumber)?.body ?? '';
    expect(body).toContain(
      '| **Spend** | 3 model calls · tokens 15000 in / 6000 out · $0.1350 over all attempts so far · prices (scripted): $1 in / $20 out per million tokens |',
    );
    expect(
      h
        .comments(1)
        .map((c) => c.body)
        .join('\n'),
    ).toContain('**Spend so far:** 3 model calls · tokens 15000 in / 6000 out · $0.1350 (all attempts)');

    await h.deliver('issue_comment', h.payloads.prComment(published.prNumber, '/agent revise Also trim the code in the log line.', { commentId: 94_001 }));
    await h.drain();
    const run = await h.json(`${prefix}run.json`);
    expect(run).toMatchObject({ attempt: 3 });
    expect(run.attempts.at(-1)).toMatchObject({ n: 3, status: 'BUDGET_EXCEEDED', reason: 'MODEL_BUDGET_EXCEEDED' });

    // Four calls were answered in all: two in attempt 1, one live in attempt 2 after its replay, and one in 3, sent with the
    // completion the cap still paid for (its 32k default would not fit); the next one could not pay for a useful completion.
    const record = await h.json(`${prefix}spend.json`);
    expect(record).toMatchObject({ calls: 4, costMicroUsd: 4 * CALL_MICRO_USD, reserved: {} });
    const revision = h.model!.requests.at(-1)!.body;
    expect(revision.max_tokens).toBeLessThan(32_000);
    expect(record.costMicroUsd).toBeLessThanOrEqual(CAP_MICRO_USD);

    const said =
      h
        .comments(1)
        .map((c) => c.body)
        .join('\n') +
      h
        .comments(published.prNumber)
        .map((c) => c.body)
        .join('\n');
    expect(said).toMatch(/The task's spend cap agent\.budgets\.maxCostUsd = \$0\.2000 stopped the run: \$0\.1800 spent over all its attempts/);
    expect(said).toContain('raise agent.budgets.maxCostUsd to go on.');
  }, 180_000);
});

describe('a repository cap holds across two runs at once', () => {
  let h: AppHarness;

  beforeAll(async () => {
    h = await startAppHarness({
      files,
      policy: policyWith('    monthlyCostUsd: 0.2\n'),
      prices: PRICES,
      model: { script: (body) => ({ ...([read(), write()][turnOf(body)] ?? done()), delayMs: 30 }) },
    });
    for (const issue of [1, 2]) h.standin.setIssue(h.fullName, issue, { title: `Trim the token exchange code (${issue})`, body: TASK });
  }, 60_000);

  afterAll(async () => h?.stop());

  it('both workers call the model at once; together they spend at most $0.20 this month and one stops at the cap', async () => {
    await h.deliver('issues', h.payloads.labeled(1));
    await h.deliver('issues', h.payloads.labeled(2));
    await Promise.all([h.drain(), h.drain()]);

    // At once: the second run asked the model before the first run's last request.
    const order = h.model!.requests.map((r) => (JSON.stringify(r.body.messages).includes('code (2)') ? 2 : 1));
    expect(order.indexOf(2)).toBeLessThan(order.lastIndexOf(1));

    const month = new Date(h.clock.now()).toISOString().slice(0, 7);
    const record = await h.json(`spend/repos/acme/orders/${month}.json`);
    expect(record.reserved).toEqual({});
    expect(record.costMicroUsd).toBeLessThanOrEqual(CAP_MICRO_USD);

    let ledgered = 0;
    const statuses: string[] = [];
    for (const issue of [1, 2]) {
      const { runId } = await h.json(`issues/acme/orders/${issue}/latest.json`);
      ledgered += (await ledgeredCosts(h, runId)).reduce((a, b) => a + b, 0);
      statuses.push((await h.json(`runs/acme/orders/${runId}/run.json`)).status);
    }
    expect(ledgered).toBeLessThanOrEqual(CAP_MICRO_USD);
    expect(ledgered).toBe(record.costMicroUsd);
    expect(statuses).toContain('BUDGET_EXCEEDED');
    const said = [1, 2].flatMap((n) => h.comments(n).map((c) => c.body)).join('\n');
    expect(said).toContain("This repository's monthly spend cap agent.budgets.monthlyCostUsd = $0.2000 stopped the run");
  }, 180_000);
});
