import { formatUsd } from '../../core/budget/cost.js';
import type { OutcomeFigures, OutcomeReport } from '../../core/runs/outcomes.js';
import { escapeControls } from '../../core/text/quote-path.js';

/** A table cell for the terminal: control characters shown, never obeyed; one line; pipes kept out of the layout. */
const cell = (text: string) => escapeControls(text.replace(/\s+/g, ' ')).replace(/\|/g, '\\|');

/** A duration in whole units, largest first: `45s`, `12m 5s`, `2h 30m`, `3d 4h`. */
export function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
  return `${Math.floor(s / 86_400)}d ${Math.floor((s % 86_400) / 3600)}h`;
}

const usd = (value: number | null) => (value === null ? '-' : formatUsd(Math.round(value * 1_000_000)));

const HEADER = ['', 'installation', 'started', 'published', 'failed', 'merged', 'closed unmerged', 'open', 'median to merge', 'spend', 'spend per merged PR'];

function row(name: string, installation: string, f: OutcomeFigures): string[] {
  const median = f.medianTimeToMergeSeconds === null ? '-' : formatDuration(f.medianTimeToMergeSeconds);
  const counts = [f.started, f.published, f.failed, f.pullRequests.merged, f.pullRequests.closedUnmerged, f.pullRequests.open].map(String);
  return [cell(name), cell(installation), ...counts, median, usd(f.spendUsd), usd(f.spendPerMergedPullRequestUsd)];
}

function reasons(f: OutcomeFigures): string {
  return Object.entries(f.failedByReason)
    .map(([reason, n]) => `${reason} ${n}`)
    .join(', ');
}

/**
 * `draftsman report` for a person: one line per repository, one per installation and the total,
 * then the failures by reason, and what the other runs are doing.
 */
export function renderOutcomeReport(report: OutcomeReport, source: string): string {
  const t = report.total;
  const heading = `${t.started} run${t.started === 1 ? '' : 's'} in ${source}${report.since ? ` asked for since ${report.since}` : ''}`;
  if (t.started === 0) return heading;
  const rows = [
    ...report.repositories.map((r) => row(r.repository, r.installation, r)),
    ...report.installations.map((i) => row(`installation ${i.installation}`, '', i)),
    row('total', '', t),
  ];
  const table = [['repository', ...HEADER.slice(1)], HEADER.map(() => '---'), ...rows].map((cells) => `| ${cells.join(' | ')} |`);
  const failed = [
    ...report.repositories.filter((r) => r.failed > 0).map((r) => `  ${cell(r.repository)}: ${reasons(r)}`),
    ...(t.failed > 0 ? [`  total: ${reasons(t)}`] : []),
  ];
  const other = `other runs: ${t.cancelled} cancelled, ${t.waitingForApproval} waiting for approval, ${t.active} queued or running, ${t.doneWithoutPullRequest} done without a pull request`;
  return [heading, '', ...table, ...(failed.length > 0 ? ['', 'failed by reason:', ...failed] : []), '', other].join('\n');
}
