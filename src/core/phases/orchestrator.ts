import { z } from 'zod';
import type { ArtifactStore, Clock, PhaseProgress, RunReporter } from '../ports.js';
import { canonicalJson, sha256Hex } from '../util/digest.js';
import type { Workspace } from '../workspace/workspace.js';
import { Ledger, seqLabel } from './ledger.js';
import { PHASE_CONTRACTS, PHASE_NAMES, type PhaseName } from './phase-contracts.js';
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
  workspace: Workspace;
  handlers: PhaseHandler[];
  patches: PatchCodec;
  clock: Clock;
  isCancelled: () => Promise<boolean>;
  /** Paths a writing phase may touch (the planned segments' files), given the outputs so far. */
  writablePaths: (path: string, outputs: Readonly<Partial<Record<PhaseName, unknown>>>) => boolean;
  /** Asked between phases: true means stop now and continue in another invocation. */
  shouldYield?: () => boolean;
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
 * The long-horizon orchestrator (seed Part 047 §22): phases in canonical order, each under its
 * contract; a checkpoint after each; the patch stack after each segment. A resumed attempt
 * rebuilds the workspace from the base commit plus the patch stack of its last checkpoint and
 * continues with the next phase, so it ends exactly where an uninterrupted run would.
 */
export async function runOrchestrator(options: OrchestratorOptions): Promise<OrchestratorResult> {
  const { store, attemptPrefix, workspace, clock } = options;
  const ledger = await Ledger.open(store, `${attemptPrefix}ledger/`, clock);
  const checkpoints = await loadCheckpoints(store, `${attemptPrefix}checkpoints/`);
  const outputs: Partial<Record<PhaseName, unknown>> = {};
  let patchKeys: string[] = [];
  let resumedFrom: PhaseName | undefined;

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
    for (const checkpoint of checkpoints) outputs[checkpoint.phase] = checkpoint.output;
    patchKeys = [...last.patches];
    resumedFrom = last.phase;
    await ledger.append({ actor: 'orchestrator', phase: last.phase, type: 'RESUMED', payload: { fromCheckpoint: last.seq, patches: last.patches.length } });
  }

  // Snapshot of the view at the last recorded segment, for the next patch.
  let segmentBase = await snapshotChanges(workspace);
  let segmentSeq = patchKeys.length;

  const order = options.handlers.map((h) => h.name);
  const startIndex = last ? (last.nextPhase ? order.indexOf(last.nextPhase) : order.length) : 0;

  for (let index = startIndex; index < options.handlers.length; index++) {
    const handler = options.handlers[index];
    if (await options.isCancelled()) {
      await ledger.append({ actor: 'orchestrator', phase: handler.name, type: 'CANCELLED', payload: {} });
      return { state: 'CANCELLED', reason: 'a cancel marker was found between phases', outputs, checkpoints, resumedFrom, ledger };
    }
    if (index > startIndex && options.shouldYield?.()) {
      await ledger.append({ actor: 'orchestrator', phase: handler.name, type: 'SUSPENDED', payload: { nextPhase: handler.name } });
      return { state: 'SUSPENDED', reason: 'time is running out; continuing in a new invocation', outputs, checkpoints, resumedFrom, ledger };
    }
    const contract = PHASE_CONTRACTS[handler.name];
    const runtime = new PhaseRuntime(contract, ledger, (path) => options.writablePaths(path, outputs));
    const startedAt = clock.now();
    const progress = (state: PhaseProgress['state'], summary?: string) =>
      options.reporter?.phase?.({ phase: handler.name, state, summary, files: { count: workspace.changes().length, of: 'changed' }, elapsedMs: clock.now() - startedAt });
    options.reporter?.phase?.({ phase: handler.name, state: 'running' });
    await ledger.append({ actor: 'orchestrator', phase: handler.name, type: 'PHASE_STARTED', payload: { goal: contract.goal } });

    const context: PhaseContext = {
      phase: handler.name,
      runtime,
      workspace: runtime.guard(workspace),
      ledger,
      outputs,
      cancelled: options.isCancelled,
      recordSegment: async (segment: string) => {
        const touched = new Set<string>([...segmentBase.keys(), ...workspace.changes().map((c) => c.path)]);
        const patch = await options.patches.create(workspace, segmentBase, [...touched].sort());
        if (!patch) return undefined;
        const key = `${attemptPrefix}patches/${seqLabel(segmentSeq++)}-${safeSegmentName(segment)}.diff`;
        await store.put(key, patch);
        patchKeys.push(key);
        segmentBase = await snapshotChanges(workspace);
        await ledger.append({ actor: 'orchestrator', phase: handler.name, type: 'SEGMENT_RECORDED', payload: { segment, bytes: encoder.encode(patch).length }, evidenceRefs: [key] });
        return key;
      },
    };

    let outcome: PhaseOutcome;
    try {
      outcome = await handler.run(context);
    } catch (error) {
      const reason = error instanceof PhaseContractError ? error.reason : 'PHASE_FAILED';
      await ledger.append({ actor: 'orchestrator', phase: handler.name, type: 'PHASE_FAILED', payload: { reason, message: (error as Error).message } });
      progress('failed', (error as Error).message);
      const state: TerminalState = error instanceof PhaseContractError ? 'BLOCKED' : 'FAILED';
      return { state, reason: `${handler.name}: ${(error as Error).message}`, details: { phase: handler.name, code: reason }, outputs, checkpoints, resumedFrom, ledger };
    }

    // Changes a phase left unrecorded become a segment of their own, so resume sees them.
    if (workspace.changes().length > 0 || segmentBase.size > 0) await context.recordSegment(`${handler.name}-rest`);

    outputs[handler.name] = outcome.output;
    const seq = checkpoints.length === 0 ? 0 : checkpoints[checkpoints.length - 1].seq + 1;
    const next = outcome.stop ? null : (order[index + 1] ?? null);
    const checkpoint = Checkpoint.parse({
      schemaVersion: 1,
      runId: options.runId,
      attempt: options.attempt,
      seq,
      phase: handler.name,
      baseCommitSha: workspace.baseCommitSha,
      diffHash: await diffHash(workspace),
      summary: outcome.summary,
      evidenceRefs: outcome.evidenceRefs ?? [],
      decisions: outcome.decisions ?? [],
      risks: outcome.risks ?? [],
      nextPhase: next,
      patches: [...patchKeys],
      output: outcome.output ?? null,
      stepsUsed: runtime.stepsUsed,
      completedAt: new Date(clock.now()).toISOString(),
    });
    const checkpointKey = `${attemptPrefix}checkpoints/${seqLabel(seq)}-${handler.name}.json`;
    await store.put(checkpointKey, `${JSON.stringify(checkpoint, null, 2)}\n`);
    checkpoints.push(checkpoint);
    await ledger.append({ actor: 'orchestrator', phase: handler.name, type: 'CHECKPOINT', payload: { seq, summary: outcome.summary }, evidenceRefs: [checkpointKey] });

    if (outcome.stop) {
      const uiState = outcome.stop.state === 'COMPLETED' ? 'done' : outcome.stop.state === 'FAILED' ? 'failed' : 'blocked';
      progress(uiState, outcome.summary);
      await ledger.append({ actor: 'orchestrator', phase: handler.name, type: 'RUN_STOPPED', payload: { state: outcome.stop.state, reason: outcome.stop.reason } });
      return { state: outcome.stop.state, reason: outcome.stop.reason, details: outcome.stop.details, outputs, checkpoints, resumedFrom, ledger };
    }
    progress('done', outcome.summary);
  }
  return { state: 'COMPLETED', outputs, checkpoints, resumedFrom, ledger };
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
