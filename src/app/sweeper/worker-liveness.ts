import { readArtifactIfPresent } from '../../core/artifacts/artifact-io.js';
import { runKeys } from '../../core/artifacts/keys.js';
import type { ArtifactStore } from '../../core/ports.js';
import { WorkerHeartbeat } from '../../core/runs/run-state.js';
import { DispatchRecord, dispatchPrefix } from '../dispatch/dispatch-record.js';
import { HEARTBEAT_STALE_MS } from '../worker/heartbeat.js';

/**
 * A worker the dispatcher started that has not beaten since: gone after this long. Lambda
 * retries a failed asynchronous invocation after one and then two more minutes, and a worker
 * beats as it starts, so ten minutes without a beat is a worker that never ran (a crash at
 * start, a deployment or configuration fault), not one still queued.
 */
export const NEVER_STARTED_MS = 10 * 60_000;
/** Dispatch records read per run: a run has a few per continuation, and the newest decides. */
const MAX_DISPATCH_RECORDS = 50;

/** Why the sweeper holds an attempt's worker dead: it went silent mid-run, or never beat after its dispatch. */
export type DeadWorker = { kind: 'silent'; at: string; continuation: number } | { kind: 'never-started'; at: string; continuation: number };

/**
 * The attempt's worker when it is dead: a `running` heartbeat older than HEARTBEAT_STALE_MS (a
 * worker that stopped on its own says `idle`), or a dispatch of this attempt newer than its last
 * heartbeat (or with none) and older than NEVER_STARTED_MS. Undefined while it may be alive.
 */
export async function deadWorker(
  store: ArtifactStore,
  run: { owner: string; repo: string; runId: string },
  attempt: number,
  now: number,
): Promise<DeadWorker | undefined> {
  const keys = runKeys(run.owner, run.repo, run.runId);
  const beat = await readArtifactIfPresent(store, keys.attempt(attempt).heartbeat, WorkerHeartbeat);
  if (beat?.state === 'running') {
    return now - Date.parse(beat.at) > HEARTBEAT_STALE_MS ? { kind: 'silent', at: beat.at, continuation: beat.continuation } : undefined;
  }
  const dispatched = await latestDispatch(store, dispatchPrefix(run), attempt);
  if (!dispatched || (beat && Date.parse(beat.at) >= Date.parse(dispatched.createdAt))) return undefined;
  return now - Date.parse(dispatched.createdAt) > NEVER_STARTED_MS
    ? { kind: 'never-started', at: dispatched.createdAt, continuation: dispatched.continuation }
    : undefined;
}

/** The newest worker start the dispatcher recorded for the attempt (`dispatch/<digest>.json`). */
async function latestDispatch(store: ArtifactStore, prefix: string, attempt: number): Promise<DispatchRecord | undefined> {
  const records = (await store.list(prefix)).filter((k) => !k.slice(prefix.length).startsWith('continuation-')).slice(0, MAX_DISPATCH_RECORDS);
  let latest: DispatchRecord | undefined;
  for (const key of records) {
    const record = await readArtifactIfPresent(store, key, DispatchRecord);
    if (record?.attempt === attempt && (!latest || record.createdAt > latest.createdAt)) latest = record;
  }
  return latest;
}
