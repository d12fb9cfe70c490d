import { AgentError } from '../../errors.js';

export const LLM_ENGINE_REASONS = ['INVALID_BUDGETS', 'INVALID_REPLAY', 'PRICE_UNKNOWN'] as const;
export type LlmEngineReason = (typeof LLM_ENGINE_REASONS)[number];

/** Misuse of the LLM engine by its caller (bad budgets, malformed replay, a cost limit without a price); the model's failures are results, not errors. */
export class LlmEngineError extends AgentError<LlmEngineReason> {}
