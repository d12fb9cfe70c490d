import type { PipelineResult } from '../../core/pipeline/run-pipeline.js';
import { escapeControls } from '../../core/git/quote-path.js';
import type { Clock } from '../../core/ports.js';

const ICON: Record<string, string> = { running: '…', done: '✓', skipped: '-', failed: '✗', blocked: '■' };

/** Progress on the terminal (stderr): one line per phase transition with the elapsed time. */
export class TerminalReporter {
  private startedAt = 0;

  constructor(private readonly options: { write: (text: string) => void; enabled: boolean; clock: Clock }) {}

  start(title: string): void {
    this.startedAt = this.options.clock.now();
    if (this.options.enabled) this.options.write(`draftsman: ${title}\n`);
  }

  phase(phase: string, state: string, summary?: string): void {
    if (!this.options.enabled || state === 'running') return;
    const elapsed = ((this.options.clock.now() - this.startedAt) / 1000).toFixed(1);
    this.options.write(`  ${ICON[state] ?? state} ${phase.padEnd(24)} ${elapsed.padStart(6)}s  ${escapeControls(summary ?? '')}\n`);
  }

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
