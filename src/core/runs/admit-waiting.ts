import { z } from 'zod';
import { putArtifactIfAbsent, putArtifactIfMatch, readArtifactIfPresent } from '../artifacts/artifact-io.js';
import { hourBucket, limitPrefix, limitSlotKey, runKeys } from '../artifacts/keys.js';
import { WORKER_SLOTS_PREFIX, workerSlotKey } from '../artifacts/queue-keys.js';
import type { ArtifactStore } from '../ports.js';
import { renewIssueLock } from './issue-lock.js';
import { RunRecord, RunRequest } from './run-request.js';
import { ACTIVE_RUN_STATUSES } from './run-status.js';
import { repositoriesWaiting, waitingRuns, QueueEntry, type WaitingRun, type WaitReason } from './run-queue.js';

/**
 * `limits/.../slot-<k>.json` and `queue/workers/slot-<k>.json`: a start slot of the hour, or a
 * worker slot, taken by one run with a create-only write, so two admissions never share one.
 */
export const QueueSlot = z.object({ schemaVersion: z.literal(1), runId: z.string(), owner: z.string(), repo: z.string(), takenAt: z.string() }).strict();
export type QueueSlot = z.infer<typeof QueueSlot>;

/** A worker slot whose run has neither a request nor a record this long after it was taken was left by an admission that died. */
export const ORPHAN_SLOT_MS = 5 * 60 * 1000;

export interface AdmitDeps {
  store: ArtifactStore;
  now: number;
  /** Runs that may hold a worker at once: the worker's reserved concurrency. */
  workerSlots: number;
  /** The issue lock's lifetime, renewed when a run is admitted and while it waits. */
  lockTtlMs: number;
  /** Open pull requests by the App in the run's repository now; without it, that limit is not checked here. */
  openPullRequests?: (request: RunRequest) => Promise<number>;
  /** Show a waiting run's place on its progress comment; called only when the place or the reason changed. False: not shown. */
  showPlace?: (run: WaitingRun, reason: WaitReason | undefined) => Promise<boolean>;
}

export interface AdmitReport {
  /** Runs admitted by this pass (their request.json written), in order. */
  admitted: string[];
  /** Runs still waiting, with their place and what their line waits for. */
  waiting: { runId: string; owner: string; repo: string; place: number; reason: WaitReason | undefined }[];
  /** Worker slots given back because their run ended. */
  freed: string[];
}

/**
 * One admission pass (docs/architecture.md, "The run queue"): worker slots of runs that ended
 * are given back; then, repository by repository (the longest-waiting line first), the first
 * waiting run takes an open-pull-request check, a start slot of the hour and a worker slot, and
 * its `request.json` is written (which starts it), until a line's first run cannot start: then
 * nothing behind it starts either, so every line keeps its order. Waiting runs' places are shown
 * where they changed, and their issue locks kept alive. Safe to run from many places at once.
 */
export async function admitWaiting(deps: AdmitDeps, only?: { owner: string; repo: string }): Promise<AdmitReport> {
  const report: AdmitReport = { admitted: [], waiting: [], freed: await freeWorkerSlots(deps) };
  let workersFull = false;
  const lines: { owner: string; repo: string; line: WaitingRun[] }[] = [];
  for (const r of only ? [only] : await repositoriesWaiting(deps.store)) lines.push({ ...r, line: await waitingRuns(deps.store, r.owner, r.repo) });
  // The line whose first run waits longest goes first: a free worker goes to it.
  const since = (l: WaitingRun[]) => (l.length > 0 ? Date.parse(l[0].entry.enqueuedAt) : Infinity);
  lines.sort((a, b) => since(a.line) - since(b.line));
  for (const { owner, repo, line } of lines) {
    let reason: WaitReason | undefined = workersFull ? 'WORKER_CONCURRENCY' : undefined;
    while (line.length > 0 && reason === undefined) {
      const outcome = await admitFirst(deps, line[0]);
      if (outcome === 'admitted') report.admitted.push(line[0].entry.runId);
      if (outcome === 'admitted' || outcome === 'gone') line.shift();
      else reason = outcome;
    }
    if (reason === 'WORKER_CONCURRENCY') workersFull = true;
    for (const [i, run] of line.entries()) {
      const place = i + 1;
      report.waiting.push({ runId: run.entry.runId, owner, repo, place, reason });
      await keepWaiting(deps, { ...run, place }, reason);
    }
  }
  return report;
}

/** Start the first run of a line, or say what it waits for; `gone` when it left the line meanwhile. */
async function admitFirst(deps: AdmitDeps, run: WaitingRun): Promise<'admitted' | 'gone' | WaitReason> {
  const { store, now } = deps;
  const { request, limits, runId } = run.entry;
  if (deps.openPullRequests && (await deps.openPullRequests(request)) >= limits.maxOpenPullRequests) return 'OPEN_PULL_REQUESTS';
  const slot = { schemaVersion: 1 as const, runId, owner: request.owner, repo: request.repo, takenAt: new Date(now).toISOString() };
  const hour = hourBucket(now);
  const hourSlot = await takeSlot(store, await store.list(limitPrefix(request.owner, request.repo, hour)), limits.runsPerHour, (k) =>
    limitSlotKey(request.owner, request.repo, hour, k),
  );
  if (!hourSlot) return 'RUNS_PER_HOUR';
  const workerSlot = await takeSlot(store, await store.list(WORKER_SLOTS_PREFIX), deps.workerSlots, workerSlotKey, slot);
  const held = [hourSlot, workerSlot].filter((k): k is string => k !== undefined);
  if (!workerSlot || (await store.get(run.key)) === undefined) {
    // Full, or cancelled while this pass looked: the slots go back.
    for (const key of held) await store.delete(key);
    return workerSlot ? 'gone' : 'WORKER_CONCURRENCY';
  }
  await renewIssueLock(store, { owner: request.owner, repo: request.repo, issue: run.entry.issue }, { runId, attempt: 1 }, now, deps.lockTtlMs);
  // Create-only: a concurrent pass that admitted the same run first keeps its slots; this one's go back.
  if (!(await putArtifactIfAbsent(store, runKeys(request.owner, request.repo, runId).request, RunRequest, request))) {
    for (const key of held) await store.delete(key);
    await store.delete(run.key);
    return 'gone';
  }
  await store.delete(run.key);
  return 'admitted';

  async function takeSlot(s: ArtifactStore, taken: string[], count: number, keyOf: (k: number) => string, value: QueueSlot = slot) {
    for (let k = 0; k < count; k++) {
      const key = keyOf(k);
      if (!taken.includes(key) && (await putArtifactIfAbsent(s, key, QueueSlot, value))) return key;
    }
    return undefined;
  }
}

/**
 * Renew a waiting run's lock once half its lifetime is gone (the entry remembers when, so a pass
 * reads no lock before that), and show its place when it changed.
 */
async function keepWaiting(deps: AdmitDeps, run: WaitingRun, reason: WaitReason | undefined): Promise<void> {
  const { entry } = run;
  const ref = { owner: entry.request.owner, repo: entry.request.repo, issue: entry.issue };
  let lockRenewedAt = entry.lockRenewedAt;
  if (deps.now - Date.parse(lockRenewedAt ?? entry.enqueuedAt) >= deps.lockTtlMs / 2) {
    if (await renewIssueLock(deps.store, ref, { runId: entry.runId, attempt: 1 }, deps.now, deps.lockTtlMs)) lockRenewedAt = new Date(deps.now).toISOString();
  }
  let shown = entry.shown;
  if (shown?.place !== run.place || shown.reason !== reason) {
    if (!deps.showPlace || (await deps.showPlace(run, reason))) shown = reason ? { place: run.place, reason } : { place: run.place };
  }
  if (shown === entry.shown && lockRenewedAt === entry.lockRenewedAt) return;
  await putArtifactIfMatch(deps.store, run.key, QueueEntry, { ...entry, shown, lockRenewedAt }, run.etag);
}

/** Give back the worker slots whose run no longer needs a worker (ended, or never written by an admission that died). */
async function freeWorkerSlots(deps: AdmitDeps): Promise<string[]> {
  const freed: string[] = [];
  for (const key of await deps.store.list(WORKER_SLOTS_PREFIX)) {
    const slot = await readArtifactIfPresent(deps.store, key, QueueSlot).catch(() => undefined);
    if (slot && (await holdsWorker(deps, slot))) continue;
    await deps.store.delete(key);
    freed.push(slot?.runId ?? key);
  }
  return freed;
}

/** Whether the slot's run is queued for or running in a worker now. */
async function holdsWorker(deps: AdmitDeps, slot: QueueSlot): Promise<boolean> {
  const keys = runKeys(slot.owner, slot.repo, slot.runId);
  const run = await readArtifactIfPresent(deps.store, keys.run, RunRecord).catch(() => undefined);
  if (run) return ACTIVE_RUN_STATUSES.has(run.status);
  if (await deps.store.get(keys.request)) return true;
  return deps.now - Date.parse(slot.takenAt) < ORPHAN_SLOT_MS;
}
