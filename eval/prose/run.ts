import { parseArgs } from 'node:util';
import { mirrorsDir } from '../deps/evaluate.js';
import { runProse } from './evaluate.js';
import { formatProseScore, meetsGoals } from './score.js';

/**
 * `npm run eval:prose [-- --mirrors DIR] [--verbose]`: the corpus of real requests written in
 * prose (eval/prose/cases.ts), each read and grounded against its repository at the recorded
 * commit; prints precision (goal: no wrong run) and recall (goal ≥ 90% of the cases that must
 * run) per ecosystem and per wording source.
 */
const { values } = parseArgs({ options: { mirrors: { type: 'string' }, verbose: { type: 'boolean' } } });
const log = (line: string): void => void process.stderr.write(`eval:prose: ${line}\n`);
const { score, skipped, ms, notRun } = await runProse({ mirrors: mirrorsDir(values.mirrors), log });
process.stdout.write(formatProseScore(score));
const sorted = [...ms].sort((a, b) => a - b);
if (sorted.length)
  process.stdout.write(
    `reading and grounding per case: median ${sorted[Math.floor(sorted.length / 2)].toFixed(0)} ms, max ${sorted[sorted.length - 1].toFixed(0)} ms\n`,
  );
for (const c of score.cases.filter((s) => values.verbose || s.outcome === 'wrong-run' || s.outcome === 'missed'))
  process.stdout.write(
    `  ${c.outcome.padEnd(9)} ${c.id}${c.detail ? `: ${c.detail}` : ''}${c.outcome === 'missed' && notRun.has(c.id) ? `: not run because ${notRun.get(c.id)}` : ''}\n`,
  );
if (skipped.length) process.stdout.write(`skipped (mirror absent): ${skipped.join(', ')}\n`);
process.stdout.write(meetsGoals(score.totals) ? 'goals met\n' : 'goals not met\n');
