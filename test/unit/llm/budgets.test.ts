import { describe, expect, it } from 'vitest';
import {
  BudgetMeter,
  costMicroUsd,
  describeExhaustion,
  formatUsd,
  NO_USAGE,
  parsePriceTable,
  priceOf,
  usdToMicro,
  type ModelPrice,
} from '../../../src/core/engines/llm/index.js';

const PRICE: ModelPrice = { inputPerMTokUsd: 3, outputPerMTokUsd: 15 };
const PHASE = { maxModelCalls: 100, maxSteps: 100, maxTokens: 1_000_000 };

describe('cost arithmetic in integer micro-dollars', () => {
  it.each([
    // tokens in, tokens out, price, micro-dollars
    [1_000_000, 0, PRICE, 3_000_000],
    [0, 1_000_000, PRICE, 15_000_000],
    [1_000, 500, PRICE, 3_000 + 7_500],
    // 1 token at $0.25/MTok is 0.25 µUSD: rounded up, never to zero.
    [1, 0, { inputPerMTokUsd: 0.25, outputPerMTokUsd: 0 }, 1],
    [4, 0, { inputPerMTokUsd: 0.25, outputPerMTokUsd: 0 }, 1],
    [5, 0, { inputPerMTokUsd: 0.25, outputPerMTokUsd: 0 }, 2],
    // Prices a float sum would drift on stay exact.
    [3, 3, { inputPerMTokUsd: 0.1, outputPerMTokUsd: 0.2 }, 1],
    [10_000_000, 10_000_000, { inputPerMTokUsd: 0.1, outputPerMTokUsd: 0.2 }, 3_000_000],
    // Far beyond 2^53 pico-dollars: BigInt keeps it exact.
    [2_000_000_000, 2_000_000_000, { inputPerMTokUsd: 900_000, outputPerMTokUsd: 900_000 }, 3_600_000_000_000_000],
  ])('%i in + %i out at %o costs %i µUSD', (tokensIn, tokensOut, price, micro) => {
    expect(costMicroUsd(price, tokensIn, tokensOut)).toBe(micro);
  });

  it.each([
    [0, '$0.0000'],
    [1, '$0.0001'],
    [100, '$0.0001'],
    [101, '$0.0002'],
    [12_300, '$0.0123'],
    [1_234_567, '$1.2346'],
    [42_000_000, '$42.0000'],
  ])('formats %i µUSD as %s (four decimals, rounded up)', (micro, text) => {
    expect(formatUsd(micro)).toBe(text);
  });

  it.each([
    [0.01, 10_000],
    [0.07, 70_000],
    [1.1, 1_100_000],
    [2.5, 2_500_000],
    [0.0000015, 1],
  ])('reads a cap of $%d as %i µUSD, never rounded up', (usd, micro) => {
    expect(usdToMicro(usd)).toBe(micro);
  });
});

describe('the price table parameter', () => {
  it('parses a JSON table and finds a model by its exact id', () => {
    const table = parsePriceTable('{"anthropic.claude-x": {"inputPerMTokUsd": 3, "outputPerMTokUsd": 15}}');
    expect(priceOf(table, 'anthropic.claude-x')).toEqual(PRICE);
    expect(priceOf(table, 'anthropic.claude')).toBeUndefined();
    expect(priceOf(table, 'constructor')).toBeUndefined();
    expect(parsePriceTable(undefined)).toBeUndefined();
    expect(parsePriceTable('  ')).toBeUndefined();
  });

  it.each([
    ['not json', '{"m": '],
    ['a negative price', '{"m": {"inputPerMTokUsd": -1, "outputPerMTokUsd": 1}}'],
    ['a missing price', '{"m": {"inputPerMTokUsd": 1}}'],
    ['an unknown key', '{"m": {"inputPerMTokUsd": 1, "outputPerMTokUsd": 1, "currency": "EUR"}}'],
    ['a list', '[1]'],
  ])('refuses %s with PRICE_TABLE_INVALID naming the parameter', (_what, text) => {
    expect(() => parsePriceTable(text, 'DRAFTSMAN_MODEL_PRICES')).toThrow(
      expect.objectContaining({ reason: 'PRICE_TABLE_INVALID', data: { parameter: 'DRAFTSMAN_MODEL_PRICES' } }),
    );
  });
});

describe('BudgetMeter', () => {
  it('refuses a model call whose worst case (prompt estimate + completion cap, priced) would cross the cost cap', () => {
    // Cap $0.10; each call: 10,000 in + cap 2,000 out = $0.03 + $0.03 = $0.06 at worst.
    const meter = new BudgetMeter({ phase: PHASE, run: { limits: { costMicroUsd: 100_000 }, spent: NO_USAGE }, price: PRICE });
    expect(meter.beforeModelCall(10_000, 2_000, true)).toEqual({ maxTokens: 2_000 });
    expect(meter.afterModelCall(10_000, 1_000)).toBe(45_000);
    // 45,000 used + 60,000 worst case > 100,000: refused before it is sent.
    expect(meter.beforeModelCall(10_000, 2_000, true)).toEqual({
      exhausted: { dimension: 'cost_usd', scope: 'run', limit: 100_000, used: 45_000, needed: 60_000 },
    });
    // A smaller next call still fits.
    expect(meter.beforeModelCall(5_000, 2_000, true)).toEqual({ maxTokens: 2_000 });
  });

  it('never lets the cost cap be crossed, whatever the calls use within their caps', () => {
    for (let seed = 1; seed <= 50; seed++) {
      let state = seed;
      const rand = (n: number) => {
        state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
        return state % n;
      };
      const cap = 50_000 + rand(200_000);
      const meter = new BudgetMeter({ phase: PHASE, run: { limits: { costMicroUsd: cap }, spent: { ...NO_USAGE, costMicroUsd: rand(20_000) } }, price: PRICE });
      let spent = 0;
      for (let call = 0; call < 40; call++) {
        const prompt = 1_000 + rand(10_000);
        const check = meter.beforeModelCall(prompt, 4_096, true);
        if ('exhausted' in check) {
          expect(check.exhausted.dimension).toBe('cost_usd');
          break;
        }
        // The provider reports at most the estimate and at most the cap.
        spent += meter.afterModelCall(prompt - rand(500), rand(check.maxTokens + 1)) ?? 0;
      }
      expect(meter.used.costMicroUsd).toBe(spent);
      expect(spent).toBeLessThanOrEqual(cap);
    }
  });

  it('counts the run’s earlier spending against the run limits', () => {
    const spent = { modelCalls: 39, toolCalls: 7, tokensIn: 900, tokensOut: 90, costMicroUsd: 10 };
    const meter = new BudgetMeter({ phase: PHASE, run: { limits: { modelCalls: 40, tokensIn: 1_000, tokensOut: 100, toolCalls: 8 }, spent } });
    expect(meter.beforeModelCall(50, 4_096, true)).toEqual({ maxTokens: 10 });
    meter.afterModelCall(50, 10);
    expect(meter.beforeModelCall(10, 4_096, true)).toEqual({ exhausted: { dimension: 'model_calls', scope: 'run', limit: 40, used: 40, needed: 1 } });
    expect(meter.beforeToolCall(true)).toBeUndefined();
    expect(meter.beforeToolCall(true)).toEqual({ dimension: 'tool_calls', scope: 'run', limit: 8, used: 8, needed: 1 });
  });

  it.each([
    ['tokens_in', { tokensIn: 1_000 }, { tokensIn: 950 }, 100, { dimension: 'tokens_in', scope: 'run', limit: 1_000, used: 950, needed: 100 }],
    ['tokens_out', { tokensOut: 100 }, { tokensOut: 100 }, 10, { dimension: 'tokens_out', scope: 'run', limit: 100, used: 100, needed: 1 }],
    ['model_calls', { modelCalls: 3 }, { modelCalls: 3 }, 10, { dimension: 'model_calls', scope: 'run', limit: 3, used: 3, needed: 1 }],
  ] as const)('names %s when it runs out', (_name, limits, spentPart, prompt, exhausted) => {
    const meter = new BudgetMeter({ phase: PHASE, run: { limits, spent: { ...NO_USAGE, ...spentPart } } });
    expect(meter.beforeModelCall(prompt, 4_096, true)).toEqual({ exhausted });
  });

  it('lowers the completion cap to what the phase token budget leaves after the prompt', () => {
    const meter = new BudgetMeter({ phase: { ...PHASE, maxTokens: 1_000 } });
    expect(meter.beforeModelCall(300, 4_096, true)).toEqual({ maxTokens: 700 });
    meter.afterModelCall(300, 200);
    expect(meter.beforeModelCall(499, 4_096, true)).toEqual({ maxTokens: 1 });
    expect(meter.beforeModelCall(500, 4_096, true)).toEqual({ exhausted: { dimension: 'tokens_in', scope: 'phase', limit: 1_000, used: 500, needed: 501 } });
  });

  it('stops at a deadline before live calls, on the given clock, the run’s deadline named first', () => {
    let now = 1_000;
    const meter = new BudgetMeter({
      phase: PHASE,
      deadlines: [
        { scope: 'phase', at: 5_000, limitMs: 4_000 },
        { scope: 'run', at: 5_000, limitMs: 60_000 },
      ],
      now: () => now,
    });
    expect(meter.beforeModelCall(10, 100, true)).toEqual({ maxTokens: 100 });
    now = 4_999;
    expect(meter.beforeToolCall(true)).toBeUndefined();
    now = 5_000;
    expect(meter.beforeModelCall(10, 100, true)).toEqual({ exhausted: { dimension: 'wall_clock', scope: 'run', limit: 60_000, used: 60_000 } });
    expect(meter.beforeToolCall(true)).toMatchObject({ dimension: 'wall_clock' });
    // A replayed call was already paid for: the clock does not stop it, so a resume ends as the original did.
    expect(meter.beforeModelCall(10, 100, false)).toEqual({ maxTokens: 100 });
  });

  it('describes an exhaustion in the units a person reads', () => {
    expect(describeExhaustion({ dimension: 'cost_usd', scope: 'run', limit: 100_000, used: 45_000, needed: 60_000 })).toBe(
      'cost_usd (run): $0.0450 used of $0.1000; the next model call needs up to $0.0600',
    );
    expect(describeExhaustion({ dimension: 'wall_clock', scope: 'phase', limit: 600_000, used: 600_000 })).toBe('wall_clock (phase): 600 s used of 600 s');
    expect(describeExhaustion({ dimension: 'tool_calls', scope: 'phase', limit: 2, used: 2, needed: 1 })).toBe(
      'tool_calls (phase): 2 used of 2; the next tool call needs up to 1',
    );
  });
});
