import { PHASE_CONTRACTS, PHASE_NAMES, type PhaseName } from '../../core/phases/phase-contracts.js';
import type { PhaseProgress, RunProgress, RunReporter } from '../../core/ports.js';

type PhaseState = RunProgress['phases'][number]['state'];

/**
 * Keeps the checklist of the ten phases for one attempt and sends the whole picture to the
 * reporter on every change, so the progress comment is always complete when edited in place.
 * Reports are serialised; a failed edit is logged by the caller and never stops the run.
 */
export class ProgressTracker implements RunReporter {
  private readonly states = new Map<PhaseName, PhaseState>(PHASE_NAMES.map((n) => [n, 'pending']));
  private last: RunProgress | undefined;
  private chain: Promise<void> = Promise.resolve();

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
    this.chain = this.chain.then(() => this.inner.report(merged)).catch(this.onError);
    return this.chain;
  }

  /** Wait for every queued edit. */
  flush(): Promise<void> {
    return this.chain;
  }
}

function isPhaseName(name: string): name is PhaseName {
  return (PHASE_NAMES as readonly string[]).includes(name);
}
