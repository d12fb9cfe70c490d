import type { CaseResult } from './run-case.js';

/** Totals over a corpus run: the numbers the acceptance is judged on. */
export interface EvalTotals {
  cases: number;
  published: number;
  recall: { hit: number; of: number };
  precision: { hit: number; of: number };
  identical: { hit: number; of: number };
  wrongExtra: number;
  /** Introduced unresolved names and unused imports over every published case. */
  names: { unresolved: number; unusedImports: number };
}

export function totalsOf(results: readonly CaseResult[]): EvalTotals {
  const sum = (pick: (r: CaseResult) => number) => results.reduce((n, r) => n + pick(r), 0);
  return {
    cases: results.length,
    published: results.filter((r) => r.published).length,
    recall: { hit: sum((r) => r.comparison?.recall.hit ?? 0), of: sum((r) => r.comparison?.recall.of ?? 0) },
    precision: { hit: sum((r) => r.comparison?.precision.hit ?? 0), of: sum((r) => r.comparison?.precision.of ?? 0) },
    identical: {
      hit: sum((r) => r.comparison?.identical.length ?? 0),
      of: sum((r) => (r.comparison ? r.comparison.identical.length + r.comparison.different.length : 0)),
    },
    wrongExtra: sum((r) => r.comparison?.wrongExtra.length ?? 0),
    names: { unresolved: sum((r) => r.names?.unresolved ?? 0), unusedImports: sum((r) => r.names?.unusedImports ?? 0) },
  };
}

const pct = ({ hit, of }: { hit: number; of: number }) => (of === 0 ? '-' : `${Math.round((1000 * hit) / of) / 10}%`);
const ratio = ({ hit, of }: { hit: number; of: number }) => `${hit}/${of}`;

/** Why a case fails the acceptance, in one line each; empty when it passes. */
export function caseFailures(r: CaseResult): string[] {
  if (!r.published) return [`not published: ${r.status}${r.reason ? ` ${r.reason}` : ''}${r.note ? ` (${r.note})` : ''}`];
  const c = r.comparison!;
  return [
    ...(c.missed.length ? [`missed ${c.missed.join(', ')}`] : []),
    ...(c.wrongExtra.length ? [`wrong extra ${c.wrongExtra.join(', ')}`] : []),
    ...(c.different.length ? [`not byte-identical ${c.different.map((d) => d.path).join(', ')}`] : []),
    ...(r.refreshMissing.length ? [`refresh command missing: ${r.refreshMissing.join('; ')}`] : []),
    ...(r.names?.problems.length ? [`names broken: ${r.names.problems.join('; ')}`] : []),
  ];
}

/** The per-case table, the totals, then a short diff (ours → human's) for every file that differs. */
export function formatReport(results: readonly CaseResult[], options: { timings?: boolean } = {}): string {
  const rows = results.map((r) => [
    r.id,
    r.published ? 'yes' : `no ${r.status}${r.reason ? ` ${r.reason}` : ''}`,
    r.comparison ? ratio(r.comparison.recall) : '-',
    r.comparison ? ratio(r.comparison.precision) : '-',
    r.comparison ? String(r.comparison.wrongExtra.length) : '-',
    r.comparison ? ratio({ hit: r.comparison.identical.length, of: r.comparison.identical.length + r.comparison.different.length }) : '-',
    ...(options.timings ? [`${(r.elapsedMs / 1000).toFixed(1)}s`] : []),
  ]);
  const header = ['case', 'published', 'recall', 'precision', 'extra', 'identical', ...(options.timings ? ['time'] : [])];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  const t = totalsOf(results);
  const out = [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line), ''];
  out.push(
    `published ${t.published}/${t.cases}  recall ${pct(t.recall)} (${ratio(t.recall)})  precision ${pct(t.precision)} (${ratio(t.precision)})  wrong extra files ${t.wrongExtra}  byte-identical ${ratio(t.identical)} (${pct(t.identical)})  names: ${t.names.unresolved} introduced unresolved, ${t.names.unusedImports} unused imports`,
  );
  for (const r of results) {
    const problems = caseFailures(r);
    if (problems.length === 0) continue;
    out.push('', `## ${r.id}`, ...problems.map((p) => `- ${p}`));
    for (const d of r.comparison?.different ?? []) out.push('', d.diff);
  }
  return `${out.join('\n')}\n`;
}
