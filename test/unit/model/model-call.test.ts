import { describe, expect, it } from 'vitest';
import { readConfig } from '../../../src/app/config.js';
import { createModelProvider } from '../../../src/app/model/create-model-provider.js';
import { createModelCallHandler, LambdaModelProvider, modelCallProvider } from '../../../src/app/model/model-call.js';
import { modelConfigProblem } from '../../../src/app/model/model-check.js';
import { ModelProviderError } from '../../../src/app/model/model-provider-error.js';
import type { ModelProvider } from '../../../src/core/ports.js';
import { lambdaOf } from '../../helpers/lambda-of.js';
import { MapStore } from '../../helpers/map-store.js';
import { runKeys } from '../../../src/core/artifacts/keys.js';
import { readSpend } from '../../../src/core/budget/spend.js';

const request = { messages: [{ role: 'user' as const, content: 'hi' }], tools: [] };

describe('model-call and the worker provider that invokes it', () => {
  it('carries a provider failure across with its reason, so the worker tells a rate limit from a refusal', async () => {
    const failing: ModelProvider = {
      model: 'm',
      complete: async () => {
        throw new ModelProviderError('MODEL_RATE_LIMITED', 'slow down', { status: 429, attempts: 3 });
      },
    };
    const provider = new LambdaModelProvider({ client: lambdaOf(createModelCallHandler(failing)), functionName: 'model-call', model: 'm' });
    await expect(provider.complete(request)).rejects.toMatchObject({ name: 'ModelProviderError', reason: 'MODEL_RATE_LIMITED', data: { status: 429 } });
  });

  it('answers with the response, and refuses an event that names a provider, a URL or a key', async () => {
    const seen: unknown[] = [];
    const echo: ModelProvider = {
      model: 'm',
      complete: async (r) => {
        seen.push(r);
        return { message: { role: 'assistant', content: 'ok' }, stopReason: 'end_turn' };
      },
    };
    const handler = createModelCallHandler(echo);
    const provider = new LambdaModelProvider({ client: lambdaOf(handler), functionName: 'model-call', model: 'm' });
    await expect(provider.complete(request)).resolves.toMatchObject({ message: { content: 'ok' } });
    for (const extra of [{ baseUrl: 'http://127.0.0.1:9' }, { apiKey: 'k' }, { provider: 'openai' }]) {
      await expect(handler({ ...request, ...extra })).resolves.toMatchObject({ ok: false, reason: 'MODEL_REQUEST_REJECTED' });
    }
    expect(seen).toHaveLength(1);
  });

  it('turns a failed or unreadable invocation into a coded model error', async () => {
    const crashing = new LambdaModelProvider({
      client: lambdaOf(async () => {
        throw new Error('boom');
      }),
      functionName: 'model-call',
      model: 'm',
    });
    await expect(crashing.complete(request)).rejects.toMatchObject({ reason: 'MODEL_SERVER_ERROR' });
    const garbled = new LambdaModelProvider({ client: lambdaOf(async () => ({ something: 'else' })), functionName: 'model-call', model: 'm' });
    await expect(garbled.complete(request)).rejects.toMatchObject({ reason: 'MODEL_RESPONSE_INVALID' });
  });

  it('a configuration that cannot be built answers every call and check with the setting it lacks, and is found before any call', async () => {
    const handler = createModelCallHandler(modelCallProvider(() => createModelProvider({ provider: 'anthropic', model: 'claude-test' })));
    const provider = new LambdaModelProvider({ client: lambdaOf(handler), functionName: 'model-call', model: 'claude-test' });

    const problem = await modelConfigProblem(provider);

    expect(problem).toMatchObject({ reason: 'MODEL_CONFIG_INVALID', data: { variables: ['apiKey'] } });
    expect(problem?.message).toContain('MODEL_API_KEY is missing');
    await expect(provider.complete(request)).rejects.toMatchObject({ name: 'ModelConfigError', reason: 'MODEL_CONFIG_INVALID' });
    await expect(createModelCallHandler(undefined)({ check: true })).resolves.toMatchObject({ ok: false, reason: 'MODEL_CONFIG_INVALID' });
  });

  it('a configured model passes the check without a provider call', async () => {
    let calls = 0;
    const counting: ModelProvider = {
      model: 'm',
      complete: async () => {
        calls += 1;
        return { message: { role: 'assistant', content: 'ok' }, stopReason: 'end_turn' };
      },
    };
    const provider = new LambdaModelProvider({ client: lambdaOf(createModelCallHandler(counting)), functionName: 'model-call', model: 'm' });

    expect(await modelConfigProblem(provider)).toBeUndefined();
    expect(calls).toBe(0);
  });

  it('with spend records, a call must name its run; the installation charged is the one request.json names, and a cap refusal crosses as a SpendError', async () => {
    const store = new MapStore();
    await store.put(runKeys('acme', 'orders', 'r1').request, JSON.stringify(RUN_REQUEST));
    const echo = countingEcho();
    const handler = createModelCallHandler(echo, {
      store,
      clock: { now: () => NOW },
      prices: { m: { inputPerMTokUsd: 0, outputPerMTokUsd: 10 } },
      installationMonthlyMicroUsd: 15_000,
      reservationId: () => `r${echo.sent}`,
    });
    const provider = new LambdaModelProvider({ client: lambdaOf(handler), functionName: 'model-call', model: 'm' });
    await expect(provider.complete(request)).rejects.toMatchObject({ reason: 'MODEL_REQUEST_REJECTED' });
    const scope = { owner: 'acme', repo: 'orders', runId: 'r1', attempt: 1, installation: '999', caps: {} };
    const charged = provider.forSpend(scope);
    await expect(charged.complete({ ...request, maxTokens: 1_000 })).resolves.toMatchObject({ message: { content: 'ok' } });
    // The worker said installation 999; request.json says 42.
    expect(await readSpend(store, 'spend/installations/42/2026-12.json')).toMatchObject({ calls: 1, costMicroUsd: 10_000 });
    expect(await store.get('spend/installations/999/2026-12.json')).toBeUndefined();
    await expect(charged.complete({ ...request, maxTokens: 1_000 })).rejects.toMatchObject({
      name: 'SpendError',
      reason: 'SPEND_CAP_REACHED',
      data: { cap: 'installation', limitMicroUsd: 15_000, spentMicroUsd: 10_000 },
    });
    await expect(provider.forSpend({ ...scope, runId: 'nope' }).complete(request)).rejects.toMatchObject({ reason: 'MODEL_REQUEST_REJECTED' });
    expect(echo.sent).toBe(1);
  });
  it('charges against the caps the intake wrote into request.json, not the caps the worker states', async () => {
    const store = new MapStore();
    await store.put(runKeys('acme', 'orders', 'r1').request, JSON.stringify({ ...RUN_REQUEST, spendCaps: { taskMicroUsd: 5_000 } }));
    const echo = countingEcho();
    const handler = createModelCallHandler(echo, {
      store,
      clock: { now: () => NOW },
      prices: { m: { inputPerMTokUsd: 0, outputPerMTokUsd: 10 } },
      reservationId: () => `r${echo.sent}`,
    });
    const provider = new LambdaModelProvider({ client: lambdaOf(handler), functionName: 'model-call', model: 'm' });
    // A worker that raises its own task cap to $1 is held to the trusted $0.005.
    const scope = { owner: 'acme', repo: 'orders', runId: 'r1', attempt: 1, installation: '42', caps: { taskMicroUsd: 1_000_000 } };
    await expect(provider.forSpend(scope).complete({ ...request, maxTokens: 1_000 })).rejects.toMatchObject({
      name: 'SpendError',
      reason: 'SPEND_CAP_REACHED',
      data: { cap: 'task', limitMicroUsd: 5_000 },
    });
    expect(echo.sent).toBe(0);
  });
});

const NOW = Date.parse('2026-12-06T07:00:00.000Z');

/** A model that answers `ok` with 1,000 output tokens, counting the calls that reached it. */
function countingEcho(): ModelProvider & { sent: number } {
  const echo = {
    model: 'm',
    sent: 0,
    complete: async () => {
      echo.sent += 1;
      return { message: { role: 'assistant' as const, content: 'ok' }, stopReason: 'end_turn' as const, usage: { promptTokens: 0, completionTokens: 1_000 } };
    },
  };
  return echo;
}
const RUN_REQUEST = {
  schemaVersion: 1,
  runId: 'r1',
  owner: 'acme',
  repo: 'orders',
  source: { kind: 'github', repositoryId: 7, installationId: 42, cloneUrl: 'https://example.invalid/acme/orders.git', apiUrl: 'https://api.github.com' },
  trigger: { kind: 'label', key: 'label-1' },
  agentBranch: 'agent/i1/rr1',
  createdAt: '2026-12-06T07:00:00.000Z',
};

describe('the deployed worker asks for the completion tokens the deployment sets', () => {
  it('MODEL_MAX_OUTPUT_TOKENS reaches the worker model, which the engine asks for per call; unset, the engine default', () => {
    const base = { ARTIFACT_BUCKET: 'b', GITHUB_APP_ID: '1', MODEL_CALL_FUNCTION: 'model-call' };
    const config = readConfig({ ...base, MODEL_MAX_OUTPUT_TOKENS: '16384' });
    expect(config.MODEL_MAX_OUTPUT_TOKENS).toBe(16_384);
    const provider = new LambdaModelProvider({
      client: lambdaOf(async () => ({})),
      functionName: 'model-call',
      model: 'm',
      maxOutputTokens: config.MODEL_MAX_OUTPUT_TOKENS,
    });
    expect(provider.maxOutputTokens).toBe(16_384);
    expect(provider.forSpend({ owner: 'acme', repo: 'orders', runId: 'r1', attempt: 1, installation: '42', caps: {} }).maxOutputTokens).toBe(16_384);
    expect(readConfig(base).MODEL_MAX_OUTPUT_TOKENS).toBeUndefined();
    expect(() => readConfig({ ...base, MODEL_MAX_OUTPUT_TOKENS: 'many' })).toThrow(/MODEL_MAX_OUTPUT_TOKENS/);
  });
});
