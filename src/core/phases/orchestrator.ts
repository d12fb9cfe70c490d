import { z } from 'zod';
import type { Deadline } from '../budget/budget.js';
import { AgentError, isSuspension, isTransientFault } from '../errors.js';
import type { ArtifactStore, Clock, PhaseProgress, RunReporter } from '../ports.js';
import { canonicalJson, sha256Hex } from '../util/digest.js';
import type { Workspace } from '../workspace/workspace.js';
import { Ledger, seqLabel, type LedgerEntry } from './ledger.js';
import { PHASE_CONTRACTS, PHASE_NAMES, phaseStepBudget, type PhaseName } from './phase-contracts.js';
import { PhaseContractError, PhaseRuntime } from './phase-runtime.js';

export const TERMINAL_STATES = ['COMPLETED', 'BLOCKED', 'NEEDS_APPROVAL', 'BUDGET_EXCEEDED', 'FAILED', 'CANCELLED'] as const;
export type TerminalState = (typeof TERMINAL_STATES)[number];

/** Turns workspace changes into a patch and back (the git boundary provides it). */
export interface PatchCodec {
  /** A unified patch from `before` to the workspace's current view for `paths`; empty when nothing changed. */
  create(workspace: Workspace, before: ReadonlyMap<string, FileSnapshot | null>, paths: string[]): Promise<string>;
  /** Apply a patch made by `create` onto the workspace; throws when it does not apply exactly. */
  apply(workspace: Workspace, patch: string): Promise<void>;
}

export interface FileSnapshot {
  content: Uint8Array;
  mode: string;
}

export const Checkpoint = z.object({
  schemaVersion: z.literal(1),
  runId: z.string(),
  attempt: z.number().int().positive(),
  seq: z.number().int().nonnegative(),
  phase: z.enum(PHASE_NAMES),
  baseCommitSha: z.string(),
  /** Digest of the workspace's changes after this phase (paths, modes, content digests). */
  diffHash: z.string(),
  summary: z.string(),
  evidenceRefs: z.array(z.string()),
  decisions: z.array(z.string()),
  risks: z.array(z.string()),
  nextPhase: z.enum(PHASE_NAMES).nullable(),
  /** Patch-stack keys that rebuild the workspace as it was after this phase, in order. */
  patches: z.array(z.string()),
  /** The phase's serialisable output, handed to later phases (also after a resume). */
  output: z.unknown(),
  stepsUsed: z.number().int().nonnegative(),
  /** When the phase started in the invocation that completed it (its wall clock is completedAt - startedAt). */
  startedAt: z.string().optional(),
  completedAt: z.string(),
});
export type Checkpoint = z.infer<typeof Checkpoint>;

export interface PhaseOutcome {
  output: unknown;
  summary: string;
  decisions?: string[];
  risks?: string[];
  evidenceRefs?: string[];
  /** Stop the run after this phase's checkpoint with a terminal state. */
  stop?: { state: TerminalState; reason: string; details?: Record<string, unknown> };
}

export interface PhaseContext {
  phase: PhaseName;
  runtime: PhaseRuntime;
  /** The workspace as the phase contract allows it to be used. */
  workspace: Workspace;
  ledger: Ledger;
  /** Outputs of earlier phases, by name (from checkpoints after a resume). */
  outputs: Readonly<Partial<Record<PhaseName, unknown>>>;
  /** Record the changes since the last segment as one patch of the patch stack. */
  recordSegment(segment: string): Promise<string | undefined>;
  /** True when a cancel marker exists; phases check it between steps. */
  cancelled(): Promise<boolean>;
  /** The phase's wall-clock limit (from its contract) and the run's deadline, on the orchestrator's clock. */
  deadlines: readonly Deadline[];
}

export interface PhaseHandler {
  name: PhaseName;
  run(context: PhaseContext): Promise<PhaseOutcome>;
}

export interface OrchestratorOptions {
  runId: string;
  attempt: number;
  store: ArtifactStore;
  /** Key prefix of the attempt, e.g. `runs/o/r/<runId>/attempts/1/` (ending in `/`). */
  attemptPrefix: string;
  /** Where the ledger lives (the attempt's trail); default `<attemptPrefix>ledger/`. */
  ledgerPrefix?: string;
  workspace: Workspace;
  handlers: PhaseHandler[];
  patches: PatchCodec;
  clock: Clock;
  isCancelled: () => Promise<boolean>;
  /** Paths a writing phase may touch (the planned segments' files), given the outputs and the ledger so far (plan revisions). */
  writablePaths: (path: string, outputs: Readonly<Partial<Record<PhaseName, unknown>>>, ledger: readonly LedgerEntry[]) => boolean;
  /** Segments planned so far (0 before planning): per-segment step budgets grow with them. */
  segmentCount?: (outputs: Readonly<Partial<Record<PhaseName, unknown>>>) => number;
  /** Asked between phases: true means stop now and continue in another invocation. */
  shouldYield?: () => boolean;
  /**
   * No model or tool call starts at or after this time on `clock`. Between phases, running out
   * of time is `shouldYield`'s to handle (the run continues in a new invocation).
   */
  deadline?: number;
  /** Told when each phase starts and ends. */
  reporter?: RunReporter;
}

export interface OrchestratorResult {
  state: TerminalState | 'SUSPENDED';
  reason?: string;
  details?: Record<string, unknown>;
  outputs: Partial<Record<PhaseName, unknown>>;
  checkpoints: Checkpoint[];
  resumedFrom?: PhaseName;
  ledger: Ledger;
}

const encoder = new TextEncoder();

/**
 * The long-horizon orchestrator: phases in canonical order, each under its
 * contract; a checkpoint after each; the patch stack after each segment. A resumed attempt
 * rebuilds the workspace from the base commit plus the patch stack of its last checkpoint and
 * continues with the next phase, so it ends exactly where an uninterrupted run would. A phase
 * error ends the attempt (FAILED, or BLOCKED for a contract breach) unless it is a transient
 * fault, which the orchestrator throws on for the platform to retry.
 */
export async function runOrchestrator(options: OrchestratorOptions): Promise<OrchestratorResult> {
  const invokedAt = options.clock.now();
  const attempt = await openAttempt(options);
  if (options.deadline !== undefined) attempt.runDeadline = { scope: 'run', at: options.deadline, limitMs: Math.max(0, options.deadline - invokedAt) };
  const order = options.handlers.map((h) => h.name);
  const last = attempt.checkpoints[attempt.checkpoints.length - 1];
  const startIndex = last ? (last.nextPhase ? order.indexOf(last.nextPhase) : order.length) : 0;
  for (let index = startIndex; index < options.handlers.length; index++) {
    const handler = options.handlers[index];
    const interruption = await interruptionBefore(options, attempt, handler.name, index > startIndex);
    if (interruption) return interruption;
    const ended = await runPhase(options, attempt, handler, order[index + 1] ?? null);
    if (ended) return ended;
  }
  return { state: 'COMPLETED', ...resultParts(attempt) };
}

/** What one attempt has so far: its ledger, checkpoints, phase outputs and patch stack. */
interface AttemptState {
  ledger: Ledger;
  checkpoints: Checkpoint[];
  outputs: Partial<Record<PhaseName, unknown>>;
  patchKeys: string[];
  resumedFrom?: PhaseName;
  /** Snapshot of the view at the last recorded segment, for the next patch. */
  segmentBase: Map<string, FileSnapshot | null>;
  segmentSeq: number;
  /** This invocation's deadline, if it has one. */
  runDeadline?: Deadline;
}

function resultParts(attempt: AttemptState): Pick<OrchestratorResult, 'outputs' | 'checkpoints' | 'resumedFrom' | 'ledger'> {
  return { outputs: attempt.outputs, checkpoints: attempt.checkpoints, resumedFrom: attempt.resumedFrom, ledger: attempt.ledger };
}

/** The attempt's state from its checkpoints; after a crash, the workspace rebuilt from the patch stack of the last one. */
async function openAttempt(options: OrchestratorOptions): Promise<AttemptState> {
  const { store, attemptPrefix, workspace, clock } = options;
  const ledger = await Ledger.open(store, options.ledgerPrefix ?? `${attemptPrefix}ledger/`, clock);
  const checkpoints = await loadCheckpoints(store, `${attemptPrefix}checkpoints/`);
  const attempt: AttemptState = { ledger, checkpoints, outputs: {}, patchKeys: [], segmentBase: new Map(), segmentSeq: 0 };
  const last = checkpoints[checkpoints.length - 1];
  if (last) {
    workspace.reset();
    for (const key of last.patches) {
      const object = await store.get(key);
      if (!object) throw new Error(`patch stack is missing ${key}`);
      await options.patches.apply(workspace, new TextDecoder().decode(object.body));
    }
    const rebuilt = await diffHash(workspace);
    if (rebuilt !== last.diffHash) throw new Error(`resume rebuilt a different workspace than checkpoint ${last.seq} recorded`);
    for (const checkpoint of checkpoints) attempt.outputs[checkpoint.phase] = checkpoint.output;
    attempt.patchKeys = [...last.patches];
    attempt.resumedFrom = last.phase;
    await ledger.append({ actor: 'orchestrator', phase: last.phase, type: 'RESUMED', payload: { fromCheckpoint: last.seq, patches: last.patches.length } });
  }
  attempt.segmentBase = await snapshotChanges(workspace);
  attempt.segmentSeq = attempt.patchKeys.length;
  return attempt;
}

/** Between phases: a cancel marker ends the attempt CANCELLED; a request to yield (not before the first phase) SUSPENDED. */
async function interruptionBefore(
  options: OrchestratorOptions,
  attempt: AttemptState,
  phase: PhaseName,
  mayYield: boolean,
): Promise<OrchestratorResult | undefined> {
  if (await options.isCancelled()) {
    await attempt.ledger.append({ actor: 'orchestrator', phase, type: 'CANCELLED', payload: {} });
    return { state: 'CANCELLED', reason: 'a cancel marker was found between phases', ...resultParts(attempt) };
  }
  if (mayYield && options.shouldYield?.()) {
    await attempt.ledger.append({ actor: 'orchestrator', phase, type: 'SUSPENDED', payload: { nextPhase: phase } });
    return { state: 'SUSPENDED', reason: 'time is running out; continuing in a new invocation', ...resultParts(attempt) };
  }
  return undefined;
}

/** One phase under its contract, then its checkpoint; returns the result when the phase ends the attempt. */
async function runPhase(
  options: OrchestratorOptions,
  attempt: AttemptState,
  handler: PhaseHandler,
  next: PhaseName | null,
): Promise<OrchestratorResult | undefined> {
  const { workspace, clock } = options;
  const { ledger } = attempt;
  const contract = PHASE_CONTRACTS[handler.name];
  const runtime = new PhaseRuntime(
    contract,
    ledger,
    (path) => options.writablePaths(path, attempt.outputs, attempt.ledger.entries()),
    phaseStepBudget(contract, options.segmentCount?.(attempt.outputs) ?? 0),
  );
  const startedAt = clock.now();
  const progress = (state: PhaseProgress['state'], summary?: string) =>
    options.reporter?.phase?.({
      phase: handler.name,
      state,
      summary,
      files: { count: workspace.changes().length, of: 'changed' },
      elapsedMs: clock.now() - startedAt,
    });
  options.reporter?.phase?.({ phase: handler.name, state: 'running' });
  await ledger.append({ actor: 'orchestrator', phase: handler.name, type: 'PHASE_STARTED', payload: { goal: contract.goal } });

  const phaseDeadline: Deadline = { scope: 'phase', at: startedAt + contract.budgets.maxWallClockMs, limitMs: contract.budgets.maxWallClockMs };
  const context = phaseContext(options, attempt, handler.name, runtime, [phaseDeadline, ...(attempt.runDeadline ? [attempt.runDeadline] : [])]);
  let outcome: PhaseOutcome;
  try {
    outcome = await handler.run(context);
  } catch (error) {
    if (isSuspension(error)) {
      // Nothing of the phase is checkpointed: the next invocation runs it again from the last checkpoint.
      await ledger.append({ actor: 'orchestrator', phase: handler.name, type: 'SUSPENDED', payload: { nextPhase: handler.name, reason: error.reason } });
      return { state: 'SUSPENDED', reason: error.message, details: { ...error.data, code: error.reason }, ...resultParts(attempt) };
    }
    if (isTransientFault(error)) await interrupt(ledger, handler.name, error);
    const reason = error instanceof PhaseContractError ? error.reason : 'PHASE_FAILED';
    await ledger.append({ actor: 'orchestrator', phase: handler.name, type: 'PHASE_FAILED', payload: { reason, message: (error as Error).message } });
    progress('failed', (error as Error).message);
    const state: TerminalState = error instanceof PhaseContractError ? 'BLOCKED' : 'FAILED';
    return { state, reason: `${handler.name}: ${(error as Error).message}`, details: { phase: handler.name, code: reason }, ...resultParts(attempt) };
  }

  // Changes a phase left unrecorded become a segment of their own, so resume sees them.
  if (workspace.changes().length > 0 || attempt.segmentBase.size > 0) await context.recordSegment(`${handler.name}-rest`);
  attempt.outputs[handler.name] = outcome.output;
  await writeCheckpoint(options, attempt, handler.name, outcome, { stepsUsed: runtime.stepsUsed, startedAt }, outcome.stop ? null : next);

  if (outcome.stop) {
    progress(outcome.stop.state === 'COMPLETED' ? 'done' : outcome.stop.state === 'FAILED' ? 'failed' : 'blocked', outcome.summary);
    await ledger.append({
      actor: 'orchestrator',
      phase: handler.name,
      type: 'RUN_STOPPED',
      payload: { state: outcome.stop.state, reason: outcome.stop.reason },
    });
    return { state: outcome.stop.state, reason: outcome.stop.reason, details: outcome.stop.details, ...resultParts(attempt) };
  }
  progress('done', outcome.summary);
  return undefined;
}

/**
 * A transient fault inside a phase (docs/architecture.md, "Transient faults") does not end the
 * attempt: it is ledgered where the store lets it be, and thrown on, so that the invocation fails,
 * the platform retries it and the retry resumes from the last checkpoint.
 */
async function interrupt(ledger: Ledger, phase: PhaseName, error: unknown): Promise<never> {
  const reason = error instanceof AgentError ? error.reason : 'TRANSIENT_FAULT';
  const message = error instanceof Error ? error.message : String(error);
  await ledger.append({ actor: 'orchestrator', phase, type: 'PHASE_INTERRUPTED', payload: { reason, message } }).catch(() => undefined);
  throw error;
}

/** What a phase handler sees: the guarded workspace, the ledger, earlier outputs, and the patch stack recorder. */
function phaseContext(options: OrchestratorOptions, attempt: AttemptState, phase: PhaseName, runtime: PhaseRuntime, deadlines: Deadline[]): PhaseContext {
  const { store, attemptPrefix, workspace } = options;
  return {
    phase,
    runtime,
    workspace: runtime.guard(workspace),
    ledger: attempt.ledger,
    outputs: attempt.outputs,
    cancelled: options.isCancelled,
    deadlines,
    recordSegment: async (segment: string) => {
      const touched = new Set<string>([...attempt.segmentBase.keys(), ...workspace.changes().map((c) => c.path)]);
      const patch = await options.patches.create(workspace, attempt.segmentBase, [...touched].sort());
      if (!patch) return undefined;
      const key = `${attemptPrefix}patches/${seqLabel(attempt.segmentSeq++)}-${safeSegmentName(segment)}.diff`;
      await store.put(key, patch);
      attempt.patchKeys.push(key);
      attempt.segmentBase = await snapshotChanges(workspace);
      await attempt.ledger.append({
        actor: 'orchestrator',
        phase,
        type: 'SEGMENT_RECORDED',
        payload: { segment, bytes: encoder.encode(patch).length },
        evidenceRefs: [key],
      });
      return key;
    },
  };
}

/** The checkpoint after a phase: enough to resume from it on a fresh workspace. */
async function writeCheckpoint(
  options: OrchestratorOptions,
  attempt: AttemptState,
  phase: PhaseName,
  outcome: PhaseOutcome,
  run: { stepsUsed: number; startedAt: number },
  next: PhaseName | null,
): Promise<void> {
  const { checkpoints } = attempt;
  const seq = checkpoints.length === 0 ? 0 : checkpoints[checkpoints.length - 1].seq + 1;
  const checkpoint = Checkpoint.parse({
    schemaVersion: 1,
    runId: options.runId,
    attempt: options.attempt,
    seq,
    phase,
    baseCommitSha: options.workspace.baseCommitSha,
    diffHash: await diffHash(options.workspace),
    summary: outcome.summary,
    evidenceRefs: outcome.evidenceRefs ?? [],
    decisions: outcome.decisions ?? [],
    risks: outcome.risks ?? [],
    nextPhase: next,
    patches: [...attempt.patchKeys],
    output: outcome.output ?? null,
    stepsUsed: run.stepsUsed,
    startedAt: new Date(run.startedAt).toISOString(),
    completedAt: new Date(options.clock.now()).toISOString(),
  });
  const checkpointKey = `${options.attemptPrefix}checkpoints/${seqLabel(seq)}-${phase}.json`;
  await options.store.put(checkpointKey, `${JSON.stringify(checkpoint, null, 2)}\n`);
  checkpoints.push(checkpoint);
  await attempt.ledger.append({ actor: 'orchestrator', phase, type: 'CHECKPOINT', payload: { seq, summary: outcome.summary }, evidenceRefs: [checkpointKey] });
}

async function loadCheckpoints(store: ArtifactStore, prefix: string): Promise<Checkpoint[]> {
  const out: Checkpoint[] = [];
  for (const key of await store.list(prefix)) {
    const object = await store.get(key);
    if (object) out.push(Checkpoint.parse(JSON.parse(new TextDecoder().decode(object.body))));
  }
  return out.sort((a, b) => a.seq - b.seq);
}

/** Current content of every changed path (null = deleted). */
async function snapshotChanges(workspace: Workspace): Promise<Map<string, FileSnapshot | null>> {
  const out = new Map<string, FileSnapshot | null>();
  for (const change of workspace.changes()) {
    if (change.kind === 'DELETED') out.set(change.path, null);
    else {
      const entry = workspace.entry(change.path);
      out.set(change.path, { content: await workspace.read(change.path), mode: entry?.mode ?? '100644' });
    }
  }
  return out;
}

/** A digest of the workspace's changes: paths, kinds, modes and content digests. */
export async function diffHash(workspace: Workspace): Promise<string> {
  const parts: unknown[] = [];
  for (const change of workspace.changes()) {
    const entry = workspace.entry(change.path);
    parts.push({
      path: change.path,
      kind: change.kind,
      mode: entry?.mode ?? null,
      content: change.kind === 'DELETED' ? null : sha256Hex(await workspace.read(change.path)),
    });
  }
  return sha256Hex(canonicalJson(parts));
}

function safeSegmentName(segment: string): string {
  return segment.replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 60) || 'segment';
}
