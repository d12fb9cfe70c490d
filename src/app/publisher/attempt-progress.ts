import { parseArtifact, putArtifactIfAbsent, readArtifactIfPresent } from '../../core/artifacts/artifact-io.js';
import { spendSoFar } from './spend-so-far.js';
import type { z } from 'zod';
import type { RunProgress } from '../../core/ports.js';
import { storageBinding } from '../../core/publish/check-binding.js';
import { outsiderOfRequest, trustedGate } from '../../core/publish/check-approval.js';
import { trustedPolicyAndTask } from '../../core/publish/plan-publication.js';
import { PublishError } from '../../core/publish/publish-error.js';
import { trustedAttemptState } from '../../core/runs/attempts.js';
import { releaseIssueLock } from '../../core/runs/issue-lock.js';
import { ApprovalRequest, AttemptRequest, RunRequest } from '../../core/runs/run-request.js';
import { AttemptProgress, CancelMarker, GateRecord } from '../../core/runs/run-state.js';
import { describeRetry, isLiveRetry, PublishRetry } from '../../core/runs/publish-retry.js';
import type { GitHubApi } from '../github/github-api.js';
import { parseProgressPhases, renderProgressComment, type GateView } from '../github/progress-comment.js';
import { postAnalysisReport } from './analysis-comment.js';
import { noteFailedRebuild, noteUnchangedFollowUp } from './follow-up-note.js';
import { readGitHubTarget, readRunControls, readTrustedPolicy } from './github-state.js';
import type { PublishOptions } from './publisher-context.js';
import { PublishRecord } from './publish-record.js';
import type { AgentPolicy } from '../../core/policy/agent-policy.js';
import type { PolicyViews } from '../../core/paths/policy-views.js';
import type { TaskContract } from '../../core/task/task-contract.js';
import { PLAN_APPROVAL, PlanDocument, planDigest, planGateId, planGateRequired } from '../../core/runs/plan-gate.js';

/*
 * What a worker's attempt shows on GitHub, shown by the publisher: the worker's token has no
 * issues permission, so the progress comment, the analysis report, the follow-up notes, the
 * approval gate and the lock are the publisher's (docs/trust-chain.md, "The progress comment
 * and the lock", "The gate an approval covers").
 */

export type AttemptViewOutcome = { kind: 'shown'; status: string; released: boolean } | { kind: 'gate'; gateId: string } | { kind: 'ignored'; why: string };

type GitHubRequest = RunRequest & { source: Extract<RunRequest['source'], { kind: 'github' }> };

/** One attempt the trusted writers requested and nothing superseded: its request, and the API with the publisher's token. */
interface AttemptView {
  request: GitHubRequest;
  owner: string;
  repo: string;
  runId: string;
  attempt: number;
  api: GitHubApi;
  issued: Awaited<ReturnType<PublishOptions['tokens']['token']>>;
  /** The pull request an earlier attempt published, if any (a follow-up's notes go there). */
  pullRequest?: number;
  /** What the run spent so far, from its spend record (model-call writes it; the worker cannot). */
  spend?: string;
}

const ignored = (why: string): AttemptViewOutcome => ({ kind: 'ignored', why });

/** A worker-written object, or undefined when it is absent or does not parse (it is only ever the worker's word). */
async function workerObject<S extends z.ZodType>(options: PublishOptions, key: string, schema: S): Promise<z.output<S> | undefined> {
  return readArtifactIfPresent(options.store, key, schema).catch((error: unknown) => {
    options.logger.warn('worker object ignored', { key, error: error instanceof Error ? error.message : String(error) });
    return undefined;
  });
}

/**
 * The attempt as the trusted writers know it: the trigger-written request names this run, the
 * attempt was requested and no later one was, it is not cancelled, and nothing of it was
 * published. Anything else is a reason to show nothing.
 */
async function openView(options: PublishOptions, attempt: number): Promise<AttemptView | string> {
  const { store, runKeys: keys } = options;
  const binding = storageBinding(keys.prefix);
  const request = await readArtifactIfPresent(store, keys.request, RunRequest);
  if (!request || request.source.kind !== 'github' || request.runId !== binding.runId) return 'the run has no GitHub request';
  const state = await trustedAttemptState(store, keys, binding.runId, attempt);
  if (!state.requested) return 'the attempt was never requested';
  if (state.superseded) return 'a later attempt was requested';
  const published = await readArtifactIfPresent(store, keys.publish, PublishRecord);
  if (published && published.attempt >= attempt) return 'the attempt was published';
  const cancel = await readArtifactIfPresent(store, keys.cancel, CancelMarker);
  if (cancel && cancel.runId === binding.runId && cancel.attempt >= attempt) return 'the attempt was cancelled';
  const { installationId, repositoryId } = request.source;
  const issued = await options.tokens.token({ installationId, repositoryId, role: 'write' });
  return {
    request: request as GitHubRequest,
    owner: binding.owner,
    repo: binding.repo,
    runId: binding.runId,
    attempt,
    api: options.github(issued.token),
    issued,
    pullRequest: published?.prNumber,
    spend: await spendSoFar(store, keys.spend),
  };
}

/**
 * `attempts/<n>/progress.json` changed: show it on the progress comment (with the gate, once the
 * publisher recorded one). When the attempt ended with no candidate, release its lock, post an
 * analysis report and the follow-up notes. The object is read when this runs, not when it was
 * written, so notifications handled out of order still show the latest progress.
 */
export async function relayProgress(options: PublishOptions, attempt: number): Promise<AttemptViewOutcome> {
  const { store, runKeys: keys } = options;
  const view = await openView(options, attempt);
  if (typeof view === 'string') return ignored(view);
  const progress = await workerObject(options, keys.attempt(attempt).progress, AttemptProgress);
  if (!progress || progress.runId !== view.runId || progress.attempt !== attempt) return ignored('no progress of this attempt');
  const gate = await readArtifactIfPresent(store, keys.gate(attempt), GateRecord);
  const ended = progress.ended;
  let message = progress.message;
  if (ended && !ended.candidate) message = await afterEnd(options, view, progress, ended);
  // A candidate GitHub rate-limited: the publisher's retry is the truth, not the worker's "publishing".
  const retry = ended?.candidate ? await readArtifactIfPresent(store, keys.publishRetry, PublishRetry).catch(() => undefined) : undefined;
  if (isLiveRetry(retry, view.runId, attempt)) message = describeRetry(retry);
  if (progress.status === 'NEEDS_APPROVAL' && !gate)
    message =
      ended?.reason === PLAN_APPROVAL
        ? `${PLAN_APPROVAL}: the publisher records the plan to approve`
        : `${ended?.reason ?? 'APPROVAL_REQUIRED'}: the publisher checks the change against the trusted policy`;
  await showProgress(view, { ...progress, message }, gate);
  let released = false;
  if (ended && !ended.candidate && view.request.issue) {
    released = await releaseIssueLock(store, { owner: view.owner, repo: view.repo, issue: view.request.issue.number }, { runId: view.runId, attempt });
  }
  return { kind: 'shown', status: progress.status, released };
}

/** An attempt that ended with no candidate: its analysis report and follow-up notes; the comment's last line. */
async function afterEnd(
  options: PublishOptions,
  view: AttemptView,
  progress: AttemptProgress,
  ended: NonNullable<AttemptProgress['ended']>,
): Promise<string | undefined> {
  const { store, runKeys: keys } = options;
  const where = { owner: view.owner, repo: view.repo, runId: view.runId, attempt: view.attempt, botLogin: options.botLogin };
  const attemptRequest = view.attempt >= 2 ? await readArtifactIfPresent(store, keys.attempt(view.attempt).request, AttemptRequest) : undefined;
  const result = { status: ended.status, reason: ended.reason, baseCommitSha: progress.baseCommitSha };
  await noteUnchangedFollowUp(view.api, where, attemptRequest?.followUp, result);
  await noteFailedRebuild(view.api, { ...where, pullRequest: view.pullRequest }, attemptRequest, result);
  if (ended.status === 'COMPLETED' && ended.analysisReport && view.request.issue) {
    const url = await postAnalysisReport(view.api, { ...where, issue: view.request.issue.number }, ended.analysisReport);
    return url ? `analysis finished: the report is posted on this issue (${url})` : progress.message;
  }
  return progress.message;
}

/** Edit the progress comment (the run's, from the trigger-written request) to show this progress and gate. */
async function showProgress(view: AttemptView, progress: Omit<RunProgress, 'ended'>, gate: GateView | undefined): Promise<void> {
  const id = view.request.issue?.progressCommentId;
  if (id === undefined) return;
  const shown: RunProgress = gate
    ? {
        ...progress,
        status: 'NEEDS_APPROVAL',
        message: gate.plan ? `${PLAN_APPROVAL}: the plan needs a maintainer's approval` : `the change needs a maintainer's approval`,
      }
    : progress;
  await view.api.rest.issues.updateComment({
    owner: view.owner,
    repo: view.repo,
    comment_id: id,
    body: renderProgressComment({ ...shown, runId: view.runId, attempt: view.attempt }, gate, view.spend),
  });
}

/**
 * `attempts/<n>/approval-request.json` written: the worker stopped for an approval. The gate is
 * recomputed here from the trusted policy and task over the paths and contents the worker names
 * (never its gate id or its violations), recorded once in `control/gate-<n>.json`, and shown on
 * the progress comment. `/agent approve` approves that record; publication later recomputes the
 * gate from the candidate's blobs and needs the same id, so a change other than the one shown
 * cannot pass.
 */
export async function recordGate(options: PublishOptions, attempt: number): Promise<AttemptViewOutcome> {
  const { store, runKeys: keys, logger } = options;
  const view = await openView(options, attempt);
  if (typeof view === 'string') return ignored(view);
  const asked = await workerObject(options, keys.attempt(attempt).approvalRequest, ApprovalRequest);
  if (!asked || asked.runId !== view.runId || asked.attempt !== attempt) return ignored('no approval request of this attempt');
  const repo = { api: view.api, owner: view.owner, repo: view.repo };
  const { defaultBranch } = await readGitHubTarget(repo, view.issued);
  const rules = trustedPolicyAndTask(view.request, await readTrustedPolicy(repo, defaultBranch));
  if (rules instanceof PublishError) {
    logger.warn('no gate recorded: the trusted rules refuse the run', { reason: rules.reason });
    return ignored(`the trusted rules refuse the run (${rules.reason})`);
  }
  const at = new Date(options.clock.now()).toISOString();
  // A run held to an approved plan: the plan's files come from the trusted approval marker, never from the worker.
  const { approvedPlan } = await readRunControls(store, keys, view.runId, attempt);
  const record =
    asked.reason === PLAN_APPROVAL
      ? await planGateRecord(options, view, rules.views.policy, at)
      : changeGateRecord(view, asked, { ...rules, planFiles: approvedPlan?.files }, at);
  if (typeof record === 'string') {
    logger.warn('no gate recorded', { why: record });
    return ignored(record);
  }
  // Written once: a redelivery keeps the first record and the time it was shown.
  await putArtifactIfAbsent(store, keys.gate(attempt), GateRecord, record);
  const gate = (await readArtifactIfPresent(store, keys.gate(attempt), GateRecord)) ?? record;
  const progress = await workerObject(options, keys.attempt(attempt).progress, AttemptProgress);
  const phases =
    progress?.phases ??
    (view.request.issue?.progressCommentId === undefined
      ? []
      : await view.api.rest.issues
          .getComment({ owner: view.owner, repo: view.repo, comment_id: view.request.issue.progressCommentId })
          .then((r) => parseProgressPhases(r.data.body ?? ''))
          .catch(() => []));
  await showProgress(view, { runId: view.runId, attempt, status: 'NEEDS_APPROVAL', phases, baseCommitSha: asked.baseCommitSha }, gate);
  logger.info('approval gate recorded', { runId: view.runId, attempt, gateId: gate.gateId, files: gate.changes.length });
  return { kind: 'gate', gateId: gate.gateId };
}

/** The gate of a change, recomputed from the trusted policy and task over the paths and contents the worker names. */
function changeGateRecord(
  view: AttemptView,
  asked: ApprovalRequest,
  rules: { views: PolicyViews; task: TaskContract; planFiles?: readonly string[] },
  at: string,
): GateRecord | string {
  const outsider = outsiderOfRequest(view.request, rules.views.policy, rules.task);
  const { verdict, risk } = trustedGate(asked.changes, rules.views, rules.task, [], outsider, undefined, rules.planFiles);
  if (verdict.status !== 'NEEDS_APPROVAL' || !verdict.gateId) return `the trusted policy says ${verdict.status}, not NEEDS_APPROVAL`;
  return {
    schemaVersion: 1,
    runId: view.runId,
    attempt: view.attempt,
    gateId: verdict.gateId,
    violations: verdict.violations,
    changes: asked.changes,
    riskLevel: risk.riskLevel,
    at,
  };
}

/**
 * The plan gate (src/core/runs/plan-gate.ts): only where the trusted policy or the trusted request
 * asks for it. Its id is the digest of `plan.json` as stored, computed here; the record keeps the
 * digest, the plan's files and the plan as shown, which `/agent approve` copies.
 */
async function planGateRecord(options: PublishOptions, view: AttemptView, policy: AgentPolicy, at: string): Promise<GateRecord | string> {
  if (!planGateRequired(view.request, policy)) return 'the trusted policy asks no plan approval of this run';
  const key = options.runKeys.attempt(view.attempt).plan;
  const stored = await options.store.get(key);
  if (!stored) return 'the attempt wrote no plan.json';
  let document: PlanDocument;
  try {
    document = parseArtifact(key, PlanDocument, stored.body);
  } catch {
    return 'plan.json does not parse';
  }
  if (document.runId !== view.runId || document.attempt !== view.attempt) return 'plan.json names another attempt';
  const digest = planDigest(stored.body);
  return {
    schemaVersion: 1,
    runId: view.runId,
    attempt: view.attempt,
    gateId: planGateId(digest),
    violations: [{ rule: PLAN_APPROVAL, message: `the plan (${document.files.length} file(s)) waits for a maintainer's approval before any change` }],
    changes: [],
    riskLevel: 'LOW',
    plan: { digest, files: document.files, document },
    at,
  };
}
