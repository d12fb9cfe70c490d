import { putArtifactIfAbsent, readArtifactIfPresent, writeArtifact } from '../../core/artifacts/artifact-io.js';
import { issueLatestKey, runKeys, type RunKeys } from '../../core/artifacts/keys.js';
import { isAnalysisReport } from '../../core/phases/analysis-report.js';
import type { PriceTable } from '../../core/budget/cost.js';
import { runPipeline, type PipelineDeps, type PipelineResult } from '../../core/pipeline/run-pipeline.js';
import { POLICY_FILE_NAME } from '../../core/policy/agent-policy.js';
import type { ArtifactStore, CiStatus, CiStatusReader, Clock, FsLike, Logger, ModelProvider, TokenBroker } from '../../core/ports.js';
import { loadAttempt } from '../../core/runs/attempts.js';
import { releaseIssueLock } from '../../core/runs/issue-lock.js';
import { parseRunTrigger } from '../../core/runs/run-key.js';
import { RunRecord, type RunRequest } from '../../core/runs/run-request.js';
import { CancelMarker, IssueLatest } from '../../core/runs/run-state.js';
import { withAttempt } from '../../core/runs/update-run-record.js';
import { writeRunTransition } from '../../core/runs/write-run-transition.js';
import type { TreeSyntaxService } from '../../core/syntax/create-syntax-service.js';
import { WorkerInvocation } from '../dispatch/dispatch-record.js';
import type { RunSession, RunSessionOpener } from '../dispatch/run-session-client.js';
import { HttpRepoSource } from '../git/http-repo-source.js';
import type { GitHubApi } from '../github/github-api.js';
import { bindLogScope, withLogScope } from '../logger.js';
import { emitMetric, phaseMetric, type MetricLogger } from '../metrics/run-metrics.js';
import { IssueCommentReporter } from '../github/progress-comment.js';
import { readTrustedPolicy } from '../github/read-trusted-policy.js';
import { noteFailedRebuild, noteUnchangedFollowUp } from './follow-up-note.js';
import { Continuation, countReplays, MAX_CONTINUATIONS, takeLease, type Lease } from './lease.js';
import { postAnalysisReport } from './analysis-comment.js';
import { ProgressTracker } from './progress-tracker.js';

export { MAX_CONTINUATIONS } from './lease.js';

/** Stop starting new phases when less than this is left of the invocation. */
const YIELD_MARGIN_MS = 90_000;

/**
 * Model and tool calls stop this long before the invocation ends, leaving time for the
 * checkpoint, the partial report and run.json. Below the yield margin, so that between phases
 * the run suspends (and continues in a new invocation) before this deadline can stop it.
 */
export const DEADLINE_RESERVE_MS = 60_000;

export interface WorkerDeps {
  /**
   * Trades the dispatcher's capability for the run's store and read token: the worker holds
   * no S3 rights and no token of its own, so it can reach its own run and repository only.
   */
  session: RunSessionOpener;
  github: (token: string) => GitHubApi;
  clock: Clock;
  logger: MetricLogger & { redact?: (value: string) => void };
  syntax: () => Promise<TreeSyntaxService>;
  newFs: () => FsLike;
  model?: ModelProvider;
  /** Model prices (MODEL_PRICES): cost in the report, and what a policy cost cap is checked against. */
  prices?: PriceTable;
  identity: { name: string; email: string };
  /** Around each ingestion (`PipelineDeps.ingestionMemory`): the young generation kept at its size. */
  ingestionMemory?: PipelineDeps['ingestionMemory'];
  /** The repository source; default smart HTTP with the token-read token (tests may point it at a loopback server). */
  cloneUrl?: (request: RunRequest) => string;
}

export interface InvocationContext {
  awsRequestId?: string;
  getRemainingTimeInMillis?: () => number;
}

/** What a key asks the worker to do (the dispatcher's trigger keys), or undefined for keys it does not handle. */
export const parseWorkerKey = parseRunTrigger;

/** The worker's dependencies once its run session is open. */
type RunDeps = Omit<WorkerDeps, 'session'> & RunSession;

/**
 * The worker: invoked by the dispatcher with `{key, capability}` for a `request.json`,
 * `attempts/<n>/request.json` or `continue-<k>.json`. Open the run session (the run's store and
 * read token), lease the attempt (a duplicate delivery exits quietly), run the pipeline in
 * memory, and stop in time to write the next continuation (at most three).
 */
export function createWorkerHandler(deps: WorkerDeps) {
  return async (event: unknown, context: InvocationContext = {}): Promise<void> => {
    const invocation = WorkerInvocation.parse(event);
    const target = parseWorkerKey(invocation.key);
    if (!target) {
      deps.logger.info('worker ignored key', { key: invocation.key });
      return;
    }
    const { session, ...rest } = deps;
    // Every line of this run carries its id and repository, whichever client writes it.
    await withLogScope({ runId: target.runId, repository: `${target.owner}/${target.repo}` }, async () => {
      await runOne({ ...rest, ...(await session(invocation)) }, target, context);
    });
  };
}

async function runOne(deps: RunDeps, target: NonNullable<ReturnType<typeof parseWorkerKey>>, context: InvocationContext): Promise<PipelineResult | undefined> {
  const { store, clock, logger } = deps;
  const keys = runKeys(target.owner, target.repo, target.runId);
  const attemptKeys = keys.attempt(target.attempt);
  const holder = context.awsRequestId ?? `local-${clock.now()}`;
  const now = () => new Date(clock.now()).toISOString();

  // One worker per attempt (see takeLease): a duplicate delivery exits quietly.
  const lease: Lease = { schemaVersion: 1, runId: target.runId, attempt: target.attempt, continuation: target.continuation, holder, at: now() };
  const leased = await takeLease(store, attemptKeys, lease, context.awsRequestId);
  if (leased === 'duplicate') {
    logger.info('duplicate delivery: the attempt is leased by another invocation', { runId: target.runId, attempt: target.attempt, continuation: target.continuation });
    return undefined;
  }
  if (leased === 'resumed') logger.info('retry of a failed invocation: resuming the attempt', { runId: target.runId, attempt: target.attempt, continuation: target.continuation });

  const attempt = await loadAttempt(store, keys, target.attempt);
  const request = attempt.request;
  if (request.source.kind !== 'github') throw new Error(`worker runs GitHub requests only, not ${request.source.kind}`);
  const source = request.source;
  bindLogScope({ installationId: source.installationId });
  const issued = await deps.tokens.token({ installationId: source.installationId, repositoryId: source.repositoryId, role: 'read' });
  deps.logger.redact?.(issued.token);
  const api = deps.github(issued.token);

  const commentId = request.issue?.progressCommentId;
  const tracker = new ProgressTracker(
    commentId ? new IssueCommentReporter(api, { owner: request.owner, repo: request.repo, commentId }) : { report: async () => undefined },
    (error) => logger.warn('progress comment update failed', { error: error instanceof Error ? error.message : String(error) }),
    (progress) => {
      if (progress.state !== 'running') emitMetric(logger, phaseMetric(progress, { fn: 'worker', runId: request.runId, attempt: target.attempt, timestamp: clock.now() }));
    },
  );
  // Continuations an operator replayed do not count against the limit.
  const replays = await countReplays(store, attemptKeys, target.continuation);
  await tracker.report({ runId: request.runId, attempt: target.attempt, status: 'RUNNING', phases: [], message: target.continuation > 0 ? `continuing (${target.continuation - replays}/${MAX_CONTINUATIONS})` : 'ingesting the repository' });

  const repoInfo = await api.rest.repos.get({ owner: request.owner, repo: request.repo });
  const trusted = await readTrustedPolicy(api, { owner: request.owner, repo: request.repo, defaultBranch: repoInfo.data.default_branch });
  if (!trusted.ok) {
    await stopAttempt(deps, keys, request, target.attempt, { status: 'BLOCKED', reason: trusted.error.reason, message: `${trusted.error.reason}: ${trusted.error.message}` }, tracker);
    await tracker.flush();
    return undefined;
  }
  const repoSource = new HttpRepoSource({
    url: deps.cloneUrl?.(request) ?? source.cloneUrl,
    identity: { owner: request.owner, repo: request.repo },
    token: async () => issued.token,
    sizeKb: async () => repoInfo.data.size,
  });

  // One reading of the invocation's end: yielding between phases and the model's deadline agree on it.
  const endsAt = context.getRemainingTimeInMillis ? clock.now() + context.getRemainingTimeInMillis() : undefined;
  const result = await runPipeline(
    {
      store,
      source: repoSource,
      fs: deps.newFs(),
      clock,
      logger,
      syntax: deps.syntax,
      ciStatus: githubCiStatus(api, request.owner, request.repo),
      model: deps.model,
      prices: deps.prices,
      deadline: endsAt === undefined ? undefined : endsAt - DEADLINE_RESERVE_MS,
      reporter: tracker,
      ingestionMemory: deps.ingestionMemory,
      identity: deps.identity,
      isCancelled: async () => {
        const marker = await readArtifactIfPresent(store, keys.cancel, CancelMarker);
        return Boolean(marker && marker.attempt >= target.attempt);
      },
      shouldYield: () => (endsAt === undefined ? false : endsAt - clock.now() < YIELD_MARGIN_MS),
    },
    {
      keys,
      owner: request.owner,
      repo: request.repo,
      attempt,
      policy: { text: trusted.bytes, file: POLICY_FILE_NAME },
      stopAfter: 'run',
      taskId: () => request.issue?.url ?? `issue:${request.owner}/${request.repo}#${request.issue?.number ?? 0}`,
    },
  );

  if (result.status === 'SUSPENDED') {
    const next = target.continuation + 1;
    const used = next - replays;
    if (used > MAX_CONTINUATIONS) {
      const reason = `the attempt needed more than ${MAX_CONTINUATIONS} continuations`;
      await stopAttempt(deps, keys, request, target.attempt, { status: 'FAILED', reason, message: reason }, tracker);
    } else {
      await putArtifactIfAbsent(store, attemptKeys.continue(next), Continuation, { schemaVersion: 1, runId: request.runId, attempt: target.attempt, continuation: next, reason: result.reason ?? 'time', at: now() });
      await tracker.report({ runId: request.runId, attempt: target.attempt, status: 'RUNNING', phases: [], message: `paused to continue in a new invocation (${used}/${MAX_CONTINUATIONS})` });
    }
    await tracker.flush();
    return result;
  }

  await noteUnchangedFollowUp(api, { owner: request.owner, repo: request.repo, runId: request.runId, attempt: target.attempt }, attempt.attemptRequest?.followUp, result);
  const pullRequest = (await readArtifactIfPresent(store, keys.run, RunRecord))?.pullRequest?.number;
  await noteFailedRebuild(api, { owner: request.owner, repo: request.repo, runId: request.runId, attempt: target.attempt, pullRequest }, attempt.attemptRequest, result);
  const reportUrl = await postAnalysisOutcome(api, request, target.attempt, result);
  // Without a candidate nothing else will release the lock; with one, the publisher does.
  if (!(result.status === 'COMPLETED' && result.headCommitSha) && request.issue) {
    await releaseIssueLock(store, { owner: request.owner, repo: request.repo, issue: request.issue.number }, { runId: request.runId, attempt: target.attempt });
  }
  if (request.issue) {
    await writeArtifact(store, issueLatestKey(request.owner, request.repo, request.issue.number), IssueLatest, {
      schemaVersion: 1,
      runId: request.runId,
      attempt: target.attempt,
      progressCommentId: commentId,
      updatedAt: now(),
    });
  }
  await tracker.report({
    runId: request.runId,
    attempt: target.attempt,
    status: result.status === 'COMPLETED' && result.headCommitSha ? 'PUBLISHING' : result.status,
    phases: [],
    baseCommitSha: result.baseCommitSha,
    message: describeOutcome(result, reportUrl),
    artifacts: Object.fromEntries(Object.entries(result.artifacts).filter(([name]) => !name.endsWith('/'))),
  });
  await tracker.flush();
  return result;
}

/** An analysis that completed posts its report on the issue; the URL of that comment, if posted. */
async function postAnalysisOutcome(api: GitHubApi, request: RunRequest, attempt: number, result: PipelineResult): Promise<string | undefined> {
  if (result.status !== 'COMPLETED' || result.headCommitSha || !result.report || !isAnalysisReport(result.report) || !request.issue) return undefined;
  return postAnalysisReport(api, { owner: request.owner, repo: request.repo, issue: request.issue.number, runId: request.runId, attempt }, result.report);
}

function describeOutcome(result: PipelineResult, reportUrl?: string): string {
  if (result.status === 'COMPLETED' && result.headCommitSha) return `commit ${result.headCommitSha.slice(0, 12)} is ready; the publisher opens the draft pull request`;
  if (result.status === 'COMPLETED') return reportUrl ? `analysis finished: the report is posted on this issue (${reportUrl})` : 'analysis finished; nothing was changed';
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

/**
 * End the attempt without the pipeline's own record (the policy refused, or continuations ran
 * out): run.json says so, the lock is released, the comment tells the maintainer.
 */
async function stopAttempt(
  deps: RunDeps,
  keys: RunKeys,
  request: RunRequest,
  attempt: number,
  stop: { status: 'FAILED' | 'BLOCKED'; reason: string; message: string },
  tracker: ProgressTracker,
): Promise<void> {
  const { store, clock } = deps;
  const now = new Date(clock.now()).toISOString();
  await writeRunTransition(store, keys.run, 'worker', (current) => {
    const startedAt = current?.attempts.find((a) => a.n === attempt)?.startedAt ?? now;
    return {
      schemaVersion: 1,
      runId: request.runId,
      agentBranch: request.agentBranch,
      progressCommentId: request.issue?.progressCommentId,
      ...current,
      status: stop.status,
      reason: stop.reason,
      attempt: Math.max(current?.attempt ?? attempt, attempt),
      attempts: withAttempt(current?.attempts ?? [], { n: attempt, status: stop.status, reason: stop.reason, startedAt, endedAt: now }),
      updatedAt: now,
    };
  });
  if (request.issue) await releaseIssueLock(store, { owner: request.owner, repo: request.repo, issue: request.issue.number }, { runId: request.runId, attempt });
  await tracker.report({ runId: request.runId, attempt, status: stop.status, phases: [], message: stop.message });
}

/** The CI state of a commit through the checks and statuses APIs (read scopes). */
export function githubCiStatus(api: GitHubApi, owner: string, repo: string): CiStatusReader {
  return {
    async read(commitSha: string): Promise<CiStatus> {
      try {
        const runs = await api.rest.checks.listForRef({ owner, repo, ref: commitSha, per_page: 100 });
        const checks = runs.data.check_runs.map((r) => ({ name: r.name, status: r.status, conclusion: r.conclusion ?? null, url: r.html_url ?? undefined }));
        if (checks.length === 0) return { state: 'unavailable', checks };
        const done = checks.every((c) => c.status === 'completed');
        const failed = checks.some((c) => c.conclusion && !['success', 'neutral', 'skipped'].includes(c.conclusion));
        const state = !done ? 'pending' : failed ? (checks.some((c) => c.conclusion === 'success') ? 'mixed' : 'failure') : 'success';
        return { state, checks };
      } catch {
        return { state: 'unavailable', checks: [] };
      }
    },
  };
}
