import { AgentError } from '../../errors.js';

export const LLM_ENGINE_REASONS = ['INVALID_BUDGETS', 'INVALID_REPLAY'] as const;
export type LlmEngineReason = (typeof LLM_ENGINE_REASONS)[number];

/** Misuse of the LLM engine by its caller (bad budgets, malformed replay); the model's failures are results, not errors. */
export class LlmEngineError extends AgentError<LlmEngineReason> {}
