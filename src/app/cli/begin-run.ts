import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArtifact, readArtifact, readArtifactIfPresent } from '../../core/artifacts/artifact-io.js';
import { runKeys, type RunKeys } from '../../core/artifacts/keys.js';
import { agentBranchName } from '../../core/git/branch-name.js';
import type { Logger } from '../../core/ports.js';
import type { RepoSource } from '../../core/ingestion/repo-source.js';
import { beginAttempt, latestAttempt, type AttemptStart } from '../../core/runs/attempts.js';
import { PLAN_APPROVAL, PlanDocument, planDigest, planGateId, type ApprovedPlan } from '../../core/runs/plan-gate.js';
import { ApprovalRequest, AttemptRequest, type RunRequest } from '../../core/runs/run-request.js';
import { parseTask } from '../../core/task/parse-task.js';
import { taskTitleOf } from '../../core/task/task-title.js';
import { sha256Hex, shortId } from '../../core/util/digest.js';
import { HttpRepoSource } from '../git/http-repo-source.js';
import { LocalRepoSource } from '../git/local-repo-source.js';
import { LocalArtifactStore } from '../local/local-artifact-store.js';
import { JsonLogger } from '../logger.js';
import type { CliIo } from './cli-io.js';
import type { StageArgs } from './stage-args.js';

/** One attempt of a CLI run, ready for the pipeline: where it reads from and where it writes. */
export interface CliRun {
  args: StageArgs;
  source: RepoSource;
  store: LocalArtifactStore;
  keys: RunKeys;
  runId: string;
  attempt: AttemptStart;
  logger: Logger;
  /** The log file and how many lines the run wrote to it (absent with --verbose: logs on stderr). */
  logFile?: { path: string; written: number };
}

/**
 * The run's identity and its next attempt. The same command again is the next attempt of the
 * same run; the identity is the source, the base commit, the task digest, and the --paths and
 * --ref that shape it (two refs naming one commit still target different base branches).
 */
export async function beginRun(args: StageArgs, io: CliIo): Promise<CliRun> {
  const { identity } = args;
  const log = logSinkOf(args, io);
  const logger =
    io.logger ??
    new JsonLogger({
      sink: log.sink,
      level: args.verbose ? 'info' : 'warn',
      clock: io.clock,
      secrets: io.env.DRAFTSMAN_GIT_TOKEN ? [io.env.DRAFTSMAN_GIT_TOKEN] : [],
    });
  const source: RepoSource = args.isUrl
    ? new HttpRepoSource({ url: args.location, identity, token: async () => io.env.DRAFTSMAN_GIT_TOKEN })
    : new LocalRepoSource(args.location);
  const resolved = await source.resolveRef(args.ref);
  // A task that is only an ```agent block has no title of its own; the PR text describes its steps.
  const title = taskTitleOf(args.taskText) || (args.taskText.trim() ? '' : `${args.command} ${identity.repo}`);
  const shaping = [...(args.paths ? ['paths', ...args.paths] : []), ...(args.ref ? ['ref', args.ref] : [])];
  const runId =
    args.runId ??
    shortId(
      `${identity.owner}/${identity.repo}`,
      resolved?.sha ?? args.ref ?? 'HEAD',
      args.command === 'run' || args.command === 'targets' ? taskDigestOf(args, title) : args.command,
      ...shaping,
    );
  const keys = runKeys(identity.owner, identity.repo, runId);
  const store = new LocalArtifactStore(args.out);
  const now = new Date(io.clock.now()).toISOString();
  const request: RunRequest = {
    schemaVersion: 1,
    runId,
    owner: identity.owner,
    repo: identity.repo,
    source: { kind: args.isUrl ? 'url' : 'local', location: args.isUrl ? new URL(args.location).toString() : args.location },
    trigger: { kind: 'cli', key: `cli-${args.command}` },
    task: { title, body: args.taskText },
    baseRef: args.ref,
    paths: args.paths,
    ...(args.mode ? { forcedMode: args.mode } : {}),
    agentBranch: agentBranchName({ runId }),
    createdAt: now,
  };
  const attempt = await beginAttempt(store, keys, request, await nextAttemptOf(args, store, keys, now));
  return { args, source, store, keys, runId, attempt, logger, logFile: log.file };
}

/**
 * Where the run's JSON log lines go: stderr with `--verbose`; else appended to `<out>/draftsman.log`
 * (`logFile.written` says whether any was), so the terminal shows sentences, not JSON.
 */
function logSinkOf(args: StageArgs, io: CliIo): { sink: (line: string) => void; file?: CliRun['logFile'] } {
  if (args.verbose) return { sink: (line) => io.stderr(`${line}\n`) };
  const file = { path: join(args.out, 'draftsman.log'), written: 0 };
  return {
    file,
    sink: (line) => {
      mkdirSync(args.out, { recursive: true });
      appendFileSync(file.path, `${line}\n`);
      file.written++;
    },
  };
}

/** The task's identity: its parsed digest, or the text's digest when it does not parse (intake reports why). */
function taskDigestOf(args: StageArgs, title: string): string {
  if (!args.taskText) return sha256Hex(args.mode ? `mode:${args.mode}` : args.taskText);
  try {
    return parseTask({ title, body: args.taskText, source: 'cli', bodyName: args.taskFile ?? 'task', forcedMode: args.mode }).digest;
  } catch {
    return sha256Hex(args.taskText);
  }
}

/** Why the next attempt exists and, with `--approve`, what it may pass. */
async function nextAttemptOf(args: StageArgs, store: LocalArtifactStore, keys: RunKeys, createdAt: string): Promise<Parameters<typeof beginAttempt>[3]> {
  if (!args.approve) return { reason: 'cli', approvedGates: [], createdAt };
  const approved = await pendingApproval(store, keys);
  return { reason: 'approve', approvedGates: approved.gates, ...(approved.plan ? { approvedPlan: approved.plan } : {}), createdAt };
}

/**
 * What `--approve` passes: the gates the run's attempts stopped at, and the plan the run is held
 * to. A plan gate's id and files come from the stored `plan.json` (its digest), not from the
 * approval request; a plan approved before is carried from the latest attempt's request.
 */
async function pendingApproval(store: LocalArtifactStore, keys: RunKeys): Promise<{ gates: string[]; plan?: ApprovedPlan }> {
  const gates: string[] = [];
  let plan: ApprovedPlan | undefined;
  for (const key of await store.list(`${keys.prefix}attempts/`)) {
    if (!key.endsWith('/approval-request.json')) continue;
    const asked = await readArtifact(store, key, ApprovalRequest);
    if (asked.reason !== PLAN_APPROVAL) {
      gates.push(asked.gateId);
      continue;
    }
    const planKey = key.replace(/approval-request\.json$/, 'plan.json');
    const stored = await store.get(planKey);
    if (!stored) continue;
    const digest = planDigest(stored.body);
    gates.push(planGateId(digest));
    plan = { digest, files: parseArtifact(planKey, PlanDocument, stored.body).files };
  }
  const latest = await latestAttempt(store, keys);
  const carried = latest >= 2 ? (await readArtifactIfPresent(store, keys.attempt(latest).request, AttemptRequest))?.approvedPlan : undefined;
  return { gates: [...new Set(gates)], plan: carried ?? plan };
}
