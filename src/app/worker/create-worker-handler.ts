import { readArtifactIfPresent } from '../../core/artifacts/artifact-io.js';
import { runPipeline, type PipelineResult } from '../../core/pipeline/run-pipeline.js';
import { POLICY_FILE_NAME } from '../../core/policy/agent-policy.js';
import { parseRunTrigger, type RunTrigger } from '../../core/runs/run-key.js';
import { attemptNeedsModel } from '../../core/runs/run-needs-model.js';
import { CancelMarker } from '../../core/runs/run-state.js';
import { WorkerInvocation } from '../dispatch/dispatch-record.js';
import { HttpRepoSource } from '../git/http-repo-source.js';
import { readTrustedPolicy } from '../github/read-trusted-policy.js';
import { withLogScope } from '../logger.js';
import { modelConfigProblem, modelConfigSentence } from '../model/model-check.js';
import { runKeys } from '../../core/artifacts/keys.js';
import { finishAttempt, suspendAttempt } from './attempt-outcome.js';
import { startHeartbeat } from './heartbeat.js';
import { githubCiStatus } from './github-ci-status.js';
import { leaseAttempt, openAttempt, type OpenAttempt } from './open-attempt.js';
import { stopAttempt } from './stop-attempt.js';
import type { InvocationContext, RunDeps, WorkerDeps } from './worker-deps.js';

export { MAX_CONTINUATIONS } from '../../core/runs/continuations.js';
export type { InvocationContext, VerifierScope, WorkerDeps } from './worker-deps.js';

/** Stop starting new phases when less than this is left of the invocation. */
const YIELD_MARGIN_MS = 90_000;

/**
 * Model and tool calls stop this long before the invocation ends, leaving time for the
 * checkpoint, the partial report and run.json. Below the yield margin, so that between phases
 * the run suspends (and continues in a new invocation) before this deadline can stop it.
 */
export const DEADLINE_RESERVE_MS = 60_000;

/** What a key asks the worker to do (the dispatcher's trigger keys), or undefined for keys it does not handle. */
export const parseWorkerKey = parseRunTrigger;

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

/** One invocation: lease, then beat (worker/heartbeat.ts) while the attempt runs. */
async function runOne(deps: RunDeps, target: RunTrigger, context: InvocationContext): Promise<PipelineResult | undefined> {
  if (!(await leaseAttempt(deps, target, context))) return undefined;
  const heartbeat = await startHeartbeat(deps, runKeys(target.owner, target.repo, target.runId).attempt(target.attempt).heartbeat, target);
  try {
    const result = await runLeased(deps, target, context);
    await heartbeat.stop();
    return result;
  } finally {
    // A thrown invocation stops beating without saying `idle`: a retry beats again, else the sweeper ends the attempt.
    heartbeat.cancel();
  }
}

/** The leased attempt: open it, read the trusted policy, check the model, run the pipeline, then suspend or finish it. */
async function runLeased(deps: RunDeps, target: RunTrigger, context: InvocationContext): Promise<PipelineResult | undefined> {
  const run = await openAttempt(deps, target);
  const { api, request } = run;
  const repoInfo = await api.rest.repos.get({ owner: request.owner, repo: request.repo });
  const trusted = await readTrustedPolicy(api, { owner: request.owner, repo: request.repo, defaultBranch: repoInfo.data.default_branch });
  if (!trusted.ok) {
    await stopAttempt(run, { status: 'BLOCKED', reason: trusted.error.reason, message: `${trusted.error.reason}: ${trusted.error.message}` });
    await run.tracker.flush();
    return undefined;
  }
  // A model that is not configured ends the run now, naming the setting, rather than at its first call.
  const modelProblem = attemptNeedsModel(request, run.attempt.attemptRequest?.followUp) ? await modelConfigProblem(deps.model) : undefined;
  if (modelProblem) {
    await stopAttempt(run, { status: 'FAILED', reason: modelProblem.reason, message: modelConfigSentence(modelProblem) });
    await run.tracker.flush();
    return undefined;
  }
  const result = await runAttemptPipeline(run, { policy: trusted.bytes, sizeKb: repoInfo.data.size }, context);
  if (result.status === 'SUSPENDED') await suspendAttempt(run, result);
  else await finishAttempt(run, result);
  await run.tracker.flush();
  return result;
}

/** The pipeline over the repository (smart HTTP with the read token), within the invocation's time. */
function runAttemptPipeline(
  run: OpenAttempt,
  repository: { policy: Uint8Array | string | undefined; sizeKb: number },
  context: InvocationContext,
): Promise<PipelineResult> {
  const { deps, request, keys, target } = run;
  const { store, clock, logger } = deps;
  const source = new HttpRepoSource({
    url: deps.cloneUrl?.(request) ?? run.source.cloneUrl,
    identity: { owner: request.owner, repo: request.repo },
    token: async () => run.token,
    sizeKb: async () => repository.sizeKb,
  });
  // One reading of the invocation's end: yielding between phases and the model's deadline agree on it.
  const endsAt = context.getRemainingTimeInMillis ? clock.now() + context.getRemainingTimeInMillis() : undefined;
  return runPipeline(
    {
      store,
      source,
      fs: deps.newFs(),
      clock,
      logger,
      syntax: deps.syntax,
      ciStatus: githubCiStatus(run.api, request.owner, request.repo),
      verifier:
        typeof deps.verifier === 'function'
          ? deps.verifier({ store, keys, runId: request.runId, attempt: target.attempt, continuation: target.continuation, now: run.now })
          : deps.verifier,
      model: deps.model,
      prices: deps.prices,
      deadline: endsAt === undefined ? undefined : endsAt - DEADLINE_RESERVE_MS,
      reporter: run.tracker,
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
      attempt: run.attempt,
      policy: { text: repository.policy, file: POLICY_FILE_NAME },
      stopAfter: 'run',
      taskId: () => request.issue?.url ?? `issue:${request.owner}/${request.repo}#${request.issue?.number ?? 0}`,
    },
  );
}
