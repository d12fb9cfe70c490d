import { describe, expect, it } from 'vitest';
import { modelEnv } from '../../../src/app/cli/model-env.js';
import { modelFromEnv } from '../../../src/app/cli/run-stage.js';

/** The CLI's model comes from the MODEL_* variables serve and the App read, the output cap included; the old names still work, with a warning. */
describe('modelFromEnv', () => {
  const local = { MODEL_BASE_URL: 'http://127.0.0.1:11434/v1', MODEL_NAME: 'qwen3' };

  it('takes MODEL_MAX_OUTPUT_TOKENS as the completion tokens asked for per call', () => {
    expect(modelFromEnv({ ...local, MODEL_MAX_OUTPUT_TOKENS: '12000' })?.maxOutputTokens).toBe(12_000);
  });

  it('reads the old DRAFTSMAN_MODEL_* names as aliases, each with a warning naming its replacement', () => {
    const old = { DRAFTSMAN_MODEL_BASE_URL: 'http://127.0.0.1:11434/v1', DRAFTSMAN_MODEL: 'qwen3', DRAFTSMAN_MODEL_MAX_OUTPUT_TOKENS: '9000' };
    expect(modelFromEnv(old)?.maxOutputTokens).toBe(9_000);
    expect(modelEnv(old).warnings).toEqual([
      'DRAFTSMAN_MODEL is an old name, still read: set MODEL_NAME instead (serve and the deployed App read the same name)',
      'DRAFTSMAN_MODEL_BASE_URL is an old name, still read: set MODEL_BASE_URL instead (serve and the deployed App read the same name)',
      'DRAFTSMAN_MODEL_MAX_OUTPUT_TOKENS is an old name, still read: set MODEL_MAX_OUTPUT_TOKENS instead (serve and the deployed App read the same name)',
    ]);
    // The new name wins; a different old value is named as ignored.
    expect(modelEnv({ ...local, DRAFTSMAN_MODEL: 'other' })).toEqual({
      values: { MODEL_BASE_URL: 'http://127.0.0.1:11434/v1', MODEL_NAME: 'qwen3' },
      warnings: ['DRAFTSMAN_MODEL is ignored: MODEL_NAME is set and wins'],
    });
    expect(modelEnv(local).warnings).toEqual([]);
  });

  it("keeps the provider's default without it", () => {
    expect(modelFromEnv(local)?.maxOutputTokens).toBe(4_096);
  });
});
