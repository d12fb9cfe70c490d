/**
 * A plain-text table as the evals print them: a header, a rule, one row per line, columns two
 * spaces apart. `rightAligned` pads a column on the left (numbers).
 */
export function textTable(head: readonly string[], rows: readonly string[][], rightAligned: (column: number) => boolean = () => false): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => (rightAligned(i) ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}
