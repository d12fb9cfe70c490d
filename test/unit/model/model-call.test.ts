import { describe, expect, it } from 'vitest';
import { createModelCallHandler, LambdaModelProvider } from '../../../src/app/model/model-call.js';
import { ModelProviderError } from '../../../src/app/model/model-provider-error.js';
import type { ModelProvider } from '../../../src/core/ports.js';
import { lambdaOf } from '../../helpers/in-process-lambda.js';

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
});
