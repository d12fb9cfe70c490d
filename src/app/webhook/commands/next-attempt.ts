import { putArtifactIfAbsent, readArtifactIfPresent, writeArtifact } from '../../../core/artifacts/artifact-io.js';
import { issueLatestKey, lockKey } from '../../../core/artifacts/keys.js';
import { acquireIssueLock } from '../../../core/runs/issue-lock.js';
import { AttemptRequest, RunRecord } from '../../../core/runs/run-request.js';
import { latestAttempt } from '../../../core/runs/attempts.js';
import type { ApprovedPlan } from '../../../core/runs/plan-gate.js';
import { ApprovalMarker, GateRecord, IssueLatest, IssueLock } from '../../../core/runs/run-state.js';
import { renderProgressComment } from '../../github/progress-comment.js';
import { TEXTS } from '../texts.js';
import { readLatestRun, writtenBefore, type LatestRun } from './latest-run.js';
import type { TriggerOutcome } from '../trigger-outcome.js';
import { DEFAULT_LOCK_TTL_MS, type WebhookSession } from '../webhook-session.js';

/** Statuses a run can be retried from. */
const RETRYABLE = new Set(['FAILED', 'BLOCKED', 'BUDGET_EXCEEDED', 'CANCELLED', 'NEEDS_APPROVAL']);

/**
 * `/agent approve` and `/agent retry` do not make a new run: they start attempt n+1 of the
 * issue's latest run (approve also passes the gate the run waits on). The lock is taken for the
 * new attempt; `attempts/<n+1>/request.json` is written once, so a redelivery is a duplicate.
 */
export async function startNextAttempt(
  session: WebhookSession,
  issueNumber: number,
  sender: string,
  command: 'approve' | 'retry',
  commentAt?: string,
): Promise<TriggerOutcome> {
  const { store } = session.deps;
  const found = await readLatestRun(session, issueNumber);
  if (!found) {
    await session.reply(issueNumber, TEXTS.noRunTo(command));
    return { kind: 'replied', why: 'no run' };
  }
  const run = await readArtifactIfPresent(store, found.keys.run, RunRecord);
  const status = run?.status ?? 'QUEUED';
  let approvedGates: string[] = [];
  let approvedPlan: ApprovedPlan | undefined;
  if (command === 'approve') {
    const gate = await pendingGate(session, found);
    if (!gate) {
      await session.reply(issueNumber, TEXTS.nothingToApprove(status));
      return { kind: 'replied', why: 'nothing to approve' };
    }
    if (commentAt !== undefined && writtenBefore(commentAt, gate.at)) {
      await session.reply(issueNumber, TEXTS.approvalPredatesGate(gate.gateId));
      return { kind: 'replied', why: 'the comment predates the gate' };
    }
    approvedGates = [gate.gateId];
    if (gate.plan) approvedPlan = { digest: gate.plan.digest, files: gate.plan.files };
  }
  if (command === 'retry' && !RETRYABLE.has(status)) {
    await session.reply(issueNumber, TEXTS.notRetryable(status));
    return { kind: 'replied', why: 'not retryable' };
  }
  return queueNextAttempt(
    session,
    found,
    issueNumber,
    { reason: command, sender, approvedGates, ...(approvedPlan ? { approvedPlan } : {}), message: `${command} by @${sender}; waiting for a worker` },
    run,
  );
}

/**
 * The gate the run's latest requested attempt stopped at, as the publisher recorded it from the
 * trusted policy (`control/gate-<n>.json`): never `run.json`'s word, which the worker writes.
 */
async function pendingGate(session: WebhookSession, found: LatestRun): Promise<GateRecord | undefined> {
  const { store } = session.deps;
  const attempt = await latestAttempt(store, found.keys);
  if (attempt < 1) return undefined;
  const gate = await readArtifactIfPresent(store, found.keys.gate(attempt), GateRecord);
  return gate && gate.runId === found.latest.runId && gate.attempt === attempt ? gate : undefined;
}

export interface NextAttempt {
  reason: AttemptRequest['reason'];
  sender?: string;
  approvedGates: string[];
  /** A plan gate passed: the plan's digest and files, copied from the publisher's gate record. */
  approvedPlan?: ApprovedPlan;
  /** The progress comment's line while the attempt waits for a worker. */
  message: string;
}

/**
 * Attempt n+1 of a stopped run under the issue lock: `attempts/<n+1>/request.json` is written once
 * (a redelivery is a duplicate), then the issue pointer and the progress comment. A gate passed by
 * `/agent approve` is recorded in `control/approve-<n+1>.json` first, where only the webhook writes.
 */
export async function queueNextAttempt(
  session: WebhookSession,
  found: LatestRun,
  issueNumber: number,
  next: NextAttempt,
  run?: RunRecord,
): Promise<TriggerOutcome> {
  const { store, clock } = session.deps;
  const { latest, keys, progressCommentId } = found;
  const now = clock.now();
  // run.json speaks for the last attempt a worker started; one asked for and not started yet
  // shows only as this run's lock, which acquiring for n+1 would otherwise take over.
  const held = await readArtifactIfPresent(store, lockKey(session.owner, session.repo, issueNumber), IssueLock);
  if (held?.runId === latest.runId && Date.parse(held.expiresAt) > now) {
    await session.reply(issueNumber, TEXTS.attemptActive);
    return { kind: 'replied', why: 'a run is active' };
  }
  const attempt = Math.max(latest.attempt, run?.attempt ?? 1) + 1;
  const lock = await acquireIssueLock(
    store,
    { ...session.ref, issue: issueNumber },
    { runId: latest.runId, attempt },
    now,
    session.deps.lockTtlMs ?? DEFAULT_LOCK_TTL_MS,
  );
  if (lock === 'held') {
    await session.reply(issueNumber, TEXTS.attemptActive);
    return { kind: 'replied', why: 'a run is active' };
  }
  if (lock === 'same-run') return { kind: 'duplicate', runId: latest.runId };
  const at = new Date(now).toISOString();
  // A retry of a revision or repair is one too: it builds on the agent branch head (a human's
  // commit included) and adds a commit on top, never a branch rebuilt on the base.
  const previous = await readArtifactIfPresent(store, keys.attempt(attempt - 1).request, AttemptRequest).catch(() => undefined);
  const approvedPlan = await recordApproval(session, found, attempt, next, previous, at);
  const created = await putArtifactIfAbsent(store, keys.attempt(attempt).request, AttemptRequest, {
    schemaVersion: 1,
    runId: latest.runId,
    attempt,
    reason: next.reason,
    sender: next.sender,
    approvedGates: next.approvedGates,
    ...(approvedPlan ? { approvedPlan } : {}),
    followUp: (next.reason === 'retry' || next.reason === 'approve') && attempt - 1 >= 2 ? previous?.followUp : undefined,
    createdAt: at,
  });
  if (!created) return { kind: 'duplicate', runId: latest.runId };
  await writeArtifact(store, issueLatestKey(session.owner, session.repo, issueNumber), IssueLatest, { ...latest, progressCommentId, attempt, updatedAt: at });
  await session.editComment(progressCommentId, renderProgressComment({ runId: latest.runId, attempt, status: 'QUEUED', phases: [], message: next.message }));
  return { kind: 'started', runId: latest.runId, attempt };
}

/**
 * `control/approve-<n>.json` for an approval, written before the attempt's request; the plan the
 * attempt is held to. An approval keeps the run held to the plan approved before (a gate for a
 * file outside it included); any other next attempt plans anew and stops at the plan gate again.
 */
async function recordApproval(
  session: WebhookSession,
  found: LatestRun,
  attempt: number,
  next: NextAttempt,
  previous: AttemptRequest | undefined,
  at: string,
): Promise<ApprovedPlan | undefined> {
  if (next.reason !== 'approve') return undefined;
  const approvedPlan = next.approvedPlan ?? previous?.approvedPlan;
  await putArtifactIfAbsent(session.deps.store, found.keys.approve(attempt), ApprovalMarker, {
    schemaVersion: 1,
    runId: found.latest.runId,
    attempt,
    by: next.sender ?? '',
    gateId: next.approvedGates[0] ?? '',
    ...(approvedPlan ? { plan: approvedPlan } : {}),
    at,
  });
  return approvedPlan;
}
