import type { PipelineResult } from '../../core/pipeline/run-pipeline.js';
import { escapeControls } from '../../core/git/quote-path.js';
import type { PhaseProgress, RunProgress, RunReporter } from '../../core/ports.js';

const ICON: Record<PhaseProgress['state'], string> = { running: '…', done: '✓', skipped: '-', failed: '✗', blocked: '■' };

/**
 * The run's progress on the terminal (stderr): one line per finished stage with the files it
 * saw or changed and how long it took; nothing at all when disabled (`--json`).
 */
export class TerminalReporter implements RunReporter {
  constructor(private readonly options: { write: (text: string) => void; enabled: boolean }) {}

  start(title: string): void {
    if (this.options.enabled) this.options.write(`draftsman: ${title}\n`);
  }

  phase(progress: PhaseProgress): void {
    if (!this.options.enabled || progress.state === 'running') return;
    const seconds = `${((progress.elapsedMs ?? 0) / 1000).toFixed(1)}s`;
    const files = progress.files === undefined ? '' : progress.files.of === 'changed' ? `${progress.files.count} changed` : `${progress.files.count} files`;
    this.options.write(`  ${ICON[progress.state]} ${progress.phase.padEnd(24)} ${files.padStart(11)} ${seconds.padStart(7)}  ${escapeControls(progress.summary ?? '')}\n`);
  }

  /** The whole picture is printed once, by `finish`, where the run directory is known. */
  async report(_progress: RunProgress): Promise<void> {}

  finish(result: PipelineResult, runDir: string, publishNote?: string): void {
    if (!this.options.enabled) return;
    const lines = [`draftsman: ${result.status}${result.reason ? ` (${result.reason})` : ''}`];
    if (result.baseCommitSha) lines.push(`  base     ${result.baseRef ?? ''} ${result.baseCommitSha}`);
    if (result.headCommitSha) lines.push(`  commit   ${result.headCommitSha} on ${result.agentBranch}`);
    // Names from the repository can reach these lines; a terminal must show ESC, not obey it.
    if (publishNote) lines.push(`  publish  ${escapeControls(publishNote)}`);
    lines.push(`  run dir  ${runDir}`);
    this.options.write(`${lines.join('\n')}\n`);
  }
}
