import { parseArgs } from 'node:util';
import { createNodeSyntaxService, formatTable, formatTotals, runGenerated, runReal, totalsOf, type TargetResult } from './evaluate.js';

/**
 * `npm run eval:targets [-- --generated-only] [--mirrors DIR] [--json]`: target selection on
 * issue-like tasks over generated repositories and, when their mirrors are present, real ones;
 * prints each task's position of the file a fix must touch, recall@5 and precision.
 */
const { values } = parseArgs({ options: { 'generated-only': { type: 'boolean' }, mirrors: { type: 'string' }, json: { type: 'boolean' } } });
const syntax = await createNodeSyntaxService();
const generated = await runGenerated(syntax);
const real = values['generated-only']
  ? { results: [] as TargetResult[], skipped: [] as string[] }
  : await runReal(syntax, values.mirrors ?? process.env.DRAFTSMAN_MIRRORS ?? '/work/.mirror');
const all = [...generated, ...real.results];
if (values.json) {
  process.stdout.write(
    `${JSON.stringify({ results: all, skipped: real.skipped, totals: { generated: totalsOf(generated), real: totalsOf(real.results), all: totalsOf(all) } }, null, 2)}\n`,
  );
} else {
  const lines = [formatTable(all), '', formatTotals('generated', totalsOf(generated))];
  if (real.results.length) lines.push(formatTotals('real', totalsOf(real.results)), formatTotals('all', totalsOf(all)));
  if (real.skipped.length) lines.push(`skipped (mirror absent): ${real.skipped.join(', ')}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}
