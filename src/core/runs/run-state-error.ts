import { AgentError } from '../errors.js';

/** Why run state could not be updated. */
export const RUN_STATE_REASONS = ['RUN_RECORD_CONTENDED'] as const;
export type RunStateReason = (typeof RUN_STATE_REASONS)[number];

/**
 * RUN_RECORD_CONTENDED: `run.json` changed under every one of the bounded compare-and-swap
 * tries (`data.key`, `data.tries`); the caller's invocation fails and its retry re-applies.
 */
export class RunStateError extends AgentError<RunStateReason> {}
