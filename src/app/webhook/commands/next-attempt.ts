import { putArtifactIfAbsent, readArtifactIfPresent, writeArtifact } from '../../../core/artifacts/artifact-io.js';
import { issueLatestKey } from '../../../core/artifacts/keys.js';
import { acquireIssueLock } from '../../../core/runs/issue-lock.js';
import { AttemptRequest, RunRecord } from '../../../core/runs/run-request.js';
import { ApprovalMarker, IssueLatest } from '../../../core/runs/run-state.js';
import { renderProgressComment } from '../../github/progress-comment.js';
import { TEXTS } from '../texts.js';
import { readLatestRun } from './latest-run.js';
import type { TriggerOutcome } from '../trigger-outcome.js';
import { DEFAULT_LOCK_TTL_MS, type WebhookSession } from '../webhook-session.js';

/** Statuses a run can be retried from. */
const RETRYABLE = new Set(['FAILED', 'BLOCKED', 'BUDGET_EXCEEDED', 'CANCELLED', 'NEEDS_APPROVAL']);

/**
 * `/agent approve` and `/agent retry` do not make a new run: they start attempt n+1 of the
 * issue's latest run (approve also passes the gate the run waits on). The lock is taken for the
 * new attempt; `attempts/<n+1>/request.json` is written once, so a redelivery is a duplicate.
 */
export async function startNextAttempt(session: WebhookSession, issueNumber: number, sender: string, command: 'approve' | 'retry'): Promise<TriggerOutcome> {
  const { store, clock } = session.deps;
  const found = await readLatestRun(session, issueNumber);
  if (!found) {
    await session.reply(issueNumber, TEXTS.noRunTo(command));
    return { kind: 'replied', why: 'no run' };
  }
  const { latest, keys, progressCommentId } = found;
  const run = await readArtifactIfPresent(store, keys.run, RunRecord);
  const status = run?.status ?? 'QUEUED';
  if (command === 'approve' && (status !== 'NEEDS_APPROVAL' || !run?.pendingGate)) {
    await session.reply(issueNumber, TEXTS.nothingToApprove(status));
    return { kind: 'replied', why: 'nothing to approve' };
  }
  if (command === 'retry' && !RETRYABLE.has(status)) {
    await session.reply(issueNumber, TEXTS.notRetryable(status));
    return { kind: 'replied', why: 'not retryable' };
  }
  const now = clock.now();
  const attempt = Math.max(latest.attempt, run?.attempt ?? 1) + 1;
  const lock = await acquireIssueLock(store, { ...session.ref, issue: issueNumber }, { runId: latest.runId, attempt }, now, session.deps.lockTtlMs ?? DEFAULT_LOCK_TTL_MS);
  if (lock === 'held') {
    await session.reply(issueNumber, TEXTS.attemptActive);
    return { kind: 'replied', why: 'a run is active' };
  }
  if (lock === 'same-run') return { kind: 'duplicate', runId: latest.runId };
  const approvedGates = command === 'approve' && run?.pendingGate ? [run.pendingGate] : [];
  const at = new Date(now).toISOString();
  if (command === 'approve') {
    await putArtifactIfAbsent(store, keys.approve(attempt), ApprovalMarker, { schemaVersion: 1, runId: latest.runId, attempt, by: sender, gateId: approvedGates[0] ?? '', at });
  }
  // A retry of a revision or repair is one too: it builds on the agent branch head (a human's
  // commit included) and adds a commit on top, never a branch rebuilt on the base.
  const previous = await readArtifactIfPresent(store, keys.attempt(attempt - 1).request, AttemptRequest).catch(() => undefined);
  const created = await putArtifactIfAbsent(store, keys.attempt(attempt).request, AttemptRequest, {
    schemaVersion: 1,
    runId: latest.runId,
    attempt,
    reason: command,
    sender,
    approvedGates,
    followUp: attempt - 1 >= 2 ? previous?.followUp : undefined,
    createdAt: at,
  });
  if (!created) return { kind: 'duplicate', runId: latest.runId };
  await writeArtifact(store, issueLatestKey(session.owner, session.repo, issueNumber), IssueLatest, { ...latest, progressCommentId, attempt, updatedAt: at });
  await session.editComment(progressCommentId, renderProgressComment({ runId: latest.runId, attempt, status: 'QUEUED', phases: [], message: `${command} by @${sender}; waiting for a worker` }));
  return { kind: 'started', runId: latest.runId, attempt };
}
