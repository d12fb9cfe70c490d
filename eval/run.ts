import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadCorpus } from './corpus-case.js';
import { formatReport, totalsOf } from './report.js';
import { runCase, type CaseResult } from './run-case.js';

/**
 * `npm run eval [-- --json] [--corpus DIR] [--case ID ...] [--keep]`: reproduces every corpus case
 * with `draftsman run --publish` and compares the published commit with the human one.
 */
const here = dirname(fileURLToPath(import.meta.url));
export const DEFAULT_CORPUS = resolve(here, '..', 'test', 'fixtures', 'corpus');

/** Runs the cases one after the other in a fresh temporary directory (kept with `keep`). */
export async function runCorpus(corpus: string, only: readonly string[] = [], options: { keep?: boolean; clock?: () => number } = {}): Promise<{ results: CaseResult[]; root: string }> {
  const cases = loadCorpus(corpus, only);
  const root = mkdtempSync(join(tmpdir(), 'draftsman-eval-'));
  const results: CaseResult[] = [];
  try {
    for (const c of cases) results.push(await runCase(c, root, options.clock));
  } finally {
    if (!options.keep) rmSync(root, { recursive: true, force: true });
  }
  return { results, root };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { json: { type: 'boolean' }, corpus: { type: 'string' }, case: { type: 'string', multiple: true }, keep: { type: 'boolean' }, timings: { type: 'boolean' } } });
  const { results, root } = await runCorpus(resolve(values.corpus ?? DEFAULT_CORPUS), values.case ?? [], { keep: values.keep, clock: values.timings ? () => performance.now() : undefined });
  process.stdout.write(formatReport(results, { timings: values.timings }));
  if (values.keep) process.stdout.write(`\nrun directories kept under ${root}\n`);
  if (values.json) {
    const file = join(here, 'results.json');
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify({ totals: totalsOf(results), cases: results.map(({ elapsedMs: _elapsed, ...r }) => r) }, null, 2)}\n`);
    process.stdout.write(`\nwrote ${file}\n`);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    process.stderr.write(`eval: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  });
}
