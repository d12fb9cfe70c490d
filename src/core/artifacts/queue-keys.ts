import { ArtifactError } from './artifact-error.js';
import { keySegment, padSeq } from './keys.js';

/*
 * The run queue's storage keys (docs/architecture.md, "The run queue"), kept beside keys.ts
 * (which builds every other key, and `limitSlotKey`, the queue's hour slots) with the same
 * segment rules.
 */

/** `queue/`: the run queue (docs/architecture.md, "The run queue"): `waiting/` lines, `counters/`, `workers/` slots. */
export const QUEUE_PREFIX = 'queue/';
export const QUEUE_WAITING_PREFIX = `${QUEUE_PREFIX}waiting/`;
export const WORKER_SLOTS_PREFIX = `${QUEUE_PREFIX}workers/`;

/** `queue/waiting/<owner>/<repo>/`: one repository's line of waiting runs, in order when listed. */
export function queuePrefix(owner: string, repo: string): string {
  return `${QUEUE_WAITING_PREFIX}${keySegment(owner, 'owner')}/${keySegment(repo, 'repo')}/`;
}

/** `queue/waiting/<owner>/<repo>/<n, 12 digits>-<runId>.json`: a waiting run, n its number in the line (queueCounterKey). */
export function queueEntryKey(owner: string, repo: string, n: number, runId: string): string {
  if (!Number.isSafeInteger(n) || n < 1 || n >= 1e12)
    throw new ArtifactError('ARTIFACT_KEY_INVALID', `invalid queue number for a storage key: ${n}`, { what: 'queue number', value: n });
  return `${queuePrefix(owner, repo)}${String(n).padStart(12, '0')}-${keySegment(runId, 'runId')}.json`;
}

/** The repository, number and run of a `queue/waiting/...` key, or undefined for any other key. */
export function parseQueueEntryKey(key: string): { owner: string; repo: string; n: number; runId: string } | undefined {
  const match = /^queue\/waiting\/([^/]+)\/([^/]+)\/(\d{12})-([^/]+)\.json$/.exec(key);
  return match ? { owner: match[1], repo: match[2], n: Number(match[3]), runId: match[4] } : undefined;
}

/** `queue/counters/<owner>/<repo>.json`: the last number given in the repository's line (compare-and-swap). */
export function queueCounterKey(owner: string, repo: string): string {
  return `${QUEUE_PREFIX}counters/${keySegment(owner, 'owner')}/${keySegment(repo, 'repo')}.json`;
}

/** `queue/claims/<owner>/<repo>/<runId>.json`: the number a run was given in its line (QueueClaim), written once. */
export function queueClaimKey(owner: string, repo: string, runId: string): string {
  return `${QUEUE_PREFIX}claims/${keySegment(owner, 'owner')}/${keySegment(repo, 'repo')}/${keySegment(runId, 'runId')}.json`;
}

/** `queue/workers/slot-<k>.json`: worker slot k (the worker's reserved concurrency), held by one admitted run until it ends. */
export function workerSlotKey(slot: number): string {
  return `${WORKER_SLOTS_PREFIX}slot-${padSeq(slot)}.json`;
}
