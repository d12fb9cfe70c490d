import { putArtifactIfAbsent, writeArtifact } from '../../../core/artifacts/artifact-io.js';
import { issueLatestKey, limitKey, runKeys } from '../../../core/artifacts/keys.js';
import { agentBranchName } from '../../../core/git/branch-name.js';
import type { AgentPolicy } from '../../../core/policy/agent-policy.js';
import { acquireIssueLock, releaseIssueLock } from '../../../core/runs/issue-lock.js';
import { RunRequest } from '../../../core/runs/run-request.js';
import { IssueLatest } from '../../../core/runs/run-state.js';
import { renderProgressComment } from '../../github/progress-comment.js';
import { rateLimited } from '../limits.js';
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
}

/**
 * Start attempt 1 of the run a trigger names: the mode must be allowed, the issue's lock free,
 * the limits not reached; then the progress comment, `request.json` (written once), the
 * limits counter and the issue pointer. Permission is the caller's check. A trigger whose run
 * already exists (even one that finished) changes nothing: no lock, no comment.
 */
export async function startRun(session: WebhookSession, policy: AgentPolicy, trigger: RunTrigger): Promise<TriggerOutcome> {
  const { store, clock, logger } = session.deps;
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
  const issue = { ...session.ref, issue: issueNumber };
  const now = clock.now();

  if (await store.get(keys.request)) return { kind: 'duplicate', runId };

  // One active run per issue; a redelivery of the same trigger finds its own lock and stops.
  const lock = await acquireIssueLock(store, issue, { runId, attempt: 1 }, now, session.deps.lockTtlMs ?? DEFAULT_LOCK_TTL_MS);
  if (lock === 'same-run') return { kind: 'duplicate', runId };
  if (lock === 'held') {
    await session.reply(issueNumber, TEXTS.runActive);
    return { kind: 'replied', why: 'a run is active' };
  }

  const limited = await rateLimited(session, policy, runId, now);
  if (limited) {
    await releaseIssueLock(store, issue, { runId, attempt: 1 });
    await session.reply(issueNumber, limited);
    return { kind: 'replied', why: 'rate limited' };
  }

  const api = await session.api();
  const comment = await api.rest.issues.createComment({
    owner: session.owner,
    repo: session.repo,
    issue_number: issueNumber,
    body: renderProgressComment({ runId, attempt: 1, status: 'QUEUED', phases: [], message: 'waiting for a worker' }),
  });
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
      progressCommentId: comment.data.id,
    },
    comment: trigger.comment,
    forcedMode: trigger.forcedMode,
    agentBranch: agentBranchName({ issue: issueNumber, runId }),
    createdAt: new Date(now).toISOString(),
  };
  if (!(await putArtifactIfAbsent(store, keys.request, RunRequest, request))) {
    // A concurrent delivery of the same trigger won the race: leave no trace of this one.
    await api.rest.issues.deleteComment({ owner: session.owner, repo: session.repo, comment_id: comment.data.id });
    await releaseIssueLock(store, issue, { runId, attempt: 1 });
    return { kind: 'duplicate', runId };
  }
  await store.putIfAbsent(limitKey(session.owner, session.repo, now, runId), runId);
  await writeArtifact(store, issueLatestKey(session.owner, session.repo, issueNumber), IssueLatest, {
    schemaVersion: 1,
    runId,
    attempt: 1,
    progressCommentId: comment.data.id,
    updatedAt: new Date(now).toISOString(),
  });
  logger.info('run requested', { owner: session.owner, repo: session.repo, issue: issueNumber, runId, trigger: trigger.trigger.kind });
  return { kind: 'started', runId, attempt: 1 };
}
