import type { PipelineResult } from '../../core/pipeline/run-pipeline.js';
import { escapeControls } from '../../core/text/quote-path.js';
import type { PhaseProgress, RunProgress, RunReporter } from '../../core/ports.js';

const ICON: Record<PhaseProgress['state'], string> = { running: '…', done: '✓', skipped: '-', failed: '✗', blocked: '■' };

/** One finished stage and how long it took by the run's clock, as `--json` lists it. */
export interface StageTiming {
  phase: string;
  state: PhaseProgress['state'];
  ms: number;
}

/** What `finish` shows besides the result. */
export interface FinishExtra {
  publishNote?: string;
  explained?: { cause: string; next: string };
  logFile?: { path: string; written: number };
}

/**
 * The run's progress on the terminal (stderr): one line per finished stage with the files it
 * saw or changed and how long it took; nothing at all when disabled (`--json`). The stages'
 * durations are kept either way, for the `--json` output.
 */
export class TerminalReporter implements RunReporter {
  private readonly finished: StageTiming[] = [];

  /** The stage running now, shown on one line that the next line overwrites (a terminal only). */
  private running: string | undefined;

  /** `live`: stderr is a terminal, so a running stage's line is shown and then replaced. */
  constructor(private readonly options: { write: (text: string) => void; enabled: boolean; live?: boolean }) {}

  /** How far the running stage is (`objects fetched 1.2 MB`): on a terminal only, on the running stage's line. */
  progress(what: string): void {
    if (!this.options.enabled || !this.options.live || this.running === undefined) return;
    this.options.write(`\r\u001b[K  … ${this.running.padEnd(24)} ${escapeControls(what)}`);
  }

  /** The stages that ended so far, in order, with their durations. */
  timings(): StageTiming[] {
    return this.finished.map((t) => ({ ...t }));
  }

  start(title: string): void {
    if (this.options.enabled) this.options.write(`draftsman: ${title}\n`);
  }

  phase(progress: PhaseProgress): void {
    if (progress.state === 'running') {
      this.running = progress.phase;
      if (this.options.enabled && this.options.live) this.options.write(`  … ${progress.phase}`);
      return;
    }
    const clear = this.running !== undefined && this.options.live ? '\r\u001b[K' : '';
    this.running = undefined;
    if (progress.elapsedMs !== undefined) this.finished.push({ phase: progress.phase, state: progress.state, ms: progress.elapsedMs });
    if (!this.options.enabled) return;
    const seconds = `${((progress.elapsedMs ?? 0) / 1000).toFixed(1)}s`;
    const files = progress.files === undefined ? '' : progress.files.of === 'changed' ? `${progress.files.count} changed` : `${progress.files.count} files`;
    // A summary of several lines (a task block's problems) stays readable: its lines follow, indented.
    const [first = '', ...more] = (progress.summary ?? '').split(/\r?\n/);
    this.options.write(
      `${clear}  ${ICON[progress.state]} ${progress.phase.padEnd(24)} ${files.padStart(11)} ${seconds.padStart(7)}  ${escapeControls(first)}\n` +
        more
          .filter((line) => line.trim())
          .map((line) => `      ${escapeControls(line)}\n`)
          .join(''),
    );
  }

  /** The whole picture is printed once, by `finish`, where the run directory is known. */
  async report(_progress: RunProgress): Promise<void> {}

  /**
   * The outcome: status and reason, then the cause and the next step when it is not a success,
   * the base, the commit, the publication, the run directory, and where the log lines went.
   */
  finish(result: PipelineResult, runDir: string, extra: FinishExtra = {}): void {
    if (!this.options.enabled) return;
    const { publishNote, explained, logFile } = extra;
    const lines = [`draftsman: ${result.status}${result.reason ? ` (${result.reason})` : ''}`];
    if (explained) lines.push(`  ${escapeControls(explained.cause)}.`, `  next: ${escapeControls(explained.next)}.`);
    if (result.baseCommitSha) lines.push(`  base     ${result.baseRef ?? ''} ${result.baseCommitSha}`);
    if (result.headCommitSha) lines.push(`  commit   ${result.headCommitSha} on ${result.agentBranch}`);
    // Names from the repository can reach these lines; a terminal must show ESC, not obey it.
    if (publishNote) lines.push(`  publish  ${escapeControls(publishNote)}`);
    lines.push(`  run dir  ${runDir}`);
    if (logFile?.written) lines.push(`  log      ${logFile.path} (${logFile.written} line(s); --verbose shows them here)`);
    this.options.write(`${lines.join('\n')}\n`);
  }
}
