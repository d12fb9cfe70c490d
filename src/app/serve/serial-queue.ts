import type { Logger } from '../../core/ports.js';

/** One finished task, kept so an operator (or a test) can see what ran and what failed. */
export interface TaskRecord {
  label: string;
  ok: boolean;
  error?: string;
}

/** How many finished tasks are remembered. */
const HISTORY = 200;

/**
 * Runs tasks one at a time, in the order they were added. A failing task is logged and the
 * queue moves on: one bad run never stops the ones behind it. This is what a Lambda's own
 * invocation queue gives each function in the deployment, for one process.
 */
export class SerialQueue {
  private readonly tasks: { label: string; run: () => Promise<void> }[] = [];
  private readonly finished: TaskRecord[] = [];
  private running: Promise<void> | undefined;
  private busy = false;
  private waiters: (() => void)[] = [];

  constructor(private readonly logger: Logger) {}

  push(label: string, run: () => Promise<void>): void {
    this.tasks.push({ label, run });
    this.running ??= this.drain();
  }

  /** Tasks waiting or running. */
  get size(): number {
    return this.tasks.length + (this.busy ? 1 : 0);
  }

  /** The most recent finished tasks, oldest first. */
  history(): TaskRecord[] {
    return [...this.finished];
  }

  /** Resolves once nothing is queued or running (tasks added meanwhile are waited for too). */
  idle(): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private async drain(): Promise<void> {
    // Let the caller that queued the first task finish its own step before the task starts.
    await Promise.resolve();
    for (let task = this.tasks.shift(); task; task = this.tasks.shift()) {
      this.busy = true;
      try {
        await task.run();
        this.remember({ label: task.label, ok: true });
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        this.logger.error('task failed; the queue goes on', { task: task.label, error });
        this.remember({ label: task.label, ok: false, error: message });
      } finally {
        this.busy = false;
      }
    }
    this.running = undefined;
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }

  private remember(record: TaskRecord): void {
    this.finished.push(record);
    if (this.finished.length > HISTORY) this.finished.shift();
  }
}
