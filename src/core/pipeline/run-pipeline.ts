import type { RunKeys } from '../artifacts/keys.js';
import type { BudgetUsage } from '../budget/budget.js';
import type { PriceTable } from '../budget/cost.js';
import { modelUsage, taskSpend } from './model-budget.js';
import { agentBranchName } from '../git/branch-name.js';
import type { GitIdentity } from '../git/commit-staged.js';
import { createAgentBranch } from '../git/create-agent-branch.js';
import { rememberBaseTree } from '../git/tree-files.js';
import { VirtualIndex } from '../git/virtual-index.js';
import type { IngestResult } from '../ingestion/ingest-repository.js';
import { Ledger } from '../phases/ledger.js';
import { policyViews } from '../paths/policy-views.js';
import { runOrchestrator, type OrchestratorResult, type PhaseHandler } from '../phases/orchestrator.js';
import type { PhaseName } from '../phases/phase-contracts.js';
import { renderRunReport } from '../phases/run-report.js';
import type { ArtifactStore, CiStatusReader, Clock, FsLike, Logger, ModelProvider, RunReporter } from '../ports.js';
import type { RepoSource } from '../ingestion/repo-source.js';
import type { AttemptStart } from '../runs/attempts.js';
import { PLAN_APPROVAL } from '../runs/plan-gate.js';
import type { RunStatus } from '../runs/run-status.js';
import type { TreeSyntaxService } from '../syntax/create-syntax-service.js';
import type { TaskContract } from '../task/task-contract.js';
import { isAnalysisRun, storeAnalysisReport } from './build-analysis-report.js';
import { buildRunReport } from './build-run-report.js';
import { CachedWorkspace } from './cached-workspace.js';
import { finishRun } from './finish-run.js';
import { ingestStage } from './ingest-stage.js';
import { gitPatchCodec } from './patch-codec.js';
import type { PipelineEnv } from './pipeline-env.js';
import { baselinePhase } from './phases/baseline-phase.js';
import { changePhase } from './phases/change-phase.js';
import { discoveryPhase } from './phases/discovery-phase.js';
import { intakePhase, taskOf } from './phases/intake-phase.js';
import { judgePhase } from './phases/judge-phase.js';
import { plannedPaths, planOf, planningPhase } from './phases/planning-phase.js';
import { revisedPaths } from './plan-revision.js';
import { preparePhase, PrepareOutput } from './phases/prepare-phase.js';
import { repairPhase } from './phases/repair-phase.js';
import { reviewPhase } from './phases/review-phase.js';
import { verificationPhase } from './phases/verification-phase.js';
import type { Verifier } from '../verify/verifier.js';

export { ingestionPolicy } from './ingest-stage.js';

export interface PipelineDeps {
  store: ArtifactStore;
  source: RepoSource;
  /** An empty file system that receives the object store (memfs); nothing of the repository touches the disk. */
  fs: FsLike;
  clock: Clock;
  logger: Logger;
  /**
   * Loads the tree-sitter grammars (the caller memoises it): called once a stage after ingestion
   * needs them, so a command that stops after ingestion never pays for loading them.
   */
  syntax: () => Promise<TreeSyntaxService>;
  ciStatus: CiStatusReader;
  /** The runner of the project's commands (agent.verify), where this caller provides one. */
  verifier?: Verifier;
  model?: ModelProvider;
  /** Model prices (deployment configuration) and the run's deadline on `clock`, when there is one. */
  prices?: PriceTable;
  deadline?: number;
  reporter?: RunReporter;
  /**
   * Called as ingestion starts and once it has ended, whatever the outcome: the composition roots
   * that ingest keep the runtime's young generation at its size in between (docs/architecture.md,
   * "Ingestion").
   */
  ingestionMemory?: { enter(): void; leave(): void };
  identity: GitIdentity;
  isCancelled: () => Promise<boolean>;
  shouldYield?: () => boolean;
}

export interface PipelineRequest {
  keys: RunKeys;
  owner: string;
  repo: string;
  attempt: AttemptStart;
  /** The trusted policy text (GitHub: the default branch head; CLI: --policy), or read from the base commit (CLI default). */
  policy: { text: string | Uint8Array | undefined; file: string } | 'from-base';
  stopAfter: 'ingest' | 'map' | 'targets' | 'run';
  /** Commit trailer Task-id: the issue URL, or the CLI task digest. */
  taskId: (task: TaskContract) => string;
}

export type PipelineStatus = RunStatus | 'SUSPENDED';

export interface PipelineResult {
  status: PipelineStatus;
  reason?: string;
  details?: Record<string, unknown>;
  baseRef?: string;
  baseCommitSha?: string;
  headCommitSha?: string;
  headTreeSha?: string;
  agentBranch: string;
  /** Artifact name -> storage key. */
  artifacts: Record<string, string>;
  /** The rendered run report (PR body, or the analysis report). */
  report?: string;
  task?: TaskContract;
  /** What the attempt's model calls came to (the ledger's MODEL_EXCHANGE entries), when a model ran. */
  modelUsage?: BudgetUsage;
}

/** Artifact names of the attempt so far, as the report lists them. */
type ArtifactList = () => { name: string; url: string }[];

/**
 * One attempt of a run: ingestion (base pinned first, with the trusted policy), the agent
 * branch, then the phases under the orchestrator (resumed from the attempt's checkpoints when
 * there are any), then `run.json`. Every artifact goes through the ArtifactStore under the run's keys.
 */
export async function runPipeline(deps: PipelineDeps, request: PipelineRequest): Promise<PipelineResult> {
  const snapshot = request.attempt.request;
  const agentBranch = agentBranchName({ runId: snapshot.runId, issue: snapshot.issue?.number });
  const artifacts: Record<string, string> = {};
  const stage = await ingestStage(deps, request, artifacts);
  if ('ended' in stage) return finishRun(deps, request, { ...stage.ended, agentBranch, artifacts });
  const { ingested, base } = stage;
  if (request.stopAfter === 'ingest') {
    return finishRun(deps, request, {
      status: ingested.status,
      agentBranch,
      artifacts,
      ...base,
      details: ingested.warnings.length ? { warnings: ingested.warnings } : undefined,
    });
  }

  await checkoutAgentBranch(deps, request, ingested, agentBranch, stage.policy);
  const env = pipelineEnv(deps, request, stage, agentBranch, await deps.syntax());
  const artifactList: ArtifactList = () => Object.entries(artifacts).map(([name, url]) => ({ name, url }));
  const outcome = await runPhases(deps, request, env, ingested, artifactList);
  const outputs = outcome.outputs;
  const attemptKeys = request.keys.attempt(request.attempt.attempt);
  if (outputs.discovery) {
    artifacts['repo-map.json'] = attemptKeys.repoMap;
    artifacts['target-selection.json'] = attemptKeys.targetSelection;
  }
  if (outcome.state === 'SUSPENDED') return { status: 'SUSPENDED', reason: outcome.reason, details: outcome.details, agentBranch, artifacts, ...base };
  const task = outputs.intake ? taskOf(outputs) : undefined;
  if (request.stopAfter !== 'run') {
    const status: RunStatus = outcome.state === 'COMPLETED' ? (hasWarnings(outputs) ? 'READY_WITH_WARNINGS' : 'READY') : outcome.state;
    return finishRun(deps, request, { status, reason: outcome.reason, details: outcome.details, agentBranch, artifacts, task, ...base });
  }
  const { report, head } = await collectReport(env, outcome, task, artifacts, artifactList);
  if (outcome.state === 'NEEDS_APPROVAL') artifacts['approval-request.json'] = attemptKeys.approvalRequest;
  if (outcome.reason === PLAN_APPROVAL) artifacts['plan.json'] = attemptKeys.plan;
  artifacts['ledger/'] = attemptKeys.ledgerPrefix;
  artifacts['checkpoints/'] = attemptKeys.checkpointsPrefix;
  const { total: usage } = modelUsage(outcome.ledger.entries());
  return finishRun(deps, request, {
    ...(usage.modelCalls > 0 ? { modelUsage: usage } : {}),
    status: outcome.state,
    reason: outcome.reason,
    details: outcome.details,
    agentBranch,
    artifacts,
    report,
    task,
    ...base,
    ...head,
  });
}

/** The agent branch at the recorded base, before any change (the workspace is clean here). */
async function checkoutAgentBranch(
  deps: PipelineDeps,
  request: PipelineRequest,
  ingested: IngestResult,
  agentBranch: string,
  policy: PipelineEnv['policy'],
): Promise<void> {
  const { workspace } = ingested;
  // Ingestion listed the base tree already; the branch, staging and the candidate reuse that listing.
  rememberBaseTree(workspace);
  const ledger = await Ledger.open(deps.store, request.keys.attempt(request.attempt.attempt).ledgerPrefix, deps.clock);
  await createAgentBranch({
    workspace,
    index: await VirtualIndex.fromCommit(workspace.fs, workspace.gitdir, workspace.baseCommitSha),
    branch: agentBranch,
    runId: request.attempt.request.runId,
    ingestionBaseSha: ingested.baseRef.baseCommitSha,
    policy: policyViews(policy).rules,
    ledger: {
      append: async (event) => void (await ledger.append({ actor: event.actor, type: event.type, payload: event.payload, evidenceRefs: event.evidenceRefs })),
    },
  });
}

function pipelineEnv(
  deps: PipelineDeps,
  request: PipelineRequest,
  stage: { policy: PipelineEnv['policy']; base: { baseRef: string } },
  agentBranch: string,
  syntax: TreeSyntaxService,
): PipelineEnv {
  const { attempt } = request;
  const followUp = attempt.attemptRequest?.followUp;
  return {
    store: deps.store,
    clock: deps.clock,
    logger: deps.logger,
    syntax,
    ciStatus: deps.ciStatus,
    verifier: deps.verifier,
    model: deps.model,
    prices: deps.prices,
    deadline: deps.deadline,
    reporter: deps.reporter,
    identity: deps.identity,
    keys: request.keys,
    attempt: attempt.attempt,
    createdAt: attempt.createdAt,
    approvedGates: attempt.attemptRequest?.approvedGates ?? [],
    approvedPlan: attempt.attemptRequest?.approvedPlan,
    request: attempt.request,
    policy: stage.policy,
    // A follow-up ingests the agent branch head as its parent; the pull request's base is unchanged.
    baseRef: followUp ? `refs/heads/${followUp.onto.baseBranch}` : stage.base.baseRef,
    followUp,
    agentBranch,
    taskId: request.taskId,
    owner: request.owner,
    repo: request.repo,
  };
}

/** The phases the command goes through (intake and discovery only, unless it is `run`) under the orchestrator. */
async function runPhases(
  deps: PipelineDeps,
  request: PipelineRequest,
  env: PipelineEnv,
  ingested: IngestResult,
  artifactList: ArtifactList,
): Promise<OrchestratorResult> {
  const all: PhaseHandler[] = [
    intakePhase(env),
    discoveryPhase(env),
    planningPhase(env),
    baselinePhase(env),
    changePhase(env),
    repairPhase(env),
    verificationPhase(env),
    reviewPhase(env),
    judgePhase(env),
    preparePhase(env, artifactList),
  ];
  let writable: { plan: unknown; paths: Set<string> } | undefined;
  return runOrchestrator({
    runId: request.attempt.request.runId,
    attempt: request.attempt.attempt,
    store: deps.store,
    attemptPrefix: request.keys.attempt(request.attempt.attempt).prefix,
    ledgerPrefix: request.keys.attempt(request.attempt.attempt).ledgerPrefix,
    workspace: new CachedWorkspace(ingested.workspace),
    handlers: request.stopAfter === 'run' ? all : all.slice(0, 2),
    patches: gitPatchCodec,
    clock: deps.clock,
    isCancelled: deps.isCancelled,
    writablePaths: (path, outputs, ledger) => {
      if (!outputs.planning) return false;
      if (writable?.plan !== outputs.planning) writable = { plan: outputs.planning, paths: plannedPaths(planOf(outputs)) };
      return writable.paths.has(path) || revisedPaths(ledger).has(path);
    },
    segmentCount: (outputs) => (outputs.planning ? planOf(outputs).segments.length : 0),
    shouldYield: deps.shouldYield,
    deadline: deps.deadline,
    reporter: deps.reporter,
  });
}

/**
 * The report of a `run`: the PR body of a prepared candidate (with its head commit), or, for an
 * analysis or a run that stopped early, a run report of what was found and why it stopped.
 */
async function collectReport(
  env: PipelineEnv,
  outcome: OrchestratorResult,
  task: TaskContract | undefined,
  artifacts: Record<string, string>,
  artifactList: ArtifactList,
): Promise<{ report?: string; head: { headCommitSha?: string; headTreeSha?: string } }> {
  const { store, keys } = env;
  if (outcome.outputs.pr_preparation) {
    const prepared = PrepareOutput.parse(outcome.outputs.pr_preparation);
    artifacts['pr-candidate.json'] = keys.candidate.prCandidate;
    artifacts['pr-body.md'] = keys.candidate.prBody;
    artifacts['diff-summary.json'] = keys.candidate.diffSummary;
    const body = await store.get(keys.candidate.prBody);
    return {
      report: body ? new TextDecoder().decode(body.body) : undefined,
      head: { headCommitSha: prepared.headCommitSha, headTreeSha: prepared.headTreeSha },
    };
  }
  if (!task) return { head: {} };
  if (isAnalysisRun(task, outcome.outputs)) {
    const analysis = await storeAnalysisReport(env, task, outcome.outputs, {
      status: outcome.state,
      baseCommitSha: outcome.checkpoints[0]?.baseCommitSha,
      artifacts: artifactList(),
    });
    artifacts['run-report.md'] = analysis.key;
    return { report: analysis.report, head: {} };
  }
  const built = buildRunReport(env, task, outcome.outputs, outcome.checkpoints, {
    status: outcome.state,
    artifacts: artifactList(),
    ledger: outcome.ledger.entries(),
  });
  built.budget.spend = await taskSpend(env);
  const report = renderRunReport(built);
  const reportKey = `${keys.attempt(env.attempt).prefix}run-report.md`;
  await store.put(reportKey, report, { contentType: 'text/markdown; charset=utf-8' });
  artifacts['run-report.md'] = reportKey;
  return { report, head: {} };
}

function hasWarnings(outputs: Partial<Record<PhaseName, unknown>>): boolean {
  const discovery = outputs.discovery as { warnings?: unknown[] } | undefined;
  return Boolean(discovery?.warnings?.length);
}
