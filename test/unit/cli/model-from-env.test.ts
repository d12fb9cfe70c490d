import { describe, expect, it } from 'vitest';
import { modelFromEnv } from '../../../src/app/cli/run-stage.js';

/** The CLI's model comes from the DRAFTSMAN_MODEL_* variables, the output cap included. */
describe('modelFromEnv', () => {
  const local = { DRAFTSMAN_MODEL_BASE_URL: 'http://127.0.0.1:11434/v1', DRAFTSMAN_MODEL: 'qwen3' };

  it('takes DRAFTSMAN_MODEL_MAX_OUTPUT_TOKENS as the completion tokens asked for per call', () => {
    expect(modelFromEnv({ ...local, DRAFTSMAN_MODEL_MAX_OUTPUT_TOKENS: '12000' })?.maxOutputTokens).toBe(12_000);
  });

  it("keeps the provider's default without it", () => {
    expect(modelFromEnv(local)?.maxOutputTokens).toBe(4_096);
  });
});
