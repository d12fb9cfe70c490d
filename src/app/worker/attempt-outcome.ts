import { putArtifactIfAbsent, readArtifactIfPresent, writeArtifact } from '../../core/artifacts/artifact-io.js';
import { issueLatestKey } from '../../core/artifacts/keys.js';
import { isAnalysisReport } from '../../core/phases/analysis-report.js';
import type { PipelineResult } from '../../core/pipeline/run-pipeline.js';
import { releaseIssueLock } from '../../core/runs/issue-lock.js';
import { RunRecord, type RunRequest } from '../../core/runs/run-request.js';
import { IssueLatest } from '../../core/runs/run-state.js';
import type { GitHubApi } from '../github/github-api.js';
import { postAnalysisReport } from './analysis-comment.js';
import { noteFailedRebuild, noteUnchangedFollowUp } from './follow-up-note.js';
import { MAX_CONTINUATIONS } from '../../core/runs/continuations.js';
import { Continuation } from './lease.js';
import type { OpenAttempt } from './open-attempt.js';
import { stopAttempt } from './stop-attempt.js';

/**
 * The pipeline paused between phases: write the next continuation (a new invocation picks the
 * attempt up), or fail the attempt when it has used every continuation it may.
 */
export async function suspendAttempt(run: OpenAttempt, result: PipelineResult): Promise<void> {
  const { deps, request, target, tracker } = run;
  const next = target.continuation + 1;
  const used = next - run.replays;
  if (used > MAX_CONTINUATIONS) {
    const reason = `the attempt needed more than ${MAX_CONTINUATIONS} continuations`;
    await stopAttempt(run, { status: 'FAILED', reason, message: reason });
    return;
  }
  const continuation = {
    schemaVersion: 1 as const,
    runId: request.runId,
    attempt: target.attempt,
    continuation: next,
    reason: result.reason ?? 'time',
    at: run.now(),
  };
  await putArtifactIfAbsent(deps.store, run.keys.attempt(target.attempt).continue(next), Continuation, continuation);
  await tracker.report({
    runId: request.runId,
    attempt: target.attempt,
    status: 'RUNNING',
    phases: [],
    message: `paused to continue in a new invocation (${used}/${MAX_CONTINUATIONS})`,
  });
}

/**
 * The pipeline ended the attempt (and wrote run.json): the follow-up notes and the analysis
 * report on GitHub, the lock released when no candidate will reach the publisher, the issue
 * pointer, and the progress comment's last word.
 */
export async function finishAttempt(run: OpenAttempt, result: PipelineResult): Promise<void> {
  const { deps, request, target, api, attempt, tracker } = run;
  const { store } = deps;
  const where = { owner: request.owner, repo: request.repo, runId: request.runId, attempt: target.attempt };
  await noteUnchangedFollowUp(api, where, attempt.attemptRequest?.followUp, result);
  const pullRequest = (await readArtifactIfPresent(store, run.keys.run, RunRecord))?.pullRequest?.number;
  await noteFailedRebuild(api, { ...where, pullRequest }, attempt.attemptRequest, result);
  const reportUrl = await postAnalysisOutcome(api, request, target.attempt, result);
  const candidate = result.status === 'COMPLETED' && Boolean(result.headCommitSha);
  // Without a candidate nothing else will release the lock; with one, the publisher does.
  if (!candidate && request.issue) {
    await releaseIssueLock(store, { owner: request.owner, repo: request.repo, issue: request.issue.number }, { runId: request.runId, attempt: target.attempt });
  }
  if (request.issue) {
    await writeArtifact(store, issueLatestKey(request.owner, request.repo, request.issue.number), IssueLatest, {
      schemaVersion: 1,
      runId: request.runId,
      attempt: target.attempt,
      progressCommentId: request.issue.progressCommentId,
      updatedAt: run.now(),
    });
  }
  await tracker.report({
    runId: request.runId,
    attempt: target.attempt,
    status: candidate ? 'PUBLISHING' : result.status,
    phases: [],
    baseCommitSha: result.baseCommitSha,
    message: describeOutcome(result, reportUrl),
    artifacts: Object.fromEntries(Object.entries(result.artifacts).filter(([name]) => !name.endsWith('/'))),
  });
}

/** An analysis that completed posts its report on the issue; the URL of that comment, if posted. */
async function postAnalysisOutcome(api: GitHubApi, request: RunRequest, attempt: number, result: PipelineResult): Promise<string | undefined> {
  if (result.status !== 'COMPLETED' || result.headCommitSha || !result.report || !isAnalysisReport(result.report) || !request.issue) return undefined;
  return postAnalysisReport(api, { owner: request.owner, repo: request.repo, issue: request.issue.number, runId: request.runId, attempt }, result.report);
}

function describeOutcome(result: PipelineResult, reportUrl?: string): string {
  if (result.status === 'COMPLETED' && result.headCommitSha)
    return `commit ${result.headCommitSha.slice(0, 12)} is ready; the publisher opens the draft pull request`;
  if (result.status === 'COMPLETED')
    return reportUrl ? `analysis finished: the report is posted on this issue (${reportUrl})` : 'analysis finished; nothing was changed';
  switch (result.status) {
    case 'NEEDS_APPROVAL':
      return `${result.reason}: a maintainer can \`/agent approve\` to let the next attempt pass this gate`;
    case 'BUDGET_EXCEEDED':
      return `${result.reason}: narrow the task or raise the budgets, then \`/agent retry\``;
    case 'CANCELLED':
      return 'cancelled';
    default:
      return `${result.reason ?? result.status}: see the ledger; \`/agent retry\` starts a new attempt`;
  }
}
