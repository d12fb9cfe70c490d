import type { TrustedAttemptState } from './attempts.js';

/** Continuations an attempt may use for lack of time; operator replays do not count against it. */
export const MAX_CONTINUATIONS = 3;

/** Operator replays (`draftsman replay`) an attempt may use on top of its continuations. */
export const MAX_REPLAYS = 2;

/**
 * Every continuation the dispatcher grants one attempt, replays included. A continuation key is
 * written by the worker, and its `reason` too, so this bound holds whatever the keys say.
 */
export const MAX_GRANTED_CONTINUATIONS = MAX_CONTINUATIONS + MAX_REPLAYS;

/**
 * Continuations an attempt may be granted on top, one per verification build whose trusted
 * result resumes it (the verifier bounds the builds; the dispatcher counts the resumes).
 */
export const MAX_VERIFY_RESUMES = 8;

export const CONTINUATION_REFUSALS = [
  /** No trusted writer requested the attempt the key names. */
  'ATTEMPT_NOT_REQUESTED',
  /** A later attempt of the run was requested. */
  'ATTEMPT_SUPERSEDED',
  /** The run was cancelled at or after this attempt. */
  'RUN_CANCELLED',
  /** The attempt (or a later one) was published: the attempt is over. */
  'ATTEMPT_PUBLISHED',
  /** Continuation k before continuation k-1 was granted. */
  'OUT_OF_ORDER',
  /** The attempt already had every continuation it may. */
  'LIMIT_REACHED',
] as const;
export type ContinuationRefusal = (typeof CONTINUATION_REFUSALS)[number];

/** What trusted writers recorded, as the dispatcher read it for one `continue-<k>.json`. */
export interface ContinuationFacts {
  attempt: number;
  continuation: number;
  attemptState: TrustedAttemptState;
  /** The attempt of the run's cancel marker, if any. */
  cancelledAttempt?: number;
  /** The attempt of the run's publish record, if any. */
  publishedAttempt?: number;
  /** Whether continuation k-1 of the attempt was granted (always true for k = 1). */
  previousGranted: boolean;
  /** Continuations the dispatcher granted for verification results (each raises the limit by one). */
  verifyResumes?: number;
}

/**
 * Whether a continuation may start a worker: the worker only asks (it writes the key); the grant
 * rests on the attempt's trusted request, the cancel marker, the publish record and the
 * dispatcher's own grants, counted and bounded. Undefined means granted.
 */
export function continuationRefusal(facts: ContinuationFacts): ContinuationRefusal | undefined {
  if (!facts.attemptState.requested) return 'ATTEMPT_NOT_REQUESTED';
  if (facts.attemptState.superseded) return 'ATTEMPT_SUPERSEDED';
  if (facts.cancelledAttempt !== undefined && facts.cancelledAttempt >= facts.attempt) return 'RUN_CANCELLED';
  if (facts.publishedAttempt !== undefined && facts.publishedAttempt >= facts.attempt) return 'ATTEMPT_PUBLISHED';
  if (facts.continuation > MAX_GRANTED_CONTINUATIONS + Math.min(facts.verifyResumes ?? 0, MAX_VERIFY_RESUMES)) return 'LIMIT_REACHED';
  if (facts.continuation > 1 && !facts.previousGranted) return 'OUT_OF_ORDER';
  return undefined;
}
