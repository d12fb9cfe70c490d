/**
 * The fault soak (`npm run bench -- --only faults`): every scenario of the fault suite
 * (test/reliability/fault-suite.ts) many times with one seed, through the whole App on loopback,
 * then the table: clear end, stuck, duplicates, wrong content, lost data, dead letters. Alone:
 *   node --import tsx bench/faults.bench.ts [--seed N] [--runs N]
 */
import { pathToFileURL } from 'node:url';
import { formatSoakTable, runFaultSuite, SCENARIOS } from '../test/reliability/fault-suite.js';
import type { BenchRecord } from './bench-record.js';

export async function runFaultBench(options: { seed?: number; runs?: number } = {}): Promise<BenchRecord[]> {
  const seed = options.seed ?? 20261205;
  const runs = options.runs ?? SCENARIOS.length * 12;
  const started = Date.now();
  const table = await runFaultSuite({
    seed,
    runs,
    onVerdict: (v) => process.stderr.write(`${v.issue - 1}/${runs} ${v.scenario}: ${v.end}${v.notes.length > 0 ? ` (${v.notes.join('; ')})` : ''}\n`),
  });
  const ms = Date.now() - started;
  process.stdout.write(`${formatSoakTable(table)}\n`);
  for (const v of table.verdicts.filter((x) => x.end === 'stuck' || x.duplicates || x.wrongContent || x.lostData)) {
    process.stdout.write(`  ${v.scenario} issue ${v.issue}: ${v.end}; ${v.notes.join('; ')}\n`);
  }
  const total = (f: (r: (typeof table.rows)[number]) => number) => table.rows.reduce((n, r) => n + f(r), 0);
  const note = `seed ${seed}, ${runs} runs over ${SCENARIOS.length} scenarios, ${Math.round(ms / 1000)} s`;
  return [
    { name: 'faults.clear-end', size: runs, value: total((r) => r.runs - r.stuck), unit: 'runs', note },
    { name: 'faults.stuck', size: runs, value: total((r) => r.stuck), unit: 'runs', note },
    { name: 'faults.duplicates', size: runs, value: total((r) => r.duplicates), unit: 'objects', note },
    { name: 'faults.wrong-content', size: runs, value: total((r) => r.wrongContent), unit: 'runs', note },
    { name: 'faults.lost-data', size: runs, value: total((r) => r.lostData), unit: 'objects', note },
    { name: 'faults.dead-letters', size: runs, value: total((r) => r.deadLetters), unit: 'invocations', note },
  ];
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? Number(process.argv[i + 1]) : undefined;
  };
  await runFaultBench({ seed: arg('--seed'), runs: arg('--runs') });
}
