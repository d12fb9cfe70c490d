import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadCorpus } from './corpus-case.js';
import { mirrorsDir, presentRepos, runDeps } from './deps/evaluate.js';
import { formatParity } from './deps/parity.js';
import { runProse } from './prose/evaluate.js';
import { formatProseScore } from './prose/score.js';
import { formatReport, totalsOf } from './report.js';
import { runCase, type CaseResult } from './run-case.js';

/**
 * `npm run eval [-- --json] [--corpus DIR] [--case ID ...] [--jobs N] [--keep] [--timings] [--mirrors DIR] [--no-deps] [--no-prose]`:
 * reproduces every corpus case with `draftsman run --publish` and compares the published commit
 * with the human one; then, when mirrors of eval/deps/repos.ts are present (and not `--no-deps`
 * or `--case`), prints the dependency parity table of `npm run eval:deps`, and the prose corpus's
 * precision and recall of `npm run eval:prose` (not with `--no-prose` or `--case`).
 */
const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '..');
export const DEFAULT_CORPUS = join(repoRoot, 'test', 'fixtures', 'corpus');

export interface CorpusRunOptions {
  /** Child processes to spread the cases over (the pipeline is mostly synchronous, so one process uses one core). */
  jobs?: number;
  /** Keep the temporary directory with every case's repository and run artifacts. */
  keep?: boolean;
  clock?: () => number;
}

/** Runs the cases, one after the other in this process or round-robin over `jobs` child processes; results in corpus order. */
export async function runCorpus(
  corpus: string,
  only: readonly string[] = [],
  options: CorpusRunOptions = {},
): Promise<{ results: CaseResult[]; root: string }> {
  const cases = loadCorpus(corpus, only);
  const root = mkdtempSync(join(tmpdir(), 'draftsman-eval-'));
  try {
    const jobs = Math.max(1, Math.min(options.jobs ?? 1, cases.length));
    if (jobs === 1) {
      const results: CaseResult[] = [];
      for (const c of cases) results.push(await runCase(c, root, options.clock));
      return { results, root };
    }
    const shards = Array.from({ length: jobs }, (_, i) => cases.filter((_, k) => k % jobs === i).map((c) => c.manifest.id));
    const parts = await Promise.all(shards.map((ids, i) => runShard(corpus, ids, join(root, `shard-${i}`), options)));
    const byId = new Map(parts.flat().map((r) => [r.id, r]));
    return { results: cases.map((c) => byId.get(c.manifest.id)!), root };
  } finally {
    if (!options.keep) rmSync(root, { recursive: true, force: true });
  }
}

/** One child process running some cases and writing their results to a file. */
function runShard(corpus: string, ids: string[], dir: string, options: CorpusRunOptions): Promise<CaseResult[]> {
  const out = `${dir}.json`;
  const args = [
    '--import',
    'tsx',
    join(here, 'run.ts'),
    '--corpus',
    corpus,
    '--results',
    out,
    ...ids.flatMap((id) => ['--case', id]),
    ...(options.clock ? ['--timings'] : []),
  ];
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, args, { cwd: repoRoot, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NODE_OPTIONS: '' } });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`eval shard ${ids.join(',')} exited with ${code}: ${stderr.trim()}`));
      else resolvePromise(JSON.parse(readFileSync(out, 'utf8')) as CaseResult[]);
    });
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      json: { type: 'boolean' },
      corpus: { type: 'string' },
      case: { type: 'string', multiple: true },
      jobs: { type: 'string' },
      keep: { type: 'boolean' },
      timings: { type: 'boolean' },
      results: { type: 'string' },
      mirrors: { type: 'string' },
      'no-deps': { type: 'boolean' },
      'no-prose': { type: 'boolean' },
    },
  });
  const jobs = values.jobs ? Number.parseInt(values.jobs, 10) : 1;
  if (!Number.isInteger(jobs) || jobs < 1) throw new Error(`--jobs must be a positive integer, got ${values.jobs}`);
  const { results, root } = await runCorpus(resolve(values.corpus ?? DEFAULT_CORPUS), values.case ?? [], {
    jobs,
    keep: values.keep,
    clock: values.timings ? () => performance.now() : undefined,
  });
  // A shard of a parallel run: the parent reads the results and prints the report.
  if (values.results) {
    writeFileSync(values.results, JSON.stringify(results));
    return;
  }
  process.stdout.write(formatReport(results, { timings: values.timings }));
  if (values.keep) process.stdout.write(`\nrun directories kept under ${root}\n`);
  if (values.json) {
    const file = join(here, 'results.json');
    writeFileSync(file, `${JSON.stringify({ totals: totalsOf(results), cases: results.map(({ elapsedMs: _elapsed, ...r }) => r) }, null, 2)}\n`);
    process.stdout.write(`\nwrote ${file}\n`);
  }
  if (!values['no-deps'] && !values.case?.length) await printDepsParity(mirrorsDir(values.mirrors));
  if (!values['no-prose'] && !values.case?.length) await printProseScore(mirrorsDir(values.mirrors));
}

/** Precision and recall of steps read from prose over the mirrored corpus cases, when any is present. */
async function printProseScore(mirrors: string): Promise<void> {
  const { score, skipped } = await runProse({ mirrors, log: (line) => void process.stderr.write(`eval:prose: ${line}\n`) });
  if (score.cases.length === 0) return;
  process.stdout.write(`\n${formatProseScore(score)}`);
  if (skipped.length) process.stdout.write(`prose cases skipped (mirror absent): ${skipped.length}\n`);
}

/** The dependency parity table over the mirrored repositories, when any is present. */
async function printDepsParity(mirrors: string): Promise<void> {
  if (presentRepos(mirrors).present.length === 0) return;
  const { repos, skipped } = await runDeps({ mirrors, log: (line) => void process.stderr.write(`eval:deps: ${line}\n`) });
  process.stdout.write(`\n${formatParity(repos)}`);
  if (skipped.length) process.stdout.write(`skipped (mirror absent): ${skipped.join(', ')}\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    process.stderr.write(`eval: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  });
}
