import { putArtifactIfAbsent, readArtifact, readArtifactIfPresent } from '../artifacts/artifact-io.js';
import type { RunKeys } from '../artifacts/keys.js';
import type { ArtifactStore } from '../ports.js';
import { AttemptRequest, RunRequest } from './run-request.js';

export interface AttemptStart {
  attempt: number;
  /** The run's snapshot (the first one ever written; a later trigger never replaces it). */
  request: RunRequest;
  attemptRequest?: AttemptRequest;
  /** The attempt's `createdAt`: every SHA-affecting date of the attempt comes from it. */
  createdAt: string;
  /** True when this call created the run (attempt 1). */
  createdRun: boolean;
}

/**
 * Start attempt 1 of a run (writing `request.json` once), or, when the run exists, attempt
 * n+1 (writing `attempts/<n+1>/request.json` once). Both writes are conditional, so two callers
 * racing never make the same attempt twice.
 */
export async function beginAttempt(
  store: ArtifactStore,
  keys: RunKeys,
  request: RunRequest,
  next: Omit<AttemptRequest, 'attempt' | 'schemaVersion' | 'runId'>,
): Promise<AttemptStart> {
  if (await putArtifactIfAbsent(store, keys.request, RunRequest, request)) {
    return { attempt: 1, request, createdAt: request.createdAt, createdRun: true };
  }
  const existing = await readArtifact(store, keys.request, RunRequest);
  for (let n = (await latestAttempt(store, keys)) + 1; ; n++) {
    const attemptRequest = AttemptRequest.parse({ schemaVersion: 1, runId: existing.runId, attempt: n, ...next });
    if (await putArtifactIfAbsent(store, keys.attempt(n).request, AttemptRequest, attemptRequest)) {
      return { attempt: n, request: existing, attemptRequest, createdAt: attemptRequest.createdAt, createdRun: false };
    }
  }
}

/** The highest attempt number that has a request (1 when only `request.json` exists, 0 when none). */
export async function latestAttempt(store: ArtifactStore, keys: RunKeys): Promise<number> {
  let latest = (await store.get(keys.request)) ? 1 : 0;
  for (const key of await store.list(`${keys.prefix}attempts/`)) {
    const match = /attempts\/(\d+)\/request\.json$/.exec(key);
    if (match) latest = Math.max(latest, Number(match[1]));
  }
  return latest;
}

/** Load what an attempt works from: the snapshot, and for n >= 2 the attempt's own request. */
export async function loadAttempt(store: ArtifactStore, keys: RunKeys, attempt: number): Promise<AttemptStart> {
  const request = await readArtifact(store, keys.request, RunRequest);
  if (attempt === 1) return { attempt, request, createdAt: request.createdAt, createdRun: false };
  const attemptRequest = await readArtifactIfPresent(store, keys.attempt(attempt).request, AttemptRequest);
  if (!attemptRequest) throw new Error(`attempt ${attempt} of run ${request.runId} has no request`);
  return { attempt, request, attemptRequest, createdAt: attemptRequest.createdAt, createdRun: false };
}

/**
 * What the trusted writers of a run say of one attempt, read from keys no worker can write:
 * `requested` when the attempt has its request (`request.json` for 1, `attempts/<n>/request.json`
 * naming this run and attempt for n >= 2), `superseded` when a later attempt was requested. A
 * candidate's `attempt` is the worker's word; this is what a publisher holds it to.
 */
export async function trustedAttemptState(store: ArtifactStore, keys: RunKeys, runId: string, attempt: number): Promise<TrustedAttemptState> {
  const requested = attempt === 1 ? (await store.get(keys.request)) !== undefined : await attemptRequested(store, keys, runId, attempt);
  const superseded = await attemptRequested(store, keys, runId, attempt + 1);
  return { requested, superseded };
}

export interface TrustedAttemptState {
  requested: boolean;
  superseded: boolean;
}

async function attemptRequested(store: ArtifactStore, keys: RunKeys, runId: string, attempt: number): Promise<boolean> {
  const request = await readArtifactIfPresent(store, keys.attempt(attempt).request, AttemptRequest).catch(() => undefined);
  return request !== undefined && request.runId === runId && request.attempt === attempt;
}
