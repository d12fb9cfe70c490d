import { writeArtifact } from '../artifacts/artifact-io.js';
import { AgentError, IngestionError } from '../errors.js';
import { BaseRefArtifact, IngestionArtifact, PolicyScanArtifact } from '../ingestion/artifacts.js';
import { ingestRepository, type IngestResult } from '../ingestion/ingest-repository.js';
import type { IngestionPolicy } from '../ingestion/ingestion-policy.js';
import type { AgentPolicy } from '../policy/agent-policy.js';
import { parsePolicy } from '../policy/parse-policy.js';
import { PolicyError } from '../policy/policy-error.js';
import type { AttemptStart } from '../runs/attempts.js';
import type { RunStatus } from '../runs/run-status.js';
import { taskFromSnapshot } from '../runs/snapshot-task.js';
import type { TaskContract } from '../task/task-contract.js';
import type { PipelineDeps, PipelineRequest, PipelineResult } from './run-pipeline.js';

const GITDIR = '/repo/.git';
const POLICY_FILE = '.agent-policy.yaml';

/** A result that ends the attempt during ingestion (the caller adds the branch and artifacts). */
type EndedResult = Omit<PipelineResult, 'agentBranch' | 'artifacts' | 'status'> & { status: RunStatus };

/** How ingestion ended: the snapshot and the trusted policy, or a result that ends the attempt here. */
export type IngestStageOutcome = { ingested: IngestResult; policy: AgentPolicy; base: { baseRef: string; baseCommitSha: string } } | { ended: EndedResult };

/**
 * Ingestion of one attempt: the trusted policy (given, or read from the base commit), the base
 * pinned, the snapshot scanned, and its artifacts (base-ref, ingestion, policy-scan) written and
 * named in `artifacts`. A policy or ingestion refusal ends the attempt with its report kept.
 */
export async function ingestStage(deps: PipelineDeps, request: PipelineRequest, artifacts: Record<string, string>): Promise<IngestStageOutcome> {
  const snapshot = request.attempt.request;
  // The base ref comes from the request, else the task block's `base:`, else HEAD.
  const preTask = safeParseTask(snapshot);
  // A follow-up (revision, CI repair) builds on the agent branch head, human commits included;
  // the policy still comes from the trusted default branch (or is given).
  const onto = request.attempt.attemptRequest?.followUp?.onto;
  const baseRefWanted = onto ? `refs/heads/${onto.branch}` : (snapshot.baseRef ?? preTask?.base);
  let outcome: { ingested: IngestResult; policy?: AgentPolicy };
  try {
    outcome = await ingestWithPolicy(deps, request, preTask, baseRefWanted);
  } catch (error) {
    if (error instanceof PolicyError) return { ended: { status: 'BLOCKED', reason: error.reason, details: { problems: error.data.problems } } };
    if (!(error instanceof IngestionError)) throw error;
    return { ended: await keepFailedReport(deps, request, error, artifacts, baseRefWanted) };
  }
  const { ingested, policy } = outcome;
  await keepIngestionArtifacts(deps, request, ingested, artifacts);
  if (!policy) throw new Error('the policy was not resolved during ingestion');
  const files = ingested.report.scan ? { count: ingested.report.scan.fileCount, of: 'snapshot' as const } : undefined;
  deps.reporter?.phase?.({
    phase: 'ingestion',
    state: 'done',
    summary: `${ingested.baseRef.baseRef} at ${ingested.baseRef.baseCommitSha.slice(0, 12)}`,
    files,
    elapsedMs: ingested.report.durationMs,
  });
  return { ingested, policy, base: { baseRef: ingested.baseRef.baseRef, baseCommitSha: ingested.baseRef.baseCommitSha } };
}

/**
 * The snapshot and the policy that governed its scan: the given one, or (CLI default) the base
 * commit's own, read during ingestion (a broken one stops here). Throws PolicyError or IngestionError.
 */
async function ingestWithPolicy(
  deps: PipelineDeps,
  request: PipelineRequest,
  preTask: TaskContract | undefined,
  ref: string | undefined,
): Promise<{ ingested: IngestResult; policy?: AgentPolicy }> {
  const snapshot = request.attempt.request;
  const scoped = Boolean(snapshot.paths ?? preTask?.paths);
  let policy: AgentPolicy | undefined;
  if (request.policy !== 'from-base') policy = parsePolicy({ text: request.policy.text, file: request.policy.file });
  deps.reporter?.phase?.({ phase: 'ingestion', state: 'running' });
  deps.ingestionMemory?.enter();
  try {
    const ingested = await ingestRepository({
      source: deps.source,
      fs: deps.fs,
      gitdir: GITDIR,
      ref,
      paths: snapshot.paths ?? preTask?.paths,
      stepPaths: preTask?.steps.flatMap((s) => s.paths ?? []),
      taskText: taskText(snapshot),
      policy: ingestionPolicy(policy ?? parsePolicy({ text: undefined }), scoped),
      resolvePolicy: policy
        ? undefined
        : async (read) => {
            policy = parsePolicy({ text: await read(POLICY_FILE), file: POLICY_FILE });
            return ingestionPolicy(policy, scoped);
          },
      clock: deps.clock,
      logger: deps.logger,
    });
    return { ingested, policy };
  } finally {
    deps.ingestionMemory?.leave();
  }
}

/** The base-ref, ingestion and policy-scan artifacts of a finished ingestion, written and named. */
async function keepIngestionArtifacts(deps: PipelineDeps, request: PipelineRequest, ingested: IngestResult, artifacts: Record<string, string>): Promise<void> {
  const attemptKeys = request.keys.attempt(request.attempt.attempt);
  await writeArtifact(deps.store, attemptKeys.baseRef, BaseRefArtifact, ingested.baseRef);
  await writeArtifact(deps.store, attemptKeys.ingestion, IngestionArtifact, ingested.report);
  await writeArtifact(deps.store, attemptKeys.policyScan, PolicyScanArtifact, ingested.policyScan);
  Object.assign(artifacts, { 'base-ref.json': attemptKeys.baseRef, 'ingestion.json': attemptKeys.ingestion, 'policy-scan.json': attemptKeys.policyScan });
}

/** A refused ingestion: its report and policy scan are kept as artifacts, and the attempt ends FAILED or BLOCKED. */
async function keepFailedReport(
  deps: PipelineDeps,
  request: PipelineRequest,
  error: IngestionError,
  artifacts: Record<string, string>,
  baseRefWanted: string | undefined,
): Promise<EndedResult> {
  const attemptKeys = request.keys.attempt(request.attempt.attempt);
  const report = error.data.report as IngestionArtifact | undefined;
  if (report) {
    await writeArtifact(deps.store, attemptKeys.ingestion, IngestionArtifact, report);
    artifacts['ingestion.json'] = attemptKeys.ingestion;
  }
  if (error.data.policyScan) {
    await writeArtifact(deps.store, attemptKeys.policyScan, PolicyScanArtifact, error.data.policyScan as PolicyScanArtifact);
    artifacts['policy-scan.json'] = attemptKeys.policyScan;
  }
  const status: RunStatus = report?.status === 'BLOCKED' ? 'BLOCKED' : 'FAILED';
  deps.reporter?.phase?.({ phase: 'ingestion', state: status === 'BLOCKED' ? 'blocked' : 'failed', summary: error.reason, elapsedMs: report?.durationMs });
  const { report: _r, policyScan: _p, ...details } = error.data;
  // The ref as resolved (e.g. refs/heads/main for HEAD) when ingestion got that far.
  return { status, reason: error.reason, details, baseRef: report?.baseRef ?? baseRefWanted, baseCommitSha: report?.baseCommitSha ?? undefined };
}

/** The ingestion limits of the policy; a missing scoped path is an error only when a scope was given. */
export function ingestionPolicy(policy: AgentPolicy, scoped: boolean): IngestionPolicy {
  const i = policy.ingestion;
  return {
    submodules: i.allowSubmodules === false ? 'block' : i.submodules,
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

/** The words the clone plan reads for history triggers: title, body and the triggering comment. */
function taskText(snapshot: AttemptStart['request']): string {
  const text = snapshot.issue ?? snapshot.task;
  return [text?.title, text?.body, snapshot.comment?.body].filter((t): t is string => typeof t === 'string').join('\n');
}

function safeParseTask(snapshot: AttemptStart['request']): TaskContract | undefined {
  if (!snapshot.issue && !snapshot.task) return undefined;
  try {
    return taskFromSnapshot(snapshot);
  } catch (error) {
    if (error instanceof AgentError) return undefined;
    throw error;
  }
}
