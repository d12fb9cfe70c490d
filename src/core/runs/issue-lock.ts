import { putArtifactIfAbsent, putArtifactIfMatch, readArtifactVersioned } from '../artifacts/artifact-io.js';
import { lockKey } from '../artifacts/keys.js';
import type { ArtifactStore } from '../ports.js';
import { IssueLock } from './run-state.js';

export interface IssueRef {
  owner: string;
  repo: string;
  issue: number;
}

export type LockAcquired = 'acquired' | 'same-run' | 'held';

/**
 * Take the issue's lock for `runId`'s `attempt`: 'acquired'; 'same-run' when this run already
 * holds it for this attempt or a later one (a redelivery); 'held' by another live run. An
 * expired lock, or one of an earlier attempt of the same run, is taken over by compare-and-swap.
 */
export async function acquireIssueLock(
  store: ArtifactStore,
  ref: IssueRef,
  holder: { runId: string; attempt: number },
  now: number,
  ttlMs: number,
): Promise<LockAcquired> {
  const key = lockKey(ref.owner, ref.repo, ref.issue);
  const value: IssueLock = {
    schemaVersion: 1,
    runId: holder.runId,
    attempt: holder.attempt,
    acquiredAt: new Date(now).toISOString(),
    expiresAt: new Date(now + ttlMs).toISOString(),
  };
  for (let tries = 0; tries < 3; tries++) {
    if (await putArtifactIfAbsent(store, key, IssueLock, value)) return 'acquired';
    const current = await readArtifactVersioned(store, key, IssueLock);
    if (!current) continue;
    if (current.value.runId === holder.runId && current.value.attempt >= holder.attempt) return 'same-run';
    if (Date.parse(current.value.expiresAt) > now && current.value.runId !== holder.runId) return 'held';
    if (await putArtifactIfMatch(store, key, IssueLock, value, current.etag)) return 'acquired';
  }
  return 'held';
}

/**
 * Release the issue's lock when it belongs to `runId` at `attempt` or an earlier attempt: a run
 * never releases another run's lock, nor a later attempt's. With `etag`, only that exact lock
 * object is released (the sweeper: a webhook that took an expired lock over keeps it). The
 * store has no conditional delete, so the check and the delete are two calls. Returns whether
 * a lock was deleted.
 */
export async function releaseIssueLock(store: ArtifactStore, ref: IssueRef, holder: { runId: string; attempt: number; etag?: string }): Promise<boolean> {
  const key = lockKey(ref.owner, ref.repo, ref.issue);
  const current = await readArtifactVersioned(store, key, IssueLock).catch(() => undefined);
  if (!current) return false;
  if (current.value.runId !== holder.runId || current.value.attempt > holder.attempt) return false;
  if (holder.etag !== undefined && current.etag !== holder.etag) return false;
  await store.delete(key);
  return true;
}

/**
 * Give `holder`'s lock a fresh lifetime from `now` (compare-and-swap on the lock it holds): a run
 * waiting in the queue keeps its issue, and an admitted one starts its lifetime when it starts.
 * With `whenWithinMs`, a lock that lives longer than that still is left as it is. False when the
 * lock is not the holder's any more.
 */
export async function renewIssueLock(
  store: ArtifactStore,
  ref: IssueRef,
  holder: { runId: string; attempt: number },
  now: number,
  ttlMs: number,
  whenWithinMs?: number,
): Promise<boolean> {
  const key = lockKey(ref.owner, ref.repo, ref.issue);
  const current = await readArtifactVersioned(store, key, IssueLock).catch(() => undefined);
  if (current?.value.runId !== holder.runId) return false;
  if (whenWithinMs !== undefined && Date.parse(current.value.expiresAt) - now > whenWithinMs) return true;
  const renewed: IssueLock = { ...current.value, acquiredAt: new Date(now).toISOString(), expiresAt: new Date(now + ttlMs).toISOString() };
  return putArtifactIfMatch(store, key, IssueLock, renewed, current.etag);
}
