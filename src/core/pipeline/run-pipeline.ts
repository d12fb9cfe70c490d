import { readArtifactIfPresent, writeArtifact } from '../artifacts/artifact-io.js';
import type { RunKeys } from '../artifacts/keys.js';
import { AgentError, IngestionError } from '../errors.js';
import { agentBranchName } from '../git/branch-name.js';
import { createAgentBranch } from '../git/create-agent-branch.js';
import type { GitIdentity } from '../git/commit-staged.js';
import { VirtualIndex } from '../git/virtual-index.js';
import { BaseRefArtifact, IngestionArtifact, PolicyScanArtifact } from '../ingestion/artifacts.js';
import { ingestRepository } from '../ingestion/ingest-repository.js';
import type { IngestionPolicy } from '../ingestion/ingestion-policy.js';
import { Ledger } from '../phases/ledger.js';
import { runOrchestrator, type OrchestratorResult, type PhaseHandler } from '../phases/orchestrator.js';
import type { PhaseName } from '../phases/phase-contracts.js';
import { renderRunReport } from '../phases/run-report.js';
import type { AgentPolicy } from '../policy/agent-policy.js';
import { parsePolicy } from '../policy/parse-policy.js';
import { PolicyError } from '../policy/policy-error.js';
import type { ArtifactStore, CiStatusReader, Clock, FsLike, Logger, ModelProvider, RepoSource, RunReporter } from '../ports.js';
import type { AttemptStart } from '../runs/attempts.js';
import { RunRecord } from '../runs/run-request.js';
import type { RunStatus } from '../runs/run-status.js';
import type { TreeSyntaxService } from '../syntax/create-syntax-service.js';
import { parseTask } from '../task/parse-task.js';
import type { TaskContract } from '../task/task-contract.js';
import { buildRunReport } from './build-run-report.js';
import { gitPatchCodec } from './patch-codec.js';
import type { PipelineEnv } from './pipeline-env.js';
import { baselinePhase } from './phases/baseline-phase.js';
import { changePhase } from './phases/change-phase.js';
import { discoveryPhase } from './phases/discovery-phase.js';
import { intakePhase, taskOf } from './phases/intake-phase.js';
import { judgePhase } from './phases/judge-phase.js';
import { planOf, planningPhase } from './phases/planning-phase.js';
import { preparePhase, PrepareOutput } from './phases/prepare-phase.js';
import { repairPhase } from './phases/repair-phase.js';
import { reviewPhase } from './phases/review-phase.js';
import { verificationPhase } from './phases/verification-phase.js';

export interface PipelineDeps {
  store: ArtifactStore;
  source: RepoSource;
  /** An empty file system that receives the object store (memfs); nothing of the repository touches the disk. */
  fs: FsLike;
  clock: Clock;
  logger: Logger;
  syntax: TreeSyntaxService;
  ciStatus: CiStatusReader;
  model?: ModelProvider;
  reporter?: RunReporter;
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
}

const GITDIR = '/repo/.git';
const POLICY_FILE = '.agent-policy.yaml';

/**
 * One attempt of a run: ingestion (base pinned first), the trusted policy, the agent branch,
 * then the phases under the orchestrator (resumed from the attempt's checkpoints when there are
 * any), then `run.json`. Every artifact goes through the ArtifactStore under DESIGN §4 keys.
 */
export async function runPipeline(deps: PipelineDeps, request: PipelineRequest): Promise<PipelineResult> {
  const { store, clock, logger } = deps;
  const { keys, attempt } = request;
  const attemptKeys = keys.attempt(attempt.attempt);
  const agentBranch = agentBranchName({ runId: attempt.request.runId, issue: attempt.request.issue?.number });
  const artifacts: Record<string, string> = {};
  const snapshot = attempt.request;

  // The base ref comes from the request, else the task block's `base:`, else HEAD.
  const preTask = safeParseTask(snapshot);
  const baseRefWanted = snapshot.baseRef ?? preTask?.base;

  let policy: AgentPolicy | undefined;
  try {
    if (request.policy !== 'from-base') policy = parsePolicy({ text: request.policy.text, file: request.policy.file });
  } catch (error) {
    if (error instanceof PolicyError) return finish(deps, request, { status: 'BLOCKED', reason: error.reason, details: { problems: error.data.problems }, agentBranch, artifacts });
    throw error;
  }

  const scoped = Boolean(snapshot.paths ?? preTask?.paths);
  let ingested;
  try {
    ingested = await ingestRepository({
      source: deps.source,
      fs: deps.fs,
      gitdir: GITDIR,
      ref: baseRefWanted,
      paths: snapshot.paths ?? preTask?.paths,
      policy: ingestionPolicy(policy ?? parsePolicy({ text: undefined }), scoped),
      // CLI default: the base commit's own policy decides the scan (a broken one stops here).
      resolvePolicy: policy
        ? undefined
        : async (read) => {
            policy = parsePolicy({ text: await read(POLICY_FILE), file: POLICY_FILE });
            return ingestionPolicy(policy, scoped);
          },
      clock,
      logger,
    });
  } catch (error) {
    if (error instanceof PolicyError) return finish(deps, request, { status: 'BLOCKED', reason: error.reason, details: { problems: error.data.problems }, agentBranch, artifacts });
    if (!(error instanceof IngestionError)) throw error;
    const report = error.data.report;
    if (report) {
      await writeArtifact(store, attemptKeys.ingestion, IngestionArtifact, report as IngestionArtifact);
      artifacts['ingestion.json'] = attemptKeys.ingestion;
    }
    if (error.data.policyScan) {
      await writeArtifact(store, attemptKeys.policyScan, PolicyScanArtifact, error.data.policyScan as PolicyScanArtifact);
      artifacts['policy-scan.json'] = attemptKeys.policyScan;
    }
    const status: RunStatus = (report as IngestionArtifact | undefined)?.status === 'BLOCKED' ? 'BLOCKED' : 'FAILED';
    const failed = report as IngestionArtifact | undefined;
    // The ref as resolved (e.g. refs/heads/main for HEAD) when ingestion got that far.
    return finish(deps, request, { status, reason: error.reason, details: stripReport(error.data), agentBranch, artifacts, baseRef: failed?.baseRef ?? baseRefWanted, baseCommitSha: failed?.baseCommitSha ?? undefined });
  }
  await writeArtifact(store, attemptKeys.baseRef, BaseRefArtifact, ingested.baseRef);
  await writeArtifact(store, attemptKeys.ingestion, IngestionArtifact, ingested.report);
  await writeArtifact(store, attemptKeys.policyScan, PolicyScanArtifact, ingested.policyScan);
  Object.assign(artifacts, { 'base-ref.json': attemptKeys.baseRef, 'ingestion.json': attemptKeys.ingestion, 'policy-scan.json': attemptKeys.policyScan });
  const workspace = ingested.workspace;
  const base = { baseRef: ingested.baseRef.baseRef, baseCommitSha: ingested.baseRef.baseCommitSha };

  if (!policy) throw new Error('the policy was not resolved during ingestion');
  if (request.stopAfter === 'ingest') {
    return finish(deps, request, { status: ingested.status, agentBranch, artifacts, ...base, details: ingested.warnings.length ? { warnings: ingested.warnings } : undefined });
  }

  // The agent branch at the recorded base, before any change (the workspace is clean here).
  const ledger = await Ledger.open(store, attemptKeys.ledgerPrefix, clock);
  await createAgentBranch({
    workspace,
    index: await VirtualIndex.fromCommit(workspace.fs, workspace.gitdir, workspace.baseCommitSha),
    branch: agentBranch,
    runId: snapshot.runId,
    ingestionBaseSha: ingested.baseRef.baseCommitSha,
    ledger: { append: async (event) => void (await ledger.append({ actor: event.actor, type: event.type, payload: event.payload, evidenceRefs: event.evidenceRefs })) },
  });

  const env: PipelineEnv = {
    store,
    clock,
    logger,
    syntax: deps.syntax,
    ciStatus: deps.ciStatus,
    model: deps.model,
    reporter: deps.reporter,
    identity: deps.identity,
    keys,
    attempt: attempt.attempt,
    createdAt: attempt.createdAt,
    approvedGates: attempt.attemptRequest?.approvedGates ?? [],
    request: snapshot,
    policy,
    baseRef: ingested.baseRef.baseRef,
    agentBranch,
    taskId: request.taskId,
    owner: request.owner,
    repo: request.repo,
  };
  const artifactList = () => Object.entries(artifacts).map(([name, url]) => ({ name, url }));
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
  const handlers = request.stopAfter === 'run' ? all : all.slice(0, 2);
  let writable: { plan: unknown; paths: Set<string> } | undefined;
  const outcome: OrchestratorResult = await runOrchestrator({
    runId: snapshot.runId,
    attempt: attempt.attempt,
    store,
    attemptPrefix: attemptKeys.prefix,
    workspace,
    handlers,
    patches: gitPatchCodec,
    clock,
    isCancelled: deps.isCancelled,
    writablePaths: (path, outputs) => {
      if (!outputs.planning) return false;
      if (writable?.plan !== outputs.planning) writable = { plan: outputs.planning, paths: new Set(planOf(outputs).segments.flatMap((s) => s.paths)) };
      return writable.paths.has(path);
    },
    shouldYield: deps.shouldYield,
    reporter: deps.reporter,
  });

  const outputs = outcome.outputs;
  if (outputs.discovery) {
    artifacts['repo-map.json'] = attemptKeys.repoMap;
    artifacts['target-selection.json'] = attemptKeys.targetSelection;
  }
  if (outcome.state === 'SUSPENDED') return { status: 'SUSPENDED', reason: outcome.reason, agentBranch, artifacts, ...base };
  const task = outputs.intake ? taskOf(outputs) : undefined;

  if (request.stopAfter !== 'run') {
    const status: RunStatus = outcome.state === 'COMPLETED' ? (hasWarnings(outputs) ? 'READY_WITH_WARNINGS' : 'READY') : (outcome.state as RunStatus);
    return finish(deps, request, { status, reason: outcome.reason, details: outcome.details, agentBranch, artifacts, task, ...base });
  }

  let report: string | undefined;
  let head: { headCommitSha?: string; headTreeSha?: string } = {};
  if (outputs.pr_preparation) {
    const prepared = PrepareOutput.parse(outputs.pr_preparation);
    head = { headCommitSha: prepared.headCommitSha, headTreeSha: prepared.headTreeSha };
    artifacts['pr-candidate.json'] = keys.candidate.prCandidate;
    artifacts['pr-body.md'] = keys.candidate.prBody;
    artifacts['diff-summary.json'] = keys.candidate.diffSummary;
    const body = await store.get(keys.candidate.prBody);
    report = body ? new TextDecoder().decode(body.body) : undefined;
  } else if (task) {
    // Analysis, or a run that stopped early: the report says what was found and why it stopped.
    const status = outcome.state === 'COMPLETED' ? 'COMPLETED' : outcome.state;
    report = renderRunReport(buildRunReport(env, task, outputs, outcome.checkpoints, { status, artifacts: artifactList() }));
    const reportKey = `${attemptKeys.prefix}run-report.md`;
    await store.put(reportKey, report, { contentType: 'text/markdown; charset=utf-8' });
    artifacts['run-report.md'] = reportKey;
  }
  if (outcome.state === 'NEEDS_APPROVAL') artifacts['approval-request.json'] = attemptKeys.approvalRequest;
  artifacts['ledger/'] = attemptKeys.ledgerPrefix;
  artifacts['checkpoints/'] = attemptKeys.checkpointsPrefix;
  return finish(deps, request, {
    status: outcome.state as RunStatus,
    reason: outcome.reason === 'ANALYSIS_ONLY' ? 'ANALYSIS_ONLY' : outcome.reason,
    details: outcome.details,
    agentBranch,
    artifacts,
    report,
    task,
    ...base,
    ...head,
  });
}

/** Write run.json (status, attempts) and return the result. */
async function finish(deps: PipelineDeps, request: PipelineRequest, result: PipelineResult): Promise<PipelineResult> {
  const { store, clock } = deps;
  const key = request.keys.run;
  const now = new Date(clock.now()).toISOString();
  const previous = await readArtifactIfPresent(store, key, RunRecord).catch(() => undefined);
  const attempts = (previous?.attempts ?? []).filter((a) => a.n !== request.attempt.attempt);
  attempts.push({ n: request.attempt.attempt, status: result.status, reason: result.reason, startedAt: request.attempt.createdAt, endedAt: now });
  attempts.sort((a, b) => a.n - b.n);
  const gate = result.status === 'NEEDS_APPROVAL' ? (result.details?.gateId as string | undefined) : undefined;
  await writeArtifact(store, key, RunRecord, {
    schemaVersion: 1,
    runId: request.attempt.request.runId,
    status: result.status,
    reason: result.reason,
    attempt: request.attempt.attempt,
    attempts,
    baseCommitSha: result.baseCommitSha,
    headCommitSha: result.headCommitSha,
    headTreeSha: result.headTreeSha,
    agentBranch: result.agentBranch,
    progressCommentId: request.attempt.request.issue?.progressCommentId,
    pendingGate: gate,
    pullRequest: previous?.pullRequest,
    updatedAt: now,
  });
  result.artifacts['run.json'] = key;
  deps.logger.info('run attempt finished', { runId: request.attempt.request.runId, attempt: request.attempt.attempt, status: result.status, reason: result.reason });
  await deps.reporter
    ?.report({
      runId: request.attempt.request.runId,
      attempt: request.attempt.attempt,
      status: result.status,
      phases: [],
      baseCommitSha: result.baseCommitSha,
      message: result.reason ? nextStep(result.status, result.reason) : undefined,
      artifacts: Object.fromEntries(Object.entries(result.artifacts).map(([k, v]) => [k, v])),
    })
    .catch((error: unknown) => deps.logger.warn('progress report failed', { error: error instanceof Error ? error.message : String(error) }));
  return result;
}

function nextStep(status: PipelineStatus, reason: string): string {
  switch (status) {
    case 'NEEDS_APPROVAL':
      return `${reason}: see approval-request.json; \`/agent approve\` lets the next attempt pass this gate`;
    case 'BUDGET_EXCEEDED':
      return `${reason}: narrow the task (paths, steps) or raise the budgets, then \`/agent retry\``;
    case 'BLOCKED':
      return `${reason}: the policy refused this; fix the task or the policy, then \`/agent retry\``;
    case 'FAILED':
      return `${reason}: see the ledger and checkpoints; \`/agent retry\` starts a new attempt`;
    default:
      return reason;
  }
}

/** The ingestion limits of the policy; a missing scoped path is an error only when a scope was given. */
export function ingestionPolicy(policy: AgentPolicy, scoped: boolean): IngestionPolicy {
  const i = policy.ingestion;
  return {
    allowSubmodules: i.allowSubmodules,
    allowLfs: i.allowLfs,
    maxRepoSizeMb: i.maxRepoSizeMb,
    maxFileSizeMb: i.maxFileSizeMb,
    maxFileCount: i.maxFileCount,
    maxPathDepth: i.maxPathDepth,
    maxPathLength: i.maxPathLength,
    forbiddenPaths: policy.agent.forbiddenPaths,
    scopeMissing: scoped ? 'error' : 'warn',
  };
}

function safeParseTask(snapshot: AttemptStart['request']): TaskContract | undefined {
  const text = snapshot.issue ?? snapshot.task;
  if (!text) return undefined;
  try {
    return parseTask({ title: text.title, body: text.body, comment: snapshot.comment?.body, forcedMode: snapshot.forcedMode, source: snapshot.issue ? 'github' : 'cli' });
  } catch (error) {
    if (error instanceof AgentError) return undefined;
    throw error;
  }
}

function hasWarnings(outputs: Partial<Record<PhaseName, unknown>>): boolean {
  const discovery = outputs.discovery as { warnings?: unknown[] } | undefined;
  return Boolean(discovery?.warnings?.length);
}

function stripReport(data: Record<string, unknown>): Record<string, unknown> {
  const { report: _r, policyScan: _p, ...rest } = data;
  return rest;
}
