import { describe, expect, it } from 'vitest';
import { affordableCompletion, costMicroUsd } from '../../../src/core/budget/cost.js';
import { readSpend } from '../../../src/core/budget/spend.js';
import { accountSpend, MIN_AFFORDABLE_COMPLETION, spendAccounts } from '../../../src/core/engines/llm/spend-accounting.js';
import type { ModelProvider, SpendScope } from '../../../src/core/ports.js';
import { MapStore } from '../../helpers/map-store.js';

const NOW = Date.parse('2026-12-06T07:00:00.000Z');
const PRICE = { inputPerMTokUsd: 3, outputPerMTokUsd: 15 };
const scope: SpendScope = { owner: 'acme', repo: 'orders', runId: 'run1', attempt: 1, installation: '42', caps: { taskMicroUsd: 200_000 } };
const request = { messages: [{ role: 'user' as const, content: 'Guard the token exchange. '.repeat(200) }], tools: [] };

/** A provider with a 32k completion cap (worst case $0.48 at $15/MTok) that honours the cap it is sent, recording it. */
function provider(): ModelProvider & { sentWith: (number | undefined)[] } {
  const sentWith: (number | undefined)[] = [];
  return {
    model: 'm',
    maxOutputTokens: 32_000,
    sentWith,
    complete: async (r) => {
      sentWith.push(r.maxTokens);
      return {
        message: { role: 'assistant', content: 'ok' },
        stopReason: 'end_turn',
        usage: { promptTokens: 1_000, completionTokens: Math.min(3_000, r.maxTokens ?? 32_000) },
      };
    },
  };
}

describe('a completion cap larger than what a spend cap leaves', () => {
  it('affordableCompletion is the most tokens whose cost stays within the room', () => {
    for (const room of [50_000, 123_457, 200_000]) {
      const fits = affordableCompletion(PRICE, 1_500, room);
      expect(costMicroUsd(PRICE, 1_500, fits)).toBeLessThanOrEqual(room);
      expect(costMicroUsd(PRICE, 1_500, fits + 1)).toBeGreaterThan(room);
    }
    expect(affordableCompletion(PRICE, 100_000, 200_000)).toBe(0);
  });

  it('sends the call with the completion it can afford, and the reservation stays within the cap', async () => {
    const store = new MapStore();
    const inner = provider();
    let ids = 0;
    const accounted = accountSpend(inner, scope, { store, clock: { now: () => NOW }, prices: { m: PRICE }, reservationId: () => `c${++ids}` });
    await accounted.complete(request);
    const [maxTokens] = inner.sentWith;
    expect(maxTokens).toBeGreaterThanOrEqual(MIN_AFFORDABLE_COMPLETION);
    expect(maxTokens).toBeLessThan(32_000);
    const trail = [...store.objects.keys()].find((k) => k.includes('/spend/'));
    const call = JSON.parse(new TextDecoder().decode(store.objects.get(trail!)!));
    expect(call.reservedMicroUsd).toBeLessThanOrEqual(200_000);
    expect((await readSpend(store, spendAccounts(scope, NOW)[0].key)).costMicroUsd).toBe(costMicroUsd(PRICE, 1_000, 3_000));
  });

  it('refuses, naming the cap, when what is left would not pay for a useful completion', async () => {
    const store = new MapStore();
    const inner = provider();
    let ids = 0;
    const accounted = accountSpend(inner, scope, { store, clock: { now: () => NOW }, prices: { m: PRICE }, reservationId: () => `c${++ids}` });
    // Each call settles at $0.048 while it can afford 3,000 tokens; the cap is reached when what is left pays for fewer than 1,024.
    const outcomes: string[] = [];
    for (let i = 0; i < 6; i++)
      outcomes.push(
        await accounted.complete(request).then(
          () => 'sent',
          (e: { reason?: string }) => e.reason ?? 'error',
        ),
      );
    expect(outcomes.slice(0, 4)).toEqual(['sent', 'sent', 'sent', 'sent']);
    expect(outcomes.slice(-1)).toEqual(['SPEND_CAP_REACHED']);
    const spent = (await readSpend(store, spendAccounts(scope, NOW)[0].key)).costMicroUsd;
    expect(spent).toBeLessThanOrEqual(200_000);
    expect(inner.sentWith.every((m) => m !== undefined && m >= MIN_AFFORDABLE_COMPLETION)).toBe(true);
  });
});
