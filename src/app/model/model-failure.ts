import { MODEL_PROVIDER_REASONS, type ModelProviderReason } from './model-provider-error.js';
import type { ModelConfigReason } from './model-settings.js';

/**
 * What an operator does about each way a model call fails: the one list the progress
 * comment (attempt-outcome.ts) and the CLI's explanation (cli-explain.ts) read. Each says what
 * to change; the surface adds how to run again (`/agent retry`, the same command).
 */
export const MODEL_FAILURE_ADVICE: Record<ModelProviderReason | ModelConfigReason, string> = {
  MODEL_AUTH_FAILED:
    'the provider refused the key: check MODEL_API_KEY (deployed: the SSM parameter MODEL_API_KEY_PARAMETER names) and that it may use MODEL_NAME',
  MODEL_RATE_LIMITED:
    "the provider's rate limit or quota for this key is used up: wait for the time it asks (Retry-After), or raise the key's quota or lower the runs at once (policy limits.runsPerHour)",
  MODEL_SERVER_ERROR: 'the provider failed on its side: check its status page and try again later',
  MODEL_REQUEST_REJECTED: 'the provider refused the request: check that MODEL_NAME accepts tool calls and MODEL_MAX_OUTPUT_TOKENS',
  MODEL_NOT_FOUND: 'check MODEL_BASE_URL (an OpenAI-compatible server is usually served under /v1) and MODEL_NAME',
  MODEL_TIMEOUT: 'the provider did not answer in time: check its load, or choose a faster model',
  MODEL_NETWORK_ERROR: 'check that the model server runs and that MODEL_BASE_URL reaches it from where the worker runs',
  MODEL_RESPONSE_INVALID: 'the endpoint does not speak the protocol of MODEL_PROVIDER: check MODEL_PROVIDER and MODEL_BASE_URL',
  MODEL_CONTEXT_OVERFLOW: 'the request is longer than the model reads: narrow the task (fewer paths), or choose a model with a larger context window',
  MODEL_CONFIG_INVALID: "fix the model setting named above in the deployment's model settings",
};

const PROVIDER_REASONS: ReadonlySet<string> = new Set([...MODEL_PROVIDER_REASONS, 'MODEL_CONFIG_INVALID']);

/**
 * A failed model call as the pipeline summarises it ("The model call failed: <REASON>: <provider's
 * scrubbed message>"): the provider's reason when it gave one, the cause, and the advice.
 */
export function modelFailureOf(summary: string): { reason?: ModelProviderReason | ModelConfigReason; cause: string; advice: string } {
  const cause = summary
    .replace(/^The model call failed: /, '')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/\.$/, '');
  const code = /^([A-Z_]+): /.exec(cause)?.[1];
  const reason = code && PROVIDER_REASONS.has(code) ? (code as ModelProviderReason | ModelConfigReason) : undefined;
  return { reason, cause, advice: reason ? MODEL_FAILURE_ADVICE[reason] : MODEL_FAILURE_ADVICE.MODEL_NETWORK_ERROR };
}
