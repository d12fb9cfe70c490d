import { z } from 'zod';
import { putArtifactIfAbsent, putArtifactIfMatch, readArtifactIfPresent, readArtifactVersioned } from '../artifacts/artifact-io.js';
import { parseQueueEntryKey, queueClaimKey, queueCounterKey, queueEntryKey, queuePrefix, QUEUE_WAITING_PREFIX } from '../artifacts/queue-keys.js';
import type { ArtifactStore } from '../ports.js';
import { RunRequest } from './run-request.js';

/** What a waiting run waits for: a start slot of the hour, an open pull request to close, a free worker, or the runs ahead of it. */
export const WAIT_REASONS = ['RUNS_PER_HOUR', 'OPEN_PULL_REQUESTS', 'WORKER_CONCURRENCY'] as const;
export type WaitReason = (typeof WAIT_REASONS)[number];

/** The repository's limits the run was queued under (its trusted policy's `limits` when it was queued). */
export const QueueLimits = z.object({ runsPerHour: z.number().int().positive(), maxOpenPullRequests: z.number().int().positive() }).strict();
export type QueueLimits = z.infer<typeof QueueLimits>;

/**
 * `queue/waiting/<owner>/<repo>/<enqueuedAt>-<runId>.json`: a run that waits for a start slot
 * (docs/architecture.md, "The run queue"). It holds the whole `request.json` the admission
 * writes, so nothing the trigger decided is decided again; written once by the intake, deleted
 * when the run is admitted or cancelled.
 */
export const QueueEntry = z
  .object({
    schemaVersion: z.literal(1),
    runId: z.string(),
    issue: z.number().int().positive(),
    enqueuedAt: z.string(),
    limits: QueueLimits,
    request: RunRequest,
    /** The place and reason the progress comment shows now (written by the admission pass). */
    shown: z
      .object({ place: z.number().int().positive(), reason: z.enum(WAIT_REASONS).optional() })
      .strict()
      .optional(),
    /** When the admission pass last renewed the run's issue lock (the intake took it when it queued the run). */
    lockRenewedAt: z.string().optional(),
  })
  .strict();
export type QueueEntry = z.infer<typeof QueueEntry>;

/** A waiting run with its key and its place in its repository's line (1 = next). */
export interface WaitingRun {
  key: string;
  etag: string;
  place: number;
  entry: QueueEntry;
}

/** `queue/counters/<owner>/<repo>.json`: the last number given in the repository's line. */
export const QueueCounter = z.object({ schemaVersion: z.literal(1), last: z.number().int().nonnegative() }).strict();

/**
 * `queue/claims/<owner>/<repo>/<runId>.json`: the number a run was given in its line, written
 * once. Deliveries of one trigger processed at once all carry the same run: the first to claim
 * decides its number, the others write the same entry (once), so a run is never twice in line.
 */
export const QueueClaim = z.object({ schemaVersion: z.literal(1), n: z.number().int().positive() }).strict();

/**
 * Put a run at the end of its repository's line: the next number of the line's counter (taken
 * by compare-and-swap, so two runs never share one and the line's order is the order they were
 * taken in, whatever the clocks say), claimed for the run once, then the entry, written once. A
 * run already in line, or claimed by a concurrent delivery of its trigger, keeps its place.
 * Returns the entry's key.
 */
export async function enqueueRun(store: ArtifactStore, request: RunRequest, limits: QueueLimits, enqueuedAt: number): Promise<string> {
  const issue = request.issue?.number;
  if (issue === undefined) throw new Error(`run ${request.runId} has no issue: only issue runs wait in the queue`);
  const already = await findWaiting(store, request.owner, request.repo, request.runId);
  if (already) return already.key;
  const n = await claimQueueNumber(store, request.owner, request.repo, request.runId);
  const key = queueEntryKey(request.owner, request.repo, n, request.runId);
  await putArtifactIfAbsent(store, key, QueueEntry, {
    schemaVersion: 1,
    runId: request.runId,
    issue,
    enqueuedAt: new Date(enqueuedAt).toISOString(),
    limits,
    request,
  });
  return key;
}

async function claimQueueNumber(store: ArtifactStore, owner: string, repo: string, runId: string): Promise<number> {
  const key = queueClaimKey(owner, repo, runId);
  const claimed = await readArtifactIfPresent(store, key, QueueClaim);
  if (claimed) return claimed.n;
  const n = await takeQueueNumber(store, owner, repo);
  if (await putArtifactIfAbsent(store, key, QueueClaim, { schemaVersion: 1, n })) return n;
  // A concurrent delivery of the same trigger claimed first: its number (this one stays unused).
  const winner = await readArtifactIfPresent(store, key, QueueClaim);
  if (!winner) throw new Error(`the queue claim of run ${runId} vanished`);
  return winner.n;
}

/**
 * Compare-and-swap tries on a repository's queue counter. Each round one writer wins, so a burst
 * of triggers on one repository (forty issues labelled and commented on at once, a hundred
 * deliveries) takes as many rounds: the losers wait a moment that grows with their tries (at most
 * 50 ms) before reading the counter again. A caller that still loses throws, and its delivery is
 * retried as any failed intake.
 */
const COUNTER_TRIES = 200;
const pauseAfter = (tries: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, Math.min(50, 5 * 2 ** tries)));

async function takeQueueNumber(store: ArtifactStore, owner: string, repo: string): Promise<number> {
  const key = queueCounterKey(owner, repo);
  for (let tries = 0; tries < COUNTER_TRIES; tries++) {
    if (tries > 0) await pauseAfter(tries);
    const current = await readArtifactVersioned(store, key, QueueCounter);
    if (!current) {
      if (await putArtifactIfAbsent(store, key, QueueCounter, { schemaVersion: 1, last: 1 })) return 1;
      continue;
    }
    const next = current.value.last + 1;
    if (await putArtifactIfMatch(store, key, QueueCounter, { schemaVersion: 1, last: next }, current.etag)) return next;
  }
  throw new Error(`the queue counter of ${owner}/${repo} stayed contended`);
}

/** One repository's waiting runs in line order (entries that vanished while listed are skipped). */
export async function waitingRuns(store: ArtifactStore, owner: string, repo: string): Promise<WaitingRun[]> {
  const keys = (await store.list(queuePrefix(owner, repo))).filter((key) => parseQueueEntryKey(key));
  // Read side by side: a pass reads the whole line on every wake-up.
  const reads = await Promise.all(keys.map((key) => readArtifactVersioned(store, key, QueueEntry)));
  const out: WaitingRun[] = [];
  reads.forEach((read, i) => {
    if (read) out.push({ key: keys[i], etag: read.etag, place: out.length + 1, entry: read.value });
  });
  return out;
}

/** Every repository with a waiting run (sorted by name; the admission pass orders them by how long their first run waits). */
export async function repositoriesWaiting(store: ArtifactStore): Promise<{ owner: string; repo: string }[]> {
  const seen = new Map<string, { owner: string; repo: string }>();
  for (const key of await store.list(QUEUE_WAITING_PREFIX)) {
    const parsed = parseQueueEntryKey(key);
    if (parsed) seen.set(`${parsed.owner}/${parsed.repo}`, { owner: parsed.owner, repo: parsed.repo });
  }
  return [...seen.keys()].sort().map((id) => seen.get(id)!);
}

/** The waiting run `runId` of the repository, or undefined when it is not in line (admitted, cancelled, never queued). */
export async function findWaiting(store: ArtifactStore, owner: string, repo: string, runId: string): Promise<WaitingRun | undefined> {
  const keys = await store.list(queuePrefix(owner, repo));
  const index = keys.findIndex((k) => parseQueueEntryKey(k)?.runId === runId);
  if (index < 0) return undefined;
  const read = await readArtifactVersioned(store, keys[index], QueueEntry);
  return read ? { key: keys[index], etag: read.etag, place: index + 1, entry: read.value } : undefined;
}

/** Take `runId` out of its repository's line; the entry it was, or undefined when it was not waiting. */
export async function removeWaiting(store: ArtifactStore, owner: string, repo: string, runId: string): Promise<QueueEntry | undefined> {
  const found = await findWaiting(store, owner, repo, runId);
  if (!found) return undefined;
  await store.delete(found.key);
  return found.entry;
}

/** `1st`, `2nd`, `3rd`, `4th`, ..., `11th`, `12th`, `13th`, `21st`. */
export function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

/** The progress comment's line for a waiting run: its place and what it waits for. */
export function waitingMessage(place: number, reason: WaitReason | undefined, limits: QueueLimits): string {
  const when =
    reason === 'RUNS_PER_HOUR'
      ? `starts when the hour's ${limits.runsPerHour} runs (\`limits.runsPerHour\`) allow`
      : reason === 'OPEN_PULL_REQUESTS'
        ? `starts when one of draftsman's ${limits.maxOpenPullRequests} open pull requests (\`limits.maxOpenPullRequests\`) is merged or closed`
        : 'starts when a run finishes';
  return `waiting: ${ordinal(place)} in line, ${when}`;
}
