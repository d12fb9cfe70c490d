import type { PriceTable } from '../../core/budget/cost.js';
import type { PipelineDeps } from '../../core/pipeline/run-pipeline.js';
import type { RunKeys } from '../../core/artifacts/keys.js';
import type { ArtifactStore, Clock, FsLike, ModelProvider } from '../../core/ports.js';
import type { RunRequest } from '../../core/runs/run-request.js';
import type { TreeSyntaxService } from '../../core/syntax/create-syntax-service.js';
import type { Verifier } from '../../core/verify/verifier.js';
import type { RunSession, RunSessionOpener } from '../dispatch/run-session-client.js';
import type { GitHubApi } from '../github/github-api.js';
import type { MetricLogger } from '../metrics/run-metrics.js';
import type { HeartbeatTimer } from './heartbeat.js';

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
  /**
   * Runs the project's commands where the policy asks for it: `serve` the local sandbox; the
   * Lambda worker a runner bound to the invocation's run store (`codeBuildVerifier`).
   */
  verifier?: Verifier | ((scope: VerifierScope) => Verifier);
  model?: ModelProvider;
  /** Model prices (MODEL_PRICES): cost in the report, and what a policy cost cap is checked against. */
  prices?: PriceTable;
  identity: { name: string; email: string };
  /** Around each ingestion (`PipelineDeps.ingestionMemory`): the young generation kept at its size. */
  ingestionMemory?: PipelineDeps['ingestionMemory'];
  /** The heartbeat's timer (worker/heartbeat.ts); default setInterval. */
  heartbeatTimer?: HeartbeatTimer;
  /** The repository source; default smart HTTP with the token-read token (tests may point it at a loopback server). */
  cloneUrl?: (request: RunRequest) => string;
}

/** What a per-invocation runner is bound to: the run's store (session credentials), its keys, the attempt and this invocation's continuation. */
export interface VerifierScope {
  store: ArtifactStore;
  keys: RunKeys;
  runId: string;
  attempt: number;
  continuation: number;
  now: () => string;
}

export interface InvocationContext {
  awsRequestId?: string;
  getRemainingTimeInMillis?: () => number;
}

/** The worker's dependencies once its run session is open. */
export type RunDeps = Omit<WorkerDeps, 'session'> & RunSession;
