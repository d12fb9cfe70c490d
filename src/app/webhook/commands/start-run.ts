import { putArtifactIfAbsent, putArtifactIfMatch, readArtifactIfPresent, readArtifactVersioned, writeArtifact } from '../../../core/artifacts/artifact-io.js';
import { intakeKey, issueLatestKey, runKeys } from '../../../core/artifacts/keys.js';
import { agentBranchName } from '../../../core/git/branch-name.js';
import { meetsPermission, type AgentPolicy } from '../../../core/policy/agent-policy.js';
import { acquireIssueLock } from '../../../core/runs/issue-lock.js';
import { spendCaps } from '../../../core/policy/spend-caps.js';
import { RunRequest } from '../../../core/runs/run-request.js';
import { enqueueRun } from '../../../core/runs/run-queue.js';
import { admitRuns } from '../../queue/run-admission.js';
import { IntakeRecord, IssueLatest } from '../../../core/runs/run-state.js';
import { createCommentOnce, findMarkedComment } from '../../github/create-once.js';
import { progressMarker, renderProgressComment } from '../../github/progress-comment.js';
import { repositoryRole } from '../permissions.js';
import { TEXTS } from '../texts.js';
import type { TriggerOutcome } from '../trigger-outcome.js';
import { runIdFor } from '../trigger-identity.js';
import type { IssuesLabeledPayload } from '../webhook-payloads.js';
import { DEFAULT_LOCK_TTL_MS, type WebhookSession } from '../webhook-session.js';

export interface RunTrigger {
  issue: IssuesLabeledPayload['issue'];
  sender: string;
  trigger: RunRequest['trigger'];
  comment?: { id: number; body: string };
  forcedMode?: 'analysis' | 'draft_pr';
  /** The campaign that starts this run, recorded in its request. */
  campaign?: RunRequest['campaign'];
  /** The task's words come from the trusted policy on the default branch (a schedule), not from the issue's author. */
  wordsFromPolicy?: boolean;
}

/**
 * Start attempt 1 of the run a trigger names, as one idempotent step (docs/architecture.md,
 * "The intake"): the mode must be allowed and the issue open now; then the intake record
 * (written once, it starts nothing), the issue's lock, the progress comment (found again by its
 * marker on a retry, never posted twice), and the run's place in its repository's queue (the
 * whole request, written once); then the issue pointer, and the record is deleted. An admission
 * pass then starts the run at once (its `request.json` starts the worker) when the limits and
 * the workers allow, or shows its place in line ("The run queue"). A retry of a try that failed
 * partway completes what is missing. Permission is the caller's check. A trigger whose run
 * already exists (even one that finished, or one cancelled while it waited) changes nothing.
 */
export async function startRun(session: WebhookSession, policy: AgentPolicy, trigger: RunTrigger): Promise<TriggerOutcome> {
  const { store, clock } = session.deps;
  const issueNumber = trigger.issue.number;
  if (
    !policy.agent.allowedModes.includes(trigger.forcedMode ?? 'draft_pr') &&
    !(trigger.forcedMode === undefined && policy.agent.allowedModes.includes('analysis'))
  ) {
    await session.reply(issueNumber, TEXTS.modeNotAllowed(policy.agent.allowedModes));
    return { kind: 'replied', why: 'mode not allowed' };
  }
  const runId = runIdFor(session.repositoryId, issueNumber, trigger.trigger.key);
  const keys = runKeys(session.owner, session.repo, runId);
  // A run that started, or one cancelled while it waited in line (it has no request.json): a
  // redelivery changes nothing. A trigger whose run waits goes on: each step below finds its own.
  if ((await store.get(keys.request)) || (await store.get(keys.cancel))) return { kind: 'duplicate', runId };
  // GitHub's truth now, not the delivery's: a label delivered after the issue was closed starts nothing.
  if (!(await issueIsOpen(session, issueNumber))) {
    session.deps.logger.info('trigger on a closed issue ignored', { owner: session.owner, repo: session.repo, issue: issueNumber, runId });
    return { kind: 'ignored', why: 'the issue is closed' };
  }
  const held = await holdIssue(session, await openIntake(session, trigger, runId, clock.now()));
  if ('kind' in held) return held;
  const commentId = await progressComment(session, held);
  return queueRequest(session, policy, trigger, held, commentId);
}

/** The issue's state on GitHub now. */
async function issueIsOpen(session: WebhookSession, issue: number): Promise<boolean> {
  const api = await session.api();
  const { data } = await api.rest.issues.get({ owner: session.owner, repo: session.repo, issue_number: issue });
  return data.state === 'open';
}

interface OpenIntake {
  key: string;
  record: IntakeRecord;
  etag: string;
}

/** The trigger's intake record: written now, or the one an earlier try of the same trigger wrote. */
async function openIntake(session: WebhookSession, trigger: RunTrigger, runId: string, now: number): Promise<OpenIntake> {
  const { store } = session.deps;
  const key = intakeKey(session.owner, session.repo, trigger.issue.number, runId);
  const fresh: IntakeRecord = {
    schemaVersion: 1,
    runId,
    issue: trigger.issue.number,
    installationId: session.installationId,
    repositoryId: session.repositoryId,
    trigger: trigger.trigger.key,
    sender: trigger.sender,
    createdAt: new Date(now).toISOString(),
  };
  await putArtifactIfAbsent(store, key, IntakeRecord, fresh);
  return readIntake(store, key);
}

async function readIntake(store: WebhookSession['deps']['store'], key: string): Promise<OpenIntake> {
  const stored = await readArtifactVersioned(store, key, IntakeRecord);
  if (!stored) throw new Error(`the intake record ${key} vanished while it was taken`);
  return { key, record: stored.value, etag: stored.etag };
}

/**
 * The issue's lock; a trigger on an issue with another live run is answered and its intake
 * record deleted. The lock an earlier try of this trigger took is this trigger's: the comment
 * that try may have posted stays the run's. The limits are not checked here: a run at them
 * waits in the queue.
 */
async function holdIssue(session: WebhookSession, intake: OpenIntake): Promise<TriggerOutcome | OpenIntake> {
  const { store, clock } = session.deps;
  const { runId, issue: issueNumber } = intake.record;
  const issue = { ...session.ref, issue: issueNumber };
  const now = clock.now();
  const lock = await acquireIssueLock(store, issue, { runId, attempt: 1 }, now, session.deps.lockTtlMs ?? DEFAULT_LOCK_TTL_MS);
  if (lock === 'held') {
    await session.reply(issueNumber, TEXTS.runActive);
    await store.delete(intake.key);
    return { kind: 'replied', why: 'a run is active' };
  }
  return intake;
}

/**
 * The run's progress comment: the one the intake record names, or the App's own comment that
 * carries the run's marker (an earlier try posted it and failed before recording it), or a new
 * one, recorded in the intake record at once.
 */
async function progressComment(session: WebhookSession, intake: OpenIntake): Promise<number> {
  const { runId, issue } = intake.record;
  if (intake.record.progressCommentId !== undefined) return intake.record.progressCommentId;
  const api = await session.api();
  const marker = progressMarker(runId);
  const where = { ...session.ref, issue, marker, botLogin: session.deps.botLogin };
  // An earlier try posted it and failed before recording it; or post it now, once even when the answer is lost.
  const found = await findMarkedComment(api, where);
  const id =
    found?.id ??
    (
      await createCommentOnce(api, {
        ...where,
        body: renderProgressComment({ runId, attempt: 1, status: 'QUEUED', phases: [], message: 'waiting for a worker' }),
      })
    ).id;
  // Compare-and-swap: a concurrent try of the same trigger that recorded its comment first wins;
  // this try's own comment, when it posted one, goes, and the recorded one is the run's.
  const { store } = session.deps;
  if (await putArtifactIfMatch(store, intake.key, IntakeRecord, { ...intake.record, progressCommentId: id }, intake.etag)) return id;
  const recorded = (await readArtifactIfPresent(store, intake.key, IntakeRecord))?.progressCommentId;
  if (recorded === undefined || recorded === id) return id;
  if (found === undefined) await deleteOwnComment(session, id);
  return recorded;
}

/** A comment this try posted that another try's comment replaced; one that is gone already is fine. */
async function deleteOwnComment(session: WebhookSession, commentId: number): Promise<void> {
  const api = await session.api();
  await api.rest.issues.deleteComment({ owner: session.owner, repo: session.repo, comment_id: commentId }).catch((error: unknown) => {
    if ((error as { status?: number }).status !== 404) throw error;
  });
}

/**
 * The run's entry in the queue (written once, with the whole request), the issue pointer; then
 * the intake record goes and an admission pass of the repository starts the run when it may.
 */
async function queueRequest(session: WebhookSession, policy: AgentPolicy, trigger: RunTrigger, intake: OpenIntake, commentId: number): Promise<TriggerOutcome> {
  const { store, clock, logger } = session.deps;
  const { runId, issue: issueNumber } = intake.record;
  const keys = runKeys(session.owner, session.repo, runId);
  const now = clock.now();
  const request: RunRequest = {
    schemaVersion: 1,
    runId,
    owner: session.owner,
    repo: session.repo,
    source: {
      kind: 'github',
      repositoryId: session.repositoryId,
      installationId: session.installationId,
      cloneUrl: session.cloneUrl,
      apiUrl: session.deps.apiUrl,
    },
    trigger: { ...trigger.trigger, sender: trigger.sender },
    issue: {
      number: issueNumber,
      title: trigger.issue.title,
      body: trigger.issue.body ?? '',
      updatedAt: trigger.issue.updated_at,
      url: trigger.issue.html_url,
      progressCommentId: commentId,
      ...(await issueAuthor(session, trigger)),
    },
    comment: trigger.comment,
    spendCaps: spendCaps(policy),
    campaign: trigger.campaign,
    forcedMode: trigger.forcedMode,
    agentBranch: agentBranchName({ issue: issueNumber, runId }),
    createdAt: intake.record.createdAt,
  };
  if (await store.get(keys.request)) return { kind: 'duplicate', runId };
  await enqueueRun(store, request, policy.limits, now);
  await writeArtifact(store, issueLatestKey(session.owner, session.repo, issueNumber), IssueLatest, {
    schemaVersion: 1,
    runId,
    attempt: 1,
    progressCommentId: commentId,
    updatedAt: new Date(now).toISOString(),
  });
  await store.delete(intake.key);
  logger.info('run queued', { owner: session.owner, repo: session.repo, issue: issueNumber, runId, trigger: trigger.trigger.kind });
  const passed = await admitRuns(session.deps, { ...session.ref, api: () => session.api() });
  if (passed.admitted.includes(runId) || (await store.get(keys.request))) return { kind: 'started', runId, attempt: 1 };
  const place = passed.waiting.find((w) => w.runId === runId)?.place ?? 0;
  return { kind: 'queued', runId, place };
}

/**
 * Who wrote the issue and whether they can write to the repository now: steps read from their
 * words wait for a maintainer's approval when they cannot (the publisher decides it from this record).
 */
async function issueAuthor(session: WebhookSession, trigger: RunTrigger): Promise<{ author?: string; authorCanWrite?: boolean }> {
  if (trigger.wordsFromPolicy) return { author: trigger.sender, authorCanWrite: true };
  const author = trigger.issue.user?.login;
  // A deleted account (GitHub sends no user): nobody vouches for the words.
  if (!author) return { authorCanWrite: false };
  return { author, authorCanWrite: meetsPermission(await repositoryRole(session, author), 'write') };
}
