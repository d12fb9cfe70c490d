import { putArtifactIfAbsent, readArtifactIfPresent, writeArtifact } from '../../../core/artifacts/artifact-io.js';
import { issueLatestKey, lockKey } from '../../../core/artifacts/keys.js';
import { FollowUp, FollowUpMarker } from '../../../core/runs/follow-up.js';
import { acquireIssueLock } from '../../../core/runs/issue-lock.js';
import { AttemptRequest, RunRecord } from '../../../core/runs/run-request.js';
import { IssueLatest, IssueLock } from '../../../core/runs/run-state.js';
import { ACTIVE_RUN_STATUSES } from '../../../core/runs/run-status.js';
import { renderProgressComment } from '../../github/progress-comment.js';
import type { AgentRun } from '../agent-run.js';
import { TEXTS } from '../texts.js';
import type { TriggerOutcome } from '../trigger-outcome.js';
import { DEFAULT_LOCK_TTL_MS, type WebhookSession } from '../webhook-session.js';

/**
 * Start a follow-up (a revision, or a CI repair) as attempt n+1 of the run: under the issue's
 * lock like `/agent retry`, with `attempts/<n+1>/request.json` carrying the follow-up, written
 * once, and a marker per source (`control/follow-up-<source>.json`) so a redelivered comment,
 * review or check suite starts nothing more. `replyTo` is where a refusal is said (the PR).
 * Permission and the PR's identity are the caller's checks.
 */
export async function startFollowUp(session: WebhookSession, run: AgentRun, followUp: FollowUp, replyTo: number | undefined): Promise<TriggerOutcome> {
  const { store, clock, logger } = session.deps;
  const { keys, request } = run;
  const runId = request.runId;
  if (await store.get(keys.followUp(followUp.source))) return { kind: 'duplicate', runId };
  const record = await readArtifactIfPresent(store, keys.run, RunRecord);
  if (!record?.pullRequest) {
    if (replyTo !== undefined) await session.reply(replyTo, TEXTS.nothingToRevise);
    return { kind: 'replied', why: 'nothing published to revise' };
  }
  // An attempt still queued or working: the follow-up waits for it.
  if (ACTIVE_RUN_STATUSES.has(record.status)) {
    if (replyTo !== undefined) await session.reply(replyTo, TEXTS.attemptActive);
    return { kind: 'replied', why: 'an attempt is active' };
  }
  const latest = await readArtifactIfPresent(store, issueLatestKey(session.owner, session.repo, run.issue), IssueLatest);
  const now = clock.now();
  // run.json moves only when a worker starts: a queued follow-up or retry shows in the issue's
  // lock, which every attempt holds until it ends; a live one means wait.
  const held = await readArtifactIfPresent(store, lockKey(session.owner, session.repo, run.issue), IssueLock).catch(() => undefined);
  if (held && Date.parse(held.expiresAt) > now) {
    if (replyTo !== undefined) await session.reply(replyTo, TEXTS.attemptActive);
    return { kind: 'replied', why: 'an attempt is active' };
  }
  const at = new Date(now).toISOString();
  const attempt = Math.max(latest?.runId === runId ? latest.attempt : 0, record.attempt) + 1;
  const lock = await acquireIssueLock(store, { ...session.ref, issue: run.issue }, { runId, attempt }, now, session.deps.lockTtlMs ?? DEFAULT_LOCK_TTL_MS);
  if (lock === 'same-run') return { kind: 'duplicate', runId };
  if (lock === 'held') {
    if (replyTo !== undefined) await session.reply(replyTo, TEXTS.attemptActive);
    return { kind: 'replied', why: 'a run is active' };
  }
  const created = await putArtifactIfAbsent(store, keys.attempt(attempt).request, AttemptRequest, {
    schemaVersion: 1,
    runId,
    attempt,
    reason: followUp.kind,
    sender: followUp.sender,
    approvedGates: [],
    followUp: FollowUp.parse(followUp),
    createdAt: at,
  });
  if (!created) return { kind: 'duplicate', runId };
  await putArtifactIfAbsent(store, keys.followUp(followUp.source), FollowUpMarker, { schemaVersion: 1, runId, source: followUp.source, attempt, at });
  const progressCommentId = request.issue?.progressCommentId;
  await writeArtifact(store, issueLatestKey(session.owner, session.repo, run.issue), IssueLatest, {
    schemaVersion: 1,
    runId,
    attempt,
    progressCommentId,
    updatedAt: at,
  });
  const what = followUp.kind === 'revise' ? `revision asked by @${followUp.sender}` : `CI repair of ${followUp.onto.headSha.slice(0, 12)}`;
  await session.editComment(
    progressCommentId,
    renderProgressComment({ runId, attempt, status: 'QUEUED', phases: [], message: `${what}; waiting for a worker` }),
  );
  logger.info('follow-up requested', { owner: session.owner, repo: session.repo, runId, attempt, kind: followUp.kind, source: followUp.source });
  return { kind: 'started', runId, attempt };
}
