import { AgentError } from '../errors.js';

/** Why run state could not be updated. */
export const RUN_STATE_REASONS = ['RUN_RECORD_CONTENDED', 'TRANSITION_REFUSED'] as const;
export type RunStateReason = (typeof RUN_STATE_REASONS)[number];

/**
 * RUN_RECORD_CONTENDED: `run.json` changed under every one of the bounded compare-and-swap
 * tries (`data.key`, `data.tries`); the caller's invocation fails and its retry re-applies.
 * TRANSITION_REFUSED: the writer (`data.by`) may not move the run from `data.from` to `data.to`
 * (`RUN_TRANSITIONS`, run-transitions.ts); nothing was written.
 */
export class RunStateError extends AgentError<RunStateReason> {}
