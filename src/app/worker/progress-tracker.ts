import { PHASE_CONTRACTS, PHASE_NAMES, type PhaseName } from '../../core/phases/phase-contracts.js';
import type { PhaseProgress, RunProgress, RunReporter } from '../../core/ports.js';

type PhaseState = RunProgress['phases'][number]['state'];

/**
 * Keeps the checklist of the ten phases for one attempt and sends the whole picture to the
 * reporter when a phase starts, fails or is blocked and on every report, so the progress
 * comment is always complete when edited in place. Reports are serialised and coalesced: while
 * one is being written, later ones wait, and only the newest of them is written next (each
 * carries the whole picture, so nothing is lost). A failed write is logged by the caller and
 * never stops the run.
 */
export class ProgressTracker implements RunReporter {
  private readonly states = new Map<PhaseName, PhaseState>(PHASE_NAMES.map((n) => [n, 'pending']));
  private last: RunProgress | undefined;
  /** The newest report not yet handed to the reporter. */
  private pending: RunProgress | undefined;
  /** The loop writing `pending` until none is left, while it runs. */
  private writing: Promise<void> | undefined;

  constructor(
    private readonly inner: Pick<RunReporter, 'report'>,
    private readonly onError: (error: unknown) => void,
    /** Sees every stage event, ingestion included (the metrics). */
    private readonly observe?: (progress: PhaseProgress) => void,
  ) {}

  /** A phase of the checklist changed state; other stages (ingestion) are not on the checklist. */
  phase(progress: PhaseProgress): void {
    this.observe?.(progress);
    if (!isPhaseName(progress.phase)) return;
    this.states.set(progress.phase, progress.state);
    // A phase that passed (or was skipped) is shown by the next write: the next phase starting,
    // or the attempt's end. Writing it on its own would double the writes for nothing new to read.
    if (progress.state === 'done' || progress.state === 'skipped') return;
    if (this.last) void this.report({ ...this.last, phase: progress.phase, status: this.last.status === 'QUEUED' ? 'RUNNING' : this.last.status });
  }

  report(progress: RunProgress): Promise<void> {
    const merged: RunProgress = {
      ...this.last,
      ...progress,
      taskEcho: progress.taskEcho ?? this.last?.taskEcho,
      baseCommitSha: progress.baseCommitSha ?? this.last?.baseCommitSha,
      artifacts: progress.artifacts ?? this.last?.artifacts,
      phases: PHASE_NAMES.map((n) => ({ name: PHASE_CONTRACTS[n].title, state: this.states.get(n) ?? 'pending' })),
    };
    this.last = merged;
    this.pending = merged;
    this.writing ??= this.write();
    return this.writing;
  }

  /** Wait until the newest report is written. */
  flush(): Promise<void> {
    return this.writing ?? Promise.resolve();
  }

  private async write(): Promise<void> {
    // Start on a later turn, so reports made in the same turn are written once.
    await Promise.resolve();
    while (this.pending) {
      const next = this.pending;
      this.pending = undefined;
      try {
        await this.inner.report(next);
      } catch (error) {
        this.onError(error);
      }
    }
    this.writing = undefined;
  }
}

function isPhaseName(name: string): name is PhaseName {
  return (PHASE_NAMES as readonly string[]).includes(name);
}
