import { readArtifactIfPresent, readArtifactVersioned } from '../../core/artifacts/artifact-io.js';
import { INTAKES_PREFIX, lockKey, runKeys } from '../../core/artifacts/keys.js';
import { releaseIssueLock } from '../../core/runs/issue-lock.js';
import { findWaiting } from '../../core/runs/run-queue.js';
import { parseIntakeKey } from '../../core/runs/run-key.js';
import { IntakeRecord, IssueLock } from '../../core/runs/run-state.js';
import { createCommentOnce, findMarkedComment } from '../github/create-once.js';
import { progressMarker, renderProgressComment } from '../github/progress-comment.js';
import { withRepositoryApi } from './repository-api.js';
import type { SweepDeps } from './sweep.js';

/**
 * How long an intake record may stand before the sweeper ends it: the intake's own tries
 * (Lambda's two retries, each within the function's one-minute timeout, backing off up to a few
 * minutes) are over by then.
 */
export const INTAKE_GRACE_MS = 15 * 60 * 1000;

/** A trigger the intake began and no try finished, ended by the sweeper. */
export interface EndedIntake {
  owner: string;
  repo: string;
  issue: number;
  runId: string;
  /** The progress comment now says the run could not start (edited or posted). */
  commentUpdated: boolean;
  lockReleased: boolean;
}

/**
 * Every intake record older than INTAKE_GRACE_MS (docs/operations.md, "Dead letters"): when its
 * request was written after all, the record is only removed; otherwise the trigger is ended: the
 * progress comment (the record's, or the App's comment carrying the run's marker, or a new one)
 * says the run could not start and how to start it again, the lock the trigger took is released,
 * and the record is deleted, last, so a sweep that fails partway is finished by the next.
 */
export async function sweepIntakes(deps: SweepDeps, now: number, problems: { key: string; message: string }[]): Promise<EndedIntake[]> {
  const ended: EndedIntake[] = [];
  for (const key of await deps.store.list(INTAKES_PREFIX)) {
    const ref = parseIntakeKey(key);
    if (!ref) continue;
    try {
      const result = await sweepIntake(deps, key, ref, now);
      if (result) ended.push(result);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      problems.push({ key, message });
      deps.logger.error('sweep of an intake record failed', { key, error: message });
    }
  }
  return ended;
}

async function sweepIntake(
  deps: SweepDeps,
  key: string,
  ref: { owner: string; repo: string; issue: number; runId: string },
  now: number,
): Promise<EndedIntake | undefined> {
  const { store } = deps;
  const record = await readArtifactIfPresent(store, key, IntakeRecord);
  if (!record || record.runId !== ref.runId || record.issue !== ref.issue) {
    deps.logger.warn('intake record that does not match its key removed', { key });
    await store.delete(key);
    return undefined;
  }
  if (now - Date.parse(record.createdAt) < INTAKE_GRACE_MS) return undefined;
  if ((await store.get(runKeys(ref.owner, ref.repo, ref.runId).request)) || (await findWaiting(store, ref.owner, ref.repo, ref.runId))) {
    // The request was written, or the run waits in the queue; the try that did it failed before removing the record.
    await store.delete(key);
    return undefined;
  }
  const commentUpdated = await sayCouldNotStart(deps, ref, record);
  const lockReleased = await releaseOwnLock(deps, ref);
  await store.delete(key);
  deps.logger.warn('trigger the intake never finished ended', { ...ref, commentUpdated, lockReleased });
  return { ...ref, commentUpdated, lockReleased };
}

/** Edit (or post) the run's progress comment: FAILED, could not start, how to start again. False when GitHub refused. */
async function sayCouldNotStart(deps: SweepDeps, ref: { owner: string; repo: string; issue: number; runId: string }, record: IntakeRecord): Promise<boolean> {
  const body = renderProgressComment({
    runId: ref.runId,
    attempt: 1,
    status: 'FAILED',
    phases: [],
    message:
      'the run could not start: the App failed while it took the request (see its dead letters). Apply the label again or comment `/agent run` to start a new run',
  });
  return withRepositoryApi(deps, record, ref.runId, async (api) => {
    const where = { ...ref, marker: progressMarker(ref.runId), botLogin: deps.botLogin };
    const found = record.progressCommentId ?? (await findMarkedComment(api, where))?.id;
    if (found !== undefined) await api.rest.issues.updateComment({ owner: ref.owner, repo: ref.repo, comment_id: found, body });
    else await createCommentOnce(api, { ...where, body });
  });
}

/** The issue's lock, when this trigger holds it. */
async function releaseOwnLock(deps: SweepDeps, ref: { owner: string; repo: string; issue: number; runId: string }): Promise<boolean> {
  const lock = await readArtifactVersioned(deps.store, lockKey(ref.owner, ref.repo, ref.issue), IssueLock);
  if (lock?.value.runId !== ref.runId) return false;
  return releaseIssueLock(deps.store, ref, { runId: ref.runId, attempt: lock.value.attempt, etag: lock.etag });
}
