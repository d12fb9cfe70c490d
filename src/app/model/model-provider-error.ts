import { AgentError } from '../../core/errors.js';

export const MODEL_PROVIDER_REASONS = [
  'MODEL_AUTH_FAILED',
  'MODEL_RATE_LIMITED',
  'MODEL_SERVER_ERROR',
  'MODEL_REQUEST_REJECTED',
  /** HTTP 404: no such path (a base URL without `/v1`) or no such model on that endpoint. Not retried. */
  'MODEL_NOT_FOUND',
  'MODEL_TIMEOUT',
  'MODEL_NETWORK_ERROR',
  'MODEL_RESPONSE_INVALID',
  /** The request is longer than the model's context window; retrying the same request cannot help. */
  'MODEL_CONTEXT_OVERFLOW',
] as const;
export type ModelProviderReason = (typeof MODEL_PROVIDER_REASONS)[number];

/** A model call that failed after retries. `data` holds status and attempt count, never the key or headers. */
export class ModelProviderError extends AgentError<ModelProviderReason> {}
