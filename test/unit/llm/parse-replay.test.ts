import { describe, expect, it } from 'vitest';
import { parseReplay } from '../../../src/core/engines/llm/parse-replay.js';
import type { RecordedExchange } from '../../../src/core/engines/llm/recorded-exchange.js';

const exchange = (seq: number, phase = 'change'): RecordedExchange => ({
  schemaVersion: 1,
  seq,
  phase,
  model: 'm',
  requestDigest: 'a'.repeat(64),
  response: {
    message: { role: 'assistant', content: 'done' },
    usage: { promptTokens: 1200, completionTokens: 40, cachedInputTokens: 1024 },
    finishReason: 'stop',
  },
});

describe('recorded exchanges replayed', () => {
  it('keep the prompt tokens the provider read from its cache, so a resumed attempt counts them as the first did', () => {
    expect(parseReplay([exchange(0), exchange(1)], 'change').map((e) => e.response.usage)).toEqual([
      { promptTokens: 1200, completionTokens: 40, cachedInputTokens: 1024 },
      { promptTokens: 1200, completionTokens: 40, cachedInputTokens: 1024 },
    ]);
  });

  it('refuse an exchange out of order or from another phase', () => {
    expect(() => parseReplay([exchange(1)], 'change')).toThrow(/out of order or from another phase/);
    expect(() => parseReplay([exchange(0, 'repair')], 'change')).toThrow(/out of order or from another phase/);
  });
});
