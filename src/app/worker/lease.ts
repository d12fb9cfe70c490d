import { z } from 'zod';
import { putArtifactIfAbsent, putArtifactIfMatch, readArtifactIfPresent, readArtifactVersioned } from '../../core/artifacts/artifact-io.js';
import type { AttemptKeys } from '../../core/artifacts/keys.js';
import type { ArtifactStore } from '../../core/ports.js';

/** Why an operator's `draftsman replay` wrote a continuation (the worker wrote all others). */
export const REPLAY_REASON = 'replay';

/**
 * The lease holder a replay leaves for the continuation it writes: no invocation is called
 * that (Lambda request ids are UUIDs), and only the worker of that continuation takes it over.
 */
export const REPLAY_HOLDER = 'replay';

/**
 * `attempts/<n>/lease.json`: which invocation works on the attempt. Written once by the first
 * invocation, taken over by compare-and-swap by the worker of each later continuation.
 */
export const Lease = z.object({
  schemaVersion: z.literal(1),
  runId: z.string(),
  attempt: z.number().int().positive(),
  /** The continuation this lease is held for (0 = the attempt's first invocation). */
  continuation: z.number().int().nonnegative(),
  holder: z.string(),
  at: z.string(),
});
export type Lease = z.infer<typeof Lease>;

/** `attempts/<n>/continue-<k>.json`, written once (putIfAbsent); its creation starts the worker again. */
export const Continuation = z.object({
  schemaVersion: z.literal(1),
  runId: z.string(),
  attempt: z.number().int().positive(),
  continuation: z.number().int().positive(),
  reason: z.string(),
  at: z.string(),
});
export type Continuation = z.infer<typeof Continuation>;

/**
 * How many of continuations 1..`upTo` of the attempt were not for lack of time: operator
 * replays re-drive a dead invocation, and a continuation with no key of its own was started by a
 * verification build's trusted result (the dispatcher bounds those apart), so the continuation
 * limit leaves them out.
 */
export async function countReplays(store: ArtifactStore, attemptKeys: Pick<AttemptKeys, 'continue'>, upTo: number): Promise<number> {
  let replays = 0;
  for (let k = 1; k <= upTo; k++) {
    const written = await readArtifactIfPresent(store, attemptKeys.continue(k), Continuation).catch(() => undefined);
    if (!written || written.reason === REPLAY_REASON) replays += 1;
  }
  return replays;
}

export type LeaseOutcome = 'leased' | 'resumed' | 'duplicate';

/**
 * Lease the attempt for one invocation of continuation `target.continuation`: the first
 * invocation creates the lease, a continuation's worker takes it over by compare-and-swap from
 * an earlier continuation (or from the replay that reserved it for this one). Lambda retries a
 * failed invocation with the same request id (`retryOf`): a lease still held by that very
 * invocation is refreshed by compare-and-swap and the attempt resumes from its checkpoints, so
 * the lease's `at` is the start of the latest live invocation. Anything else is a duplicate.
 */
export async function takeLease(
  store: ArtifactStore,
  attemptKeys: Pick<AttemptKeys, 'lease'>,
  lease: Lease,
  retryOf: string | undefined,
): Promise<LeaseOutcome> {
  if (lease.continuation === 0 && (await putArtifactIfAbsent(store, attemptKeys.lease, Lease, lease))) return 'leased';
  const current = await readArtifactVersioned(store, attemptKeys.lease, Lease);
  if (!current) return 'duplicate';
  const held = current.value;
  if (retryOf !== undefined && held.holder === retryOf && held.continuation === lease.continuation) {
    return (await putArtifactIfMatch(store, attemptKeys.lease, Lease, lease, current.etag)) ? 'resumed' : 'duplicate';
  }
  const takeover =
    lease.continuation > held.continuation || (held.holder === REPLAY_HOLDER && held.continuation === lease.continuation && lease.continuation > 0);
  if (!takeover) return 'duplicate';
  return (await putArtifactIfMatch(store, attemptKeys.lease, Lease, lease, current.etag)) ? 'leased' : 'duplicate';
}
