import { putArtifactIfAbsent, putArtifactIfMatch, readArtifact, readArtifactIfPresent, readArtifactVersioned } from '../../core/artifacts/artifact-io.js';
import { lockKey, runKeys, type AttemptKeys, type RunKeys } from '../../core/artifacts/keys.js';
import { AgentError } from '../../core/errors.js';
import { PrCandidate } from '../../core/git/pr-candidate.js';
import type { ArtifactStore, Clock } from '../../core/ports.js';
import { latestAttempt } from '../../core/runs/attempts.js';
import { PublishRecord } from '../../core/runs/publish-record.js';
import { parseRunKey, type ParsedRunKey } from '../../core/runs/run-key.js';
import { RunRecord, RunRequest } from '../../core/runs/run-request.js';
import { CancelMarker, IssueLock } from '../../core/runs/run-state.js';
import { ACTIVE_RUN_STATUSES } from '../../core/runs/run-status.js';
import { Continuation, Lease, REPLAY_HOLDER, REPLAY_REASON } from './lease.js';

export const REPLAY_REASONS = [
  'NOT_A_RUN_KEY',
  'NOT_REPLAYABLE',
  'RUN_NOT_FOUND',
  'OBJECT_NOT_FOUND',
  'RUN_CANCELLED',
  'ATTEMPT_SUPERSEDED',
  'ATTEMPT_ENDED',
  'LOCK_NOT_HELD',
  'ATTEMPT_ACTIVE',
  'ALREADY_PUBLISHED',
] as const;
export type ReplayReason = (typeof REPLAY_REASONS)[number];

/** A replay that would be wrong or unsafe; nothing was written. */
export class ReplayError extends AgentError<ReplayReason> {}

/**
 * The longest a worker invocation runs (the function's timeout, serverless.yml) plus a minute:
 * an attempt whose lease, run record and continuations have not moved for this long has no
 * live invocation.
 */
export const DEFAULT_MIN_IDLE_MS = 16 * 60_000;

export interface ReplayOptions {
  clock: Clock;
  /** How long the attempt must have been still before a replay may take it over. */
  minIdleMs?: number;
}

export type ReplayOutcome =
  | {
      step: 'worker';
      /** `continuation`: a new continue-<k>.json; `renotify`: the attempt never leased, its request re-put as it was. */
      action: 'continuation' | 'renotify';
      runId: string;
      attempt: number;
      /** The continuation the next worker takes the lease over for (absent for `renotify`). */
      continuation?: number;
      /** The lease as the dead invocation left it. */
      previousLease?: { holder: string; continuation: number; at: string };
      wrote: string;
    }
  | { step: 'publisher'; action: 'renotify'; runId: string; attempt?: number; wrote: string };

/**
 * Re-drive a failed step of a run from its stored input, after its invocation was
 * dead-lettered. A worker step (`request.json`, `attempts/<n>/request.json`,
 * `continue-<k>.json`) becomes the attempt's next continuation: the lease is reserved for it
 * by compare-and-swap, then `continue-<k>.json` is written once with reason `replay`; its
 * creation starts the worker through the dispatcher as usual, and that worker takes the
 * reserved lease over by compare-and-swap. So the dead holder's lease is no obstacle, and of
 * two replays, or a replay and a late Lambda retry, one works. A publisher step (`pr-candidate.json`,
 * `ci/<id>.json`) is re-put unchanged: publication finds before it creates, so a second
 * notification is harmless.
 *
 * Refused, with nothing written: keys that are not run keys, cancelled runs, attempts that a
 * later attempt replaced or that ended, attempts whose issue lock is gone (the sweeper failed
 * them: `/agent retry` starts a new attempt), and attempts that moved less than `minIdleMs` ago.
 */
export async function replayStep(store: ArtifactStore, key: string, options: ReplayOptions): Promise<ReplayOutcome> {
  const parsed = parseRunKey(key);
  if (!parsed) throw new ReplayError('NOT_A_RUN_KEY', `${key} is not a run key`, { key });
  const keys = runKeys(parsed.owner, parsed.repo, parsed.runId);
  const request = await readArtifactIfPresent(store, keys.request, RunRequest);
  if (!request || request.owner !== parsed.owner || request.repo !== parsed.repo || request.runId !== parsed.runId) {
    throw new ReplayError('RUN_NOT_FOUND', `run ${parsed.runId} has no request.json for ${parsed.owner}/${parsed.repo}`, { key });
  }
  switch (parsed.kind) {
    case 'request':
    case 'attempt-request':
    case 'continuation':
      return replayWorker(store, keys, request, parsed as ParsedRunKey & { attempt: number }, options);
    case 'pr-candidate':
    case 'ci':
      return replayPublisher(store, keys, key, parsed);
    default:
      throw new ReplayError('NOT_REPLAYABLE', `${parsed.kind} objects start no step; replay the request, continuation, candidate or CI key`, {
        key,
        kind: parsed.kind,
      });
  }
}

/** A lease as read, with the etag a compare-and-swap on it needs. */
type VersionedLease = { value: Lease; etag: string };

async function assertNotCancelled(store: ArtifactStore, keys: RunKeys, attempt: number): Promise<void> {
  const cancel = await readArtifactIfPresent(store, keys.cancel, CancelMarker);
  if (cancel && cancel.attempt >= attempt) {
    throw new ReplayError('RUN_CANCELLED', `run ${cancel.runId} was cancelled by ${cancel.by} (${cancel.reason})`, {
      runId: cancel.runId,
      attempt: cancel.attempt,
    });
  }
}

async function replayWorker(
  store: ArtifactStore,
  keys: RunKeys,
  request: RunRequest,
  parsed: ParsedRunKey & { attempt: number },
  options: ReplayOptions,
): Promise<ReplayOutcome> {
  const { attempt } = parsed;
  const runId = request.runId;
  await assertNotCancelled(store, keys, attempt);
  await assertLatestAttempt(store, keys, runId, attempt);
  const run = await readArtifactIfPresent(store, keys.run, RunRecord);
  assertAttemptUnfinished(run, runId, attempt);
  await assertLockHeld(store, request, attempt);
  const idle = await assertAttemptIdle(store, keys.attempt(attempt), run, { runId, attempt }, options);
  // No invocation ever leased the attempt: deliver its request again, as it was written.
  if (!idle.lease) return renotifyRequest(store, keys, runId, attempt);
  return reserveContinuation(store, keys.attempt(attempt), { runId, attempt }, idle.lease, idle.continuations, idle.now);
}

/** Only the run's latest attempt is replayed: an earlier one was superseded, a later one never requested. */
async function assertLatestAttempt(store: ArtifactStore, keys: RunKeys, runId: string, attempt: number): Promise<void> {
  const latest = await latestAttempt(store, keys);
  if (attempt < latest)
    throw new ReplayError('ATTEMPT_SUPERSEDED', `attempt ${attempt} of run ${runId} was followed by attempt ${latest}`, { runId, attempt, latest });
  if (attempt > latest) throw new ReplayError('OBJECT_NOT_FOUND', `attempt ${attempt} of run ${runId} was never requested`, { runId, attempt });
}

/** An attempt run.json says ended (its own entry, or the run's status while it is the run's attempt) is not replayed. */
function assertAttemptUnfinished(run: RunRecord | undefined, runId: string, attempt: number): void {
  const entry = run?.attempts.find((a) => a.n === attempt);
  const status = entry?.status ?? (run && run.attempt === attempt ? run.status : undefined);
  if ((status && !ACTIVE_RUN_STATUSES.has(status)) || entry?.endedAt) {
    throw new ReplayError('ATTEMPT_ENDED', `attempt ${attempt} of run ${runId} already ended (${status ?? 'ended'})`, { runId, attempt, status });
  }
}

/** An issue run's attempt still holds its issue's lock (the sweeper released a stuck one's). */
async function assertLockHeld(store: ArtifactStore, request: RunRequest, attempt: number): Promise<void> {
  if (!request.issue) return;
  const runId = request.runId;
  const lock = await readArtifactIfPresent(store, lockKey(request.owner, request.repo, request.issue.number), IssueLock);
  if (lock?.runId !== runId || lock.attempt !== attempt) {
    throw new ReplayError(
      'LOCK_NOT_HELD',
      `the lock of issue #${request.issue.number} is no longer held by attempt ${attempt} of run ${runId}; \`/agent retry\` starts a new attempt`,
      {
        runId,
        attempt,
        issue: request.issue.number,
      },
    );
  }
}

/**
 * The attempt has not moved (lease, run.json, continuations) for `minIdleMs`: a live invocation
 * took or refreshed the lease when it started, at most one worker timeout ago.
 */
async function assertAttemptIdle(
  store: ArtifactStore,
  attemptKeys: AttemptKeys,
  run: RunRecord | undefined,
  { runId, attempt }: { runId: string; attempt: number },
  options: ReplayOptions,
): Promise<{ lease: VersionedLease | undefined; continuations: Continuation[]; now: number }> {
  const lease = await readArtifactVersioned(store, attemptKeys.lease, Lease);
  const continuations = await writtenContinuations(store, attemptKeys.prefix);
  const now = options.clock.now();
  const moved = [lease?.value.at, run?.attempt === attempt ? run.updatedAt : undefined, ...continuations.map((c) => c.at)]
    .filter((at): at is string => at !== undefined)
    .map((at) => Date.parse(at));
  const lastMove = Math.max(...moved, Number.NEGATIVE_INFINITY);
  const minIdleMs = options.minIdleMs ?? DEFAULT_MIN_IDLE_MS;
  if (now - lastMove < minIdleMs) {
    throw new ReplayError(
      'ATTEMPT_ACTIVE',
      `attempt ${attempt} of run ${runId} moved ${Math.round((now - lastMove) / 1000)} s ago; a worker may still be on it`,
      {
        runId,
        attempt,
        lastMove: new Date(lastMove).toISOString(),
        minIdleMs,
      },
    );
  }
  return { lease, continuations, now };
}

/** The attempt's request put again unchanged: whichever invocation creates the lease first works; the others are duplicates. */
async function renotifyRequest(store: ArtifactStore, keys: RunKeys, runId: string, attempt: number): Promise<ReplayOutcome> {
  const triggerKey = attempt === 1 ? keys.request : keys.attempt(attempt).request;
  const object = await store.get(triggerKey);
  if (!object) throw new ReplayError('OBJECT_NOT_FOUND', `${triggerKey} is missing`, { key: triggerKey });
  await store.put(triggerKey, object.body, { contentType: 'application/json' });
  return { step: 'worker', action: 'renotify', runId, attempt, wrote: triggerKey };
}

/**
 * Reserve the lease for the next continuation first (compare-and-swap against the lease just
 * read): a Lambda retry of the dead invocation can no longer refresh it, a second replay's
 * swap fails, and only the worker of that continuation may take it over. A reservation left
 * by an earlier replay whose notification was lost is renewed for the same continuation.
 */
async function reserveContinuation(
  store: ArtifactStore,
  attemptKeys: AttemptKeys,
  { runId, attempt }: { runId: string; attempt: number },
  lease: VersionedLease,
  continuations: Continuation[],
  now: number,
): Promise<ReplayOutcome> {
  const previous = lease.value;
  const next = previous.holder === REPLAY_HOLDER ? previous.continuation : Math.max(previous.continuation, ...continuations.map((c) => c.continuation)) + 1;
  const at = new Date(now).toISOString();
  if (!(await putArtifactIfMatch(store, attemptKeys.lease, Lease, { ...previous, continuation: next, holder: REPLAY_HOLDER, at }, lease.etag))) {
    throw new ReplayError('ATTEMPT_ACTIVE', `the lease of attempt ${attempt} of run ${runId} changed while replaying; nothing written`, { runId, attempt });
  }
  const key = attemptKeys.continue(next);
  const continuation: Continuation = { schemaVersion: 1, runId, attempt, continuation: next, reason: REPLAY_REASON, at };
  if (!(await putArtifactIfAbsent(store, key, Continuation, continuation))) {
    const existing = await store.get(key);
    if (existing) await store.put(key, existing.body, { contentType: 'application/json' });
  }
  return {
    step: 'worker',
    action: 'continuation',
    runId,
    attempt,
    continuation: next,
    previousLease: { holder: previous.holder, continuation: previous.continuation, at: previous.at },
    wrote: key,
  };
}

/** The attempt's continuation objects (unreadable ones are left out: they start nothing). */
async function writtenContinuations(store: ArtifactStore, attemptPrefix: string): Promise<Continuation[]> {
  const out: Continuation[] = [];
  for (const key of await store.list(attemptPrefix)) {
    if (parseRunKey(key)?.kind !== 'continuation') continue;
    const value = await readArtifactIfPresent(store, key, Continuation).catch(() => undefined);
    if (value) out.push(value);
  }
  return out;
}

async function replayPublisher(store: ArtifactStore, keys: RunKeys, key: string, parsed: ParsedRunKey): Promise<ReplayOutcome> {
  const object = await store.get(key);
  if (!object) throw new ReplayError('OBJECT_NOT_FOUND', `${key} is missing`, { key });
  let attempt: number | undefined;
  if (parsed.kind === 'pr-candidate') {
    attempt = (await readArtifact(store, key, PrCandidate)).attempt;
    await assertNotCancelled(store, keys, attempt);
    const published = await readArtifactIfPresent(store, keys.publish, PublishRecord);
    if (published && published.attempt >= attempt) {
      throw new ReplayError('ALREADY_PUBLISHED', `attempt ${published.attempt} is published as ${published.prUrl}`, {
        runId: parsed.runId,
        attempt: published.attempt,
        prNumber: published.prNumber,
      });
    }
  }
  await store.put(key, object.body, { contentType: 'application/json' });
  return { step: 'publisher', action: 'renotify', runId: parsed.runId, attempt, wrote: key };
}
