import { describe, expect, it } from 'vitest';
import { continuationRefusal, MAX_GRANTED_CONTINUATIONS, type ContinuationFacts } from '../../../src/core/runs/continuations.js';

const granted: ContinuationFacts = { attempt: 2, continuation: 1, attemptState: { requested: true, superseded: false }, previousGranted: true };

describe('continuationRefusal', () => {
  it('grants continuation 1 of a requested, live attempt, and k after k-1 up to the bound', () => {
    expect(continuationRefusal(granted)).toBeUndefined();
    expect(continuationRefusal({ ...granted, continuation: MAX_GRANTED_CONTINUATIONS })).toBeUndefined();
  });

  it.each([
    ['an attempt nobody requested', { attemptState: { requested: false, superseded: false } }, 'ATTEMPT_NOT_REQUESTED'],
    ['an attempt a later request superseded', { attemptState: { requested: true, superseded: true } }, 'ATTEMPT_SUPERSEDED'],
    ['a run cancelled at this attempt', { cancelledAttempt: 2 }, 'RUN_CANCELLED'],
    ['a run cancelled at a later attempt', { cancelledAttempt: 3 }, 'RUN_CANCELLED'],
    ['an attempt already published', { publishedAttempt: 2 }, 'ATTEMPT_PUBLISHED'],
    ['continuation k before k-1', { continuation: 3, previousGranted: false }, 'OUT_OF_ORDER'],
    ['one past the bound', { continuation: MAX_GRANTED_CONTINUATIONS + 1 }, 'LIMIT_REACHED'],
  ] as const)('refuses %s', (_name, change, reason) => {
    expect(continuationRefusal({ ...granted, ...change })).toBe(reason);
  });

  it('an earlier cancel or publication does not end a later attempt', () => {
    expect(continuationRefusal({ ...granted, cancelledAttempt: 1, publishedAttempt: 1 })).toBeUndefined();
  });
});
