import { readArtifactIfPresent } from '../../core/artifacts/artifact-io.js';
import { PrCandidate } from '../../core/git/pr-candidate.js';
import type { GitHubApi } from '../github/github-api.js';
import { checkRun, storageBinding } from '../../core/publish/check-binding.js';
import { planPublication } from '../../core/publish/plan-publication.js';
import type { PublicationApplied, PublicationPlan } from '../../core/publish/publication.js';
import { PublishError } from '../../core/publish/publish-error.js';
import { trustedAttemptState } from '../../core/runs/attempts.js';
import { RunRequest } from '../../core/runs/run-request.js';
import { bindLogScope } from '../logger.js';
import { noteRefusedFollowUp, readBranchHead, readFollowUp, revisionEntry, updateRevisions } from './follow-up-publication.js';
import { GitHubPublisher } from './github-publisher.js';
import { readCandidateBlobs, readGitHubBase, readGitHubTarget, readRunControls, readTrustedPolicy } from './github-state.js';
import type { PublishOptions, PublishOutcome, RunContext } from './publisher-context.js';
import { PublishRecord } from './publish-record.js';
import { recordDeferred, recordPublished, recordRefusal, recordRerun } from './run-state.js';
import { GitHubApiError } from '../github/github-api-error.js';

export type { PublishDeps, PublishOptions, PublishOutcome } from './publisher-context.js';

function decodeJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return undefined;
  }
}

/**
 * Publish one run's PR candidate as a draft pull request with the write-role token:
 *
 * 1. `publish.json` already there for this attempt: done, nothing is called.
 * 2. The checks that need nothing from GitHub (the storage key, the trigger-written
 *    `request.json` and the candidate name one run and its agent branch; not cancelled).
 * 3. The repository as GitHub reports it, the trusted policy (default branch head), the base,
 *    and the candidate's blobs are read; `planPublication` decides: refuse, rerun, or a plan.
 * 4. `GitHubPublisher` applies the plan; then the progress comment, `publish.json`, `run.json`
 *    and the lock.
 *
 * Each step is idempotent. Refusals write nothing to the repository, and are recorded in
 * `run.json` and the progress comment; the lock is released.
 */
export async function publishCandidate(options: PublishOptions): Promise<PublishOutcome> {
  const started: { ctx?: RunContext } = {};
  try {
    return await publishOnce(options, started);
  } catch (error) {
    // A wait longer than the client sits out: recorded for the sweeper, not thrown (docs/operations.md).
    if (error instanceof GitHubApiError && error.reason === 'GITHUB_RATE_LIMITED' && started.ctx?.api) return recordDeferred(options, started.ctx, error);
    throw error;
  }
}

async function publishOnce(options: PublishOptions, started: { ctx?: RunContext }): Promise<PublishOutcome> {
  const { store, runKeys: keys, logger } = options;
  const startedAt = options.clock.now();
  const rawCandidate = await store.get(keys.candidate.prCandidate);
  const request = await readArtifactIfPresent(store, keys.request, RunRequest);
  if (!request) throw new PublishError('CANDIDATE_INVALID', 'the run has no request.json', { key: keys.request });
  if (request.source.kind === 'github') bindLogScope({ installationId: request.source.installationId });
  // Owner and repository from the key the event named: a forged request cannot point the records elsewhere.
  const binding = storageBinding(keys.prefix);
  const ctx: RunContext = { request, owner: binding.owner, repo: binding.repo, attempt: 1, startedAt };
  started.ctx = ctx;
  const raw = rawCandidate ? decodeJson(rawCandidate.body) : undefined;
  const parsed = PrCandidate.safeParse(raw);
  let existing: PublishRecord | undefined;
  if (parsed.success) {
    ctx.attempt = parsed.data.attempt;
    existing = await readArtifactIfPresent(store, keys.publish, PublishRecord);
    if (existing && existing.attempt >= parsed.data.attempt) {
      logger.info('candidate already published', { runId: request.runId, attempt: parsed.data.attempt, prNumber: existing.prNumber });
      return { kind: 'already-published', record: existing };
    }
  }
  const controls = await readRunControls(store, keys, binding.runId, ctx.attempt);
  const attemptState = await trustedAttemptState(store, keys, binding.runId, ctx.attempt);
  const pre = checkRun({ binding, request, candidate: raw, cancel: controls.cancel, attemptState, targetKind: 'github' });
  if (pre instanceof PublishError) return recordRefusal(options, ctx, pre);
  if (request.source.kind !== 'github') throw new Error('checkRun admits GitHub runs only');
  const { candidate } = pre;
  ctx.diff = { files: candidate.diffSummary.filesChanged, lines: candidate.diffSummary.insertions + candidate.diffSummary.deletions };

  const issued = await options.tokens.token({ installationId: request.source.installationId, repositoryId: request.source.repositoryId, role: 'write' });
  const api = options.github(issued.token);
  ctx.api = api;
  const repo = { api, owner: ctx.owner, repo: ctx.repo };
  const { target, defaultBranch, defaultHead } = await readGitHubTarget(repo, issued);
  const followUp = await readFollowUp(store, keys, candidate.attempt);
  const base = await readGitHubBase(repo, candidate, defaultBranch, defaultHead);
  // A follow-up must find the branch where it built; a rebuild, where the run last published.
  if (followUp || existing) base.branchHead = await readBranchHead(api, ctx.owner, ctx.repo, candidate.headBranch);
  const decision = await planPublication({
    binding,
    request,
    candidate: raw,
    cancel: controls.cancel,
    attemptState,
    target,
    trustedPolicy: await readTrustedPolicy(repo, defaultBranch),
    base,
    blobs: await readCandidateBlobs(store, keys, candidate),
    approvedGates: controls.approvedGates,
    approvedPlan: controls.approvedPlan,
    followUp,
    lastPublishedCommit: existing?.publishedCommitSha,
  });
  if (decision.kind === 'refuse') {
    if (followUp) await noteRefusedFollowUp(api, ctx.owner, ctx.repo, followUp, decision.error);
    return recordRefusal(options, ctx, decision.error);
  }
  if (decision.kind === 'rerun') return recordRerun(options, ctx, candidate.attempt, decision);
  return publishPlan(options, ctx, { plan: decision.plan, candidate, followUp, existing, repo });
}

type FollowUp = Awaited<ReturnType<typeof readFollowUp>>;

/** Apply the plan and record it; a PublishError from GitHub is a refusal (told on the follow-up's PR too). */
async function publishPlan(
  options: PublishOptions,
  ctx: RunContext,
  args: {
    plan: PublicationPlan;
    candidate: PrCandidate;
    followUp: FollowUp;
    existing: PublishRecord | undefined;
    repo: { api: GitHubApi; owner: string; repo: string };
  },
): Promise<PublishOutcome> {
  const { plan, candidate, followUp, existing, repo } = args;
  const { api } = repo;
  let applied: PublicationApplied;
  try {
    applied = await new GitHubPublisher({ ...repo, logger: options.logger }).apply(plan);
  } catch (error) {
    if (!(error instanceof PublishError)) throw error;
    if (followUp) await noteRefusedFollowUp(api, ctx.owner, ctx.repo, followUp, error);
    return recordRefusal(options, ctx, error);
  }
  // A follow-up's commit is built on what its parent was built on; anything else on its parent.
  const builtOn = followUp ? (existing?.builtOn ?? existing?.baseCommitSha) : plan.parent;
  const record = publishRecord(plan, applied, new Date(options.clock.now()).toISOString(), builtOn);
  if (followUp && applied.pullRequest) {
    record.revisions = await updateRevisions(
      api,
      ctx.owner,
      ctx.repo,
      applied.pullRequest.number,
      existing,
      revisionEntry(followUp, candidate, plan, applied.commitSha),
    );
  }
  return recordPublished(options, ctx, record, { replace: followUp !== undefined || plan.placement.mode === 'rebuild' });
}

function publishRecord(plan: PublicationPlan, applied: PublicationApplied, now: string, builtOn: string | undefined): PublishRecord {
  return PublishRecord.parse({
    schemaVersion: 1,
    runId: plan.runId,
    attempt: plan.attempt,
    owner: plan.owner,
    repo: plan.repo,
    publishedCommitSha: applied.commitSha,
    treeSha: applied.treeSha,
    baseCommitSha: plan.parent,
    builtOn,
    prNumber: applied.pullRequest!.number,
    prUrl: applied.pullRequest!.url,
    branch: applied.branch,
    baseBranch: plan.pullRequest.base,
    baseMoved: plan.baseMoved,
    warnings: [...plan.warnings, ...applied.warnings],
    verification: plan.verification,
    readyWhenCiGreen: plan.readyWhenCiGreen,
    publishedAt: now,
  });
}
