import { parseArgs } from 'node:util';
import { mirrorsDir } from '../deps/evaluate.js';
import { createNodeSyntaxService, formatTable, formatTotals, runBugReports, runGenerated, totalsOf } from './evaluate.js';
import { formatCaseLines, formatRecallReport, recallReport } from './recall.js';

/**
 * `npm run eval:targets [-- --generated-only] [--mirrors DIR] [--case ID ...] [--verbose] [--json]`:
 * target selection on issue-like tasks over generated repositories and, when their mirrors are
 * present, on real bug reports (eval/targets/bug-reports.ts): source recall, first needed file
 * in the top five and test recall against the files the maintainers' fix changed, per language,
 * per repository size, held out and in total, with how often the cap was hit and the selection
 * time. `--verbose` lists every missed file and why it was left out. Files the fix created are
 * listed apart and not counted: they are not in the repository the selection reads.
 */
const { values } = parseArgs({
  options: {
    'generated-only': { type: 'boolean' },
    mirrors: { type: 'string' },
    case: { type: 'string', multiple: true },
    verbose: { type: 'boolean' },
    json: { type: 'boolean' },
  },
});
const syntax = await createNodeSyntaxService();
const generated = await runGenerated(syntax);
const log = values.verbose ? (line: string): void => void process.stderr.write(`eval:targets: ${line}\n`) : undefined;
const real = values['generated-only']
  ? { scores: [], skipped: [], addedByFix: [] }
  : await runBugReports(syntax, mirrorsDir(values.mirrors), { only: values.case, log });
const report = recallReport(real.scores);
if (values.json) {
  process.stdout.write(
    `${JSON.stringify({ generated: { results: generated, totals: totalsOf(generated) }, bugReports: { cases: real.scores, report, skipped: real.skipped, addedByFix: real.addedByFix } }, null, 2)}\n`,
  );
} else {
  const lines = [formatTable(generated), '', formatTotals('generated', totalsOf(generated)), ''];
  if (real.scores.length) lines.push(formatCaseLines(real.scores, values.verbose === true), formatRecallReport(report));
  if (real.addedByFix.length)
    lines.push(`created by the fix, so absent from the base and not counted (${real.addedByFix.length}):`, ...real.addedByFix.map((f) => `  ${f}`));
  if (real.skipped.length) lines.push(`skipped (mirror absent): ${real.skipped.join(', ')}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}
