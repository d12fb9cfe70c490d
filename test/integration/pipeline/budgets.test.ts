import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiChatProvider } from '../../../src/app/model/openai-chat-provider.js';
import { costMicroUsd, formatUsd } from '../../../src/core/budget/cost.js';
import { mavenMultiModuleRepo } from '../../fixtures/realistic-repos.js';
import { answer, callTools, startScriptedModelServer, type ScriptedModelServer, type ScriptedReply } from '../../helpers/scripted-model-server.js';
import { cli, makeWorkingCopy } from '../cli/cli-harness.js';
import { ledgerDir, FIXED_NOW, LocalArtifactStore, makeMavenBare, removeRoot, runOnce, startRun, tempRoot } from './pipeline-harness.js';

/**
 * Budgets a person understands, through the whole pipeline: a cost cap that stops the model
 * before it is crossed, wall-clock limits on a clock that advances with each model answer, the
 * partial report naming the exhausted dimension, and the cost in the PR body.
 */
const SERVICE = 'order-service/src/main/java/com/acme/order/OrderService.java';
const TASK = 'Guard the LegacyAuthClient.exchangeToken call in OrderService against surrounding whitespace in the code';
const MODEL = 'scripted-1';
const PRICE = { inputPerMTokUsd: 3, outputPerMTokUsd: 15 };
const PRICES = JSON.stringify({ [MODEL]: PRICE });
const MINUTE = 60_000;

const policy = (budgets = '') => `version: 1
agent:
  forbiddenPaths:
    - .github/workflows/**
${budgets}`;

let root: string;
const servers: ScriptedModelServer[] = [];

beforeAll(() => {
  root = tempRoot('budgets');
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(() => removeRoot(root));

async function modelFor(script: (body: any, index: number) => ScriptedReply) {
  const server = await startScriptedModelServer({ script, apiKey: 'model-key' });
  servers.push(server);
  return { server, model: new OpenAiChatProvider({ baseUrl: server.baseUrl, model: MODEL, apiKey: 'model-key', maxRetries: 0 }) };
}

function repoWith(name: string, policyText: string): string {
  const dir = join(root, name);
  makeWorkingCopy(dir, { ...mavenMultiModuleRepo(), '.agent-policy.yaml': policyText });
  return dir;
}

function ledger(runDir: string): any[] {
  const dir = ledgerDir(runDir, 1);
  return readdirSync(dir)
    .sort()
    .map((name) => JSON.parse(readFileSync(join(dir, name), 'utf8')));
}

const edited = () => mavenMultiModuleRepo()[SERVICE].replace('legacyAuthClient.exchangeToken(code)', 'legacyAuthClient.exchangeToken(code.trim())');

describe('budgets in the pipeline', () => {
  it('a cost cap stops the model before the call that could cross it: BUDGET_EXCEEDED, cost_usd named with limit and use, the spend under the cap', async () => {
    // Every answer asks for more work and reports a large prompt, so each call costs 2000×3 + 500×15 = 13,500 µUSD.
    const { server, model } = await modelFor(() => ({
      ...callTools({ name: 'git_diff', arguments: {} }),
      usage: { promptTokens: 2_000, completionTokens: 500 },
    }));
    const repo = repoWith('cost-cap', policy('  budgets:\n    maxCostUsd: 0.1\n'));
    const result = await cli(['run', repo, '--task', TASK, '--out', join(root, 'state-cost'), '--json'], { model, env: { MODEL_PRICES: PRICES } });

    expect(result.code).toBe(3);
    expect(result.json).toMatchObject({ status: 'BUDGET_EXCEEDED', reason: 'MODEL_BUDGET_EXCEEDED' });
    const exhausted = result.json!.details.exhausted;
    expect(exhausted).toMatchObject({ dimension: 'cost_usd', scope: 'run', limit: 100_000 });
    // The refused call's worst case would have crossed the cap; what was spent did not.
    expect(exhausted.used + exhausted.needed).toBeGreaterThan(100_000);
    expect(exhausted.used).toBeLessThanOrEqual(100_000);

    const entries = ledger(result.json!.runDir);
    const exchanges = entries.filter((e) => e.type === 'MODEL_EXCHANGE');
    expect(exchanges.length).toBeGreaterThan(0);
    expect(server.requests).toHaveLength(exchanges.length);
    expect(exchanges.map((e) => e.payload.usage.costMicroUsd)).toEqual(exchanges.map(() => costMicroUsd(PRICE, 2_000, 500)));
    expect(exhausted.used).toBe(exchanges.length * 13_500);
    expect(entries.find((e) => e.type === 'BUDGET_EXHAUSTED')).toMatchObject({
      phase: 'mechanical_change',
      payload: { dimension: 'cost_usd', segment: 'model-change' },
    });
    expect(result.json!.details.done).toEqual({ segmentsApplied: 0, filesChanged: [] });

    // The partial report names the dimension, its limit and use, and what was done; the checkpoint is kept.
    const report = readFileSync(result.json!.artifacts['run-report.md'], 'utf8');
    expect(report).toContain(`Budget exhausted in Change, model-change: cost_usd (run): ${formatUsd(exhausted.used)} used of $0.1000`);
    expect(report).toContain('Done before the stop: 0 segments completed, 0 files changed.');
    expect(report).toContain(`· cost ${formatUsd(exhausted.used)} of $0.1000 · **stopped: cost_usd** |`);
    expect(readdirSync(join(result.json!.runDir, 'attempts', '1', 'checkpoints')).some((name) => name.endsWith('-mechanical_change.json'))).toBe(true);
  }, 60_000);

  it('a cost cap without a price for the model is refused before the model is asked', async () => {
    const { server, model } = await modelFor(() => answer('never'));
    const repo = repoWith('no-price', policy('  budgets:\n    maxCostUsd: 1\n'));
    const result = await cli(['run', repo, '--task', TASK, '--out', join(root, 'state-no-price'), '--json'], {
      model,
      env: { MODEL_PRICES: JSON.stringify({ 'another-model': PRICE }) },
    });

    expect(result.json).toMatchObject({ status: 'FAILED' });
    expect(result.json!.reason).toContain('no price for model "scripted-1"');
    expect(server.requests).toHaveLength(0);
  }, 60_000);

  it.each([
    // The change phase's contract allows 20 minutes; each answer takes 7.
    ['phase', undefined, 3, 21 * MINUTE, 20 * MINUTE],
    // The invocation's deadline, 10 minutes after it started.
    ['run', 10 * MINUTE, 2, 14 * MINUTE, 10 * MINUTE],
  ] as const)(
    'the %s wall-clock limit stops the model on a clock that advances with each answer, no sleeping',
    async (scope, deadlineAfter, calls, used, limit) => {
      let now = FIXED_NOW;
      const { server, model } = await modelFor(() => {
        now += 7 * MINUTE;
        return callTools({ name: 'git_diff', arguments: {} });
      });
      const bare = join(root, `clock-${scope}.git`);
      makeMavenBare(bare);
      const store = new LocalArtifactStore(join(root, `clock-${scope}`));
      const started = await startRun(store, bare, `clock${scope}00001`, TASK);
      const result = await runOnce({
        store,
        source: bare,
        model,
        clock: { now: () => now },
        deadline: deadlineAfter === undefined ? undefined : FIXED_NOW + deadlineAfter,
        ...started,
      });

      expect(result).toMatchObject({ status: 'BUDGET_EXCEEDED', details: { exhausted: { dimension: 'wall_clock', scope, used, limit } } });
      expect(server.requests).toHaveLength(calls);
      expect(result.report).toContain(`wall_clock (${scope}): ${used / 1000} s used of ${limit / 1000} s`);
    },
    60_000,
  );

  it('the PR body carries the Budget line: model calls, tokens in and out, and the cost in dollars; n/a without a price table', async () => {
    const script: ScriptedReply[] = [
      callTools({ name: 'file_read', arguments: { path: SERVICE } }),
      callTools({ name: 'file_write', arguments: { path: SERVICE, content: edited() } }),
      answer('Trimmed the code before the exchange in OrderService.'),
    ];
    const run = async (name: string, env: Record<string, string>, repo: string) => {
      const { model } = await modelFor((_body, index) => script[index] ?? answer('done'));
      const result = await cli(['run', repo, '--task', TASK, '--out', join(root, name), '--json'], { model, env });
      expect(result.json).toMatchObject({ status: 'COMPLETED' });
      return readFileSync(result.json!.artifacts['pr-body.md'], 'utf8');
    };

    // The scripted server reports 100 prompt and 20 completion tokens per call.
    const priced = await run('state-priced', { MODEL_PRICES: PRICES }, repoWith('pr-body', policy('  budgets:\n    maxCostUsd: 2.5\n')));
    const cost = formatUsd(3 * costMicroUsd(PRICE, 100, 20));
    expect(cost).toBe('$0.0018');
    expect(priced).toContain(`| **Budget** | 3 model calls · tokens 300 in / 60 out · cost ${cost} of $2.5000 |`);
    expect(priced).toContain(`| cost (USD) | ${cost} | $2.5000 |`);
    expect(priced).toContain(`| Change | 3 | 2 | 300 | 60 | ${cost} | 0.0 s |`);

    // Without a price table (and so without a cost cap, which would refuse the model).
    const unpriced = await run('state-unpriced', {}, repoWith('pr-body-unpriced', policy()));
    expect(unpriced).toContain('| **Budget** | 3 model calls · tokens 300 in / 60 out · cost n/a |');
  }, 90_000);
});
