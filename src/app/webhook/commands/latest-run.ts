import { readArtifactIfPresent } from '../../../core/artifacts/artifact-io.js';
import { issueLatestKey, runKeys, type RunKeys } from '../../../core/artifacts/keys.js';
import { RunRequest } from '../../../core/runs/run-request.js';
import { findWaiting, type WaitingRun } from '../../../core/runs/run-queue.js';
import { IssueLatest } from '../../../core/runs/run-state.js';
import type { WebhookSession } from '../webhook-session.js';

export interface LatestRun {
  latest: IssueLatest;
  keys: RunKeys;
  /** The run's request, written by the webhook only. */
  request: RunRequest;
  /** The progress comment the webhook created for this run. */
  progressCommentId: number | undefined;
  /** The run's entry in the queue while it waits there (its request is the entry's). */
  waiting?: WaitingRun;
}

/**
 * The issue's latest run, as far as the webhook can trust it. `latest.json` is also written by
 * the worker, so the run it names counts only when the webhook's own `request.json` of that run
 * is for this issue; the progress comment comes from that request, never from the pointer. A
 * run waiting in the queue has no `request.json` yet: its entry (the intake's too) holds it.
 */
export async function readLatestRun(session: WebhookSession, issueNumber: number): Promise<LatestRun | undefined> {
  const { store, logger } = session.deps;
  const latest = await readArtifactIfPresent(store, issueLatestKey(session.owner, session.repo, issueNumber), IssueLatest).catch(() => undefined);
  if (!latest) return undefined;
  const keys = runKeys(session.owner, session.repo, latest.runId);
  const waiting = await findWaiting(store, session.owner, session.repo, latest.runId).catch(() => undefined);
  const request = waiting?.entry.request ?? (await readArtifactIfPresent(store, keys.request, RunRequest).catch(() => undefined));
  if (!request || request.issue?.number !== issueNumber) {
    logger.warn("latest.json names a run that is not this issue's; ignored", { issue: issueNumber, runId: latest.runId });
    return undefined;
  }
  return { latest, keys, request, progressCommentId: request.issue.progressCommentId, waiting };
}

/**
 * Whether a comment written at `commentAt` (GitHub's `created_at`, whole seconds) was written
 * before `instant` (an ISO time of ours, with milliseconds): one written in the same second is not.
 */
export function writtenBefore(commentAt: string, instant: string): boolean {
  return Date.parse(commentAt) < Math.floor(Date.parse(instant) / 1000) * 1000;
}
