/**
 * `npm run bench` (`node --import tsx bench/run.ts [--quick] [--only id,id]`): every benchmark
 * of the issues in one go, each in its own child process with a time cap (so its peak heap and
 * RSS are its own, and a crash or a hang is a row, not an abort). Writes bench/results.json
 * (metadata + one record per measurement) and bench/results.md (one table, grouped by area,
 * with the goal from the issues and whether it was met). It reports; it never fails a build:
 * the exit code is 0 whatever the numbers.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runNodeChild, startHeapSampler } from './child-process.js';
import { GOALS, judge } from './goals.js';

/** A record as the benchmark modules return it (syntax sizes are strings like "40 files, 300 KiB"). */
interface ModuleRecord {
  name: string;
  size: number | string;
  value: number;
  unit: string;
  baseline?: number;
  ratio?: number;
  note?: string;
}

type Area =
  | 'Ingestion'
  | 'Repository map and search'
  | 'Syntax'
  | 'Webhook'
  | 'End to end'
  | 'Faults'
  | 'Hostile repositories'
  | 'Diff'
  | 'Spend'
  | 'Bundles'
  | 'Policy rules'
  | 'Run queue'
  | 'Campaigns'
  | 'Peak memory per benchmark';
const AREAS: Area[] = [
  'Ingestion',
  'Repository map and search',
  'Syntax',
  'Webhook',
  'End to end',
  'Faults',
  'Hostile repositories',
  'Diff',
  'Spend',
  'Bundles',
  'Policy rules',
  'Run queue',
  'Campaigns',
  'Peak memory per benchmark',
];

/** One line of results.json. `met` is null where the issues set no goal for the row. */
interface ResultRecord extends ModuleRecord {
  area: Area;
  job: string;
  goal: string | null;
  met: boolean | null;
}

interface Job {
  id: string;
  area: Area;
  timeoutMs: number;
  what: string;
  run(quick: boolean): Promise<ModuleRecord[]>;
}

const MIN = 60_000;
const JOBS: Job[] = [
  ...[
    [1000, 500],
    [10_000, 2000],
    [50_000, 5000],
  ].map(([full, quick]): Job => ({
    id: `ingestion-${full / 1000}k`,
    area: 'Ingestion',
    timeoutMs: 6 * MIN,
    what: `ingestion vs native git, ${full} files`,
    run: async (q) => (await import('./ingestion.bench.js')).runIngestionBench([q ? quick : full]),
  })),
  {
    id: 'ingestion-strategies',
    area: 'Ingestion',
    timeoutMs: 6 * MIN,
    what: 'clone strategies side by side: shallow, deepened, deepen-since, blobless',
    run: async (q) => (await import('./ingestion.bench.js')).runStrategyBench(q ? { files: 1000, commits: 50, assetBytes: 1024 * 1024 } : {}),
  },
  {
    id: 'repomap',
    area: 'Repository map and search',
    timeoutMs: 6 * MIN,
    what: 'map at 10k/100k, cached reuse, keyword search vs ripgrep',
    run: async (q) => {
      process.env.REPOMAP_BENCH_SIZES = q ? '2000,10000' : '10000,100000';
      return (await import('./repomap.bench.js')).runRepoMapBench();
    },
  },
  {
    id: 'syntax',
    area: 'Syntax',
    timeoutMs: 3 * MIN,
    what: 'symbol extraction throughput',
    run: async (q) => (await import('./syntax.bench.js')).runSyntaxBench({ files: q ? 10 : 40 }),
  },
  {
    id: 'webhook',
    area: 'Webhook',
    timeoutMs: 6 * MIN,
    what: 'acknowledgement latency',
    run: async (q) => (await import('./webhook.bench.js')).runWebhookBench({ deliveries: q ? 100 : 1000 }),
  },
  {
    id: 'e2e',
    area: 'End to end',
    timeoutMs: 12 * MIN,
    what: 'draftsman run --publish on the demo and a generated repository',
    run: async (q) => (await import('./e2e.bench.js')).runE2eBench({ files: q ? 1000 : 10_000, timeoutMs: 10 * MIN }),
  },
  {
    id: 'real',
    area: 'End to end',
    timeoutMs: 20 * MIN,
    what: 'real repositories (scripts/prepare-bench-repos.sh): CLI ingest vs native, map vs ingestion, targets, a replace run',
    run: async (q) => (await import('./real-repos.bench.js')).runRealReposBench({ runs: q ? 1 : 3 }),
  },
  {
    id: 'faults',
    area: 'Faults',
    timeoutMs: 25 * MIN,
    what: 'the fault soak: every scenario of test/reliability/fault-suite.ts through the whole App, one seed',
    run: async (q) => (await import('./faults.bench.js')).runFaultBench({ runs: q ? 13 * 2 : undefined }),
  },
  {
    id: 'hostile',
    area: 'Hostile repositories',
    timeoutMs: 10 * MIN,
    what: '200k files and a 10k-deep chain, time to refusal',
    run: async (q) => (await import('./hostile.bench.js')).runHostileBench(q ? { files: 20_000, maxFileCount: 10_000, depth: 1000 } : { timeoutMs: 4 * MIN }),
  },
  {
    id: 'diff',
    area: 'Diff',
    timeoutMs: 3 * MIN,
    what: 'line diff of a file with every line changed, 1 MB and 20 MB',
    run: async (q) => (await import('./diff.bench.js')).runDiffBench({ sizesMb: q ? [1] : [1, 20] }),
  },
  {
    id: 'spend',
    area: 'Spend',
    timeoutMs: 3 * MIN,
    what: 'spend accounting per model call: CPU over an instant store, and the S3 round trips apart',
    run: async (q) => (await import('./spend.bench.js')).runSpendBench({ calls: q ? 500 : 2_000 }),
  },
  {
    id: 'bombs',
    area: 'Hostile repositories',
    timeoutMs: 10 * MIN,
    what: 'a 1.5 GB zero-blob pack and a 10^7-path tree bomb, time to refusal',
    run: async (q) => (await import('./bombs.bench.js')).runBombsBench(q ? { blobMb: 256, levels: 5 } : { timeoutMs: 4 * MIN }),
  },
  {
    id: 'rules',
    area: 'Policy rules',
    timeoutMs: 2 * MIN,
    what: 'agent.rules evaluation per tool call, 20 rules',
    run: async (q) => (await import('./rules.bench.js')).runRulesBench({ calls: q ? 5000 : 20_000 }),
  },
  {
    id: 'queue',
    area: 'Run queue',
    timeoutMs: 3 * MIN,
    what: "the run queue's hand-off: a worker slot freed to the next waiting run's request.json, through the SQS wake-up and one admission pass",
    run: async (q) => (await import('./queue.bench.js')).runQueueBench({ handoffs: q ? 30 : 100 }),
  },
  {
    id: 'campaign',
    area: 'Campaigns',
    timeoutMs: 10 * MIN,
    what: 'draftsman campaign run --concurrency 2 over generated repositories vs the sum of single runs',
    run: async (q) => (await import('./campaign.bench.js')).runCampaignBench({ repos: q ? 12 : 100 }),
  },
  {
    id: 'campaign-github',
    area: 'Campaigns',
    timeoutMs: 10 * MIN,
    what: "the App's campaign state machine over a fleet of mixed policies: GitHub content-creating requests per repository and per minute and hour, stand-in at 150 ms a call",
    run: async (q) => (await import('./campaign-github.bench.js')).runCampaignGithubBench({ repos: q ? 4 : 30 }),
  },
  {
    id: 'bundle',
    area: 'Bundles',
    timeoutMs: 4 * MIN,
    what: 'bundle size of each handler',
    run: async () => (await import('./bundle.bench.js')).runBundleBench(),
  },
];

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const self = fileURLToPath(import.meta.url);

/** In the child: run one job, sample the heap meanwhile, write records + memory peak to a file. */
async function childMain(id: string, quick: boolean, resultFile: string): Promise<void> {
  const job = JOBS.find((j) => j.id === id);
  if (!job) throw new Error(`unknown job ${id}`);
  const sampler = startHeapSampler(20);
  const start = performance.now();
  const records = await job.run(quick);
  const ms = performance.now() - start;
  writeFileSync(resultFile, JSON.stringify({ records, ms, ...sampler.stop() }));
  // Some benchmarks leave sockets (keep-alive agents) behind; the result is written, so go.
  process.exit(0);
}

function sh(command: string, args: string[]): string | undefined {
  try {
    return execFileSync(command, args, { stdio: ['ignore', 'pipe', 'ignore'], timeout: 10 * MIN })
      .toString('utf8')
      .trim();
  } catch {
    return undefined;
  }
}

/** ripgrep for the keyword search baseline: installed only as root with apt available. */
function ensureRipgrep(): string {
  const have = sh('rg', ['--version']);
  if (have) return have.split('\n')[0];
  if (process.getuid?.() === 0 && sh('which', ['apt-get'])) {
    sh('apt-get', ['install', '-y', 'ripgrep']);
    const now = sh('rg', ['--version']);
    if (now) return `${now.split('\n')[0]} (installed by apt-get for this run)`;
  }
  return 'ripgrep unavailable';
}

const fmt = (n: number | undefined): string => (n === undefined ? '' : Number.isFinite(n) ? String(n) : 'n/a');
const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/**
 * One line per goal in goals.ts, whether or not a record matched it: a goal whose benchmark was
 * skipped or failed shows as not measured instead of disappearing from the report.
 */
function goalTable(records: ResultRecord[]): string[] {
  const lines = ['## Goals', '', '| Goal | Target | Rows | Met | Status |', '|---|---|---|---|---|'];
  for (const g of GOALS) {
    const rows = records.filter((r) => g.match(r));
    const judged = rows.filter((r) => r.met !== null);
    const met = judged.filter((r) => r.met).length;
    const status = judged.length === 0 ? `not measured (expects ${g.expected})` : met === judged.length ? 'met' : '**missed**';
    lines.push(`| ${g.id} | ${cell(g.goal)} | ${rows.length} | ${met} of ${judged.length} | ${cell(status)} |`);
  }
  return lines;
}

function markdown(meta: Record<string, unknown>, records: ResultRecord[]): string {
  const lines = [
    '# Benchmark results',
    '',
    `Run of \`npm run bench${meta.quick ? ' -- --quick' : ''}\` on ${meta.date} (${meta.cpuModel}, ${meta.cores} cores, ${meta.memoryGb} GB, Node ${meta.node}, commit ${meta.commit}).`,
    `Load average at start ${meta.loadAverageAtStart}, at end ${meta.loadAverageAtEnd} (1/5/15 min): the machine is shared, so absolute times carry that load; ratios are measured side by side in the same run.`,
    `Total ${meta.totalMinutes} min. ${meta.ripgrep}. Each benchmark ran in its own child process; how to run and read it: bench/README.md.`,
    '',
    '| Area | Benchmark | Size | Value | Baseline | Ratio | Goal | Met | Note |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const area of AREAS) {
    const rows = records.filter((r) => r.area === area);
    rows.forEach((r, i) => {
      const met = r.met === null ? '' : r.met ? 'yes' : '**no**';
      lines.push(
        `| ${i === 0 ? `**${area}**` : ''} | ${cell(r.name)} | ${cell(String(r.size))} | ${fmt(r.value)} ${r.unit} | ${fmt(r.baseline)} | ${r.ratio === undefined ? '' : `${fmt(r.ratio)}x`} | ${cell(r.goal ?? '')} | ${met} | ${cell(r.note ?? '')} |`,
      );
    });
  }
  const goals = records.filter((r) => r.met !== null);
  lines.push('', `Goals met: ${goals.filter((r) => r.met).length} of ${goals.length} rows.`, '');
  lines.push(...goalTable(records), '');
  return lines.join('\n');
}

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const onlyIndex = process.argv.indexOf('--only');
  const only = onlyIndex >= 0 ? new Set(process.argv[onlyIndex + 1].split(',')) : undefined;
  // Made before the benchmarks run, so that a directory that cannot be made fails at once, not after them.
  const outDir = process.env.BENCH_OUT_DIR ?? join(root, 'bench');
  mkdirSync(outDir, { recursive: true });
  const startedAt = new Date();
  const loadAtStart = loadavg().map((n) => Number(n.toFixed(2)));
  const ripgrep = ensureRipgrep();
  const env: NodeJS.ProcessEnv = { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
  const scratch = mkdtempSync(join(tmpdir(), 'bench-run-'));
  const records: ResultRecord[] = [];
  const push = (job: Job, r: ModuleRecord, area: Area = job.area) => records.push({ area, job: job.id, ...r, ...judge(r) });
  try {
    for (const job of JOBS) {
      if (only && !only.has(job.id)) continue;
      process.stderr.write(`bench: ${job.id} (${job.what}) ...`);
      const resultFile = join(scratch, `${job.id}.json`);
      const t = performance.now();
      try {
        const result = await runNodeChild<{ records: ModuleRecord[]; ms: number; peakHeapMb: number; maxRssMb: number }>(
          self,
          ['--child', job.id, quick ? '1' : '0', resultFile],
          {
            timeoutMs: job.timeoutMs,
            env,
            resultFile,
          },
        );
        for (const r of result.records) push(job, r);
        push(
          job,
          {
            name: `${job.id}: benchmark process peak heap`,
            size: job.what,
            value: result.peakHeapMb,
            unit: 'MB',
            note: `maxRSS ${result.maxRssMb} MB; heapUsed sampled every 20 ms; ${Math.round(result.ms / 1000)} s (children such as the ingesting or CLI process report their own peaks above)`,
          },
          'Peak memory per benchmark',
        );
        process.stderr.write(` ${Math.round((performance.now() - t) / 1000)} s\n`);
      } catch (error) {
        const message = (error as Error).message;
        push(job, { name: `${job.id}`, size: job.what, value: NaN, unit: '', note: `FAILED: ${message}` });
        process.stderr.write(` FAILED after ${Math.round((performance.now() - t) / 1000)} s: ${message}\n`);
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }

  const meta = {
    date: startedAt.toISOString(),
    quick,
    node: process.version,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    memoryGb: Math.round(totalmem() / 1024 ** 3),
    loadAverageAtStart: loadAtStart,
    loadAverageAtEnd: loadavg().map((n) => Number(n.toFixed(2))),
    totalMinutes: Number(((Date.now() - startedAt.getTime()) / MIN).toFixed(1)),
    commit: sh('git', ['-C', root, 'rev-parse', '--short', 'HEAD']) ?? 'unknown',
    ripgrep,
    jobs: JOBS.filter((j) => !only || only.has(j.id)).map((j) => ({ id: j.id, area: j.area, timeoutMs: j.timeoutMs })),
  };
  const json = { meta, records: records.map((r) => ({ ...r, value: Number.isFinite(r.value) ? r.value : null })) };
  writeFileSync(join(outDir, 'results.json'), `${JSON.stringify(json, null, 2)}\n`);
  writeFileSync(join(outDir, 'results.md'), markdown(meta, records));
  process.stderr.write(`bench: wrote ${join(outDir, 'results.md')} and results.json (${records.length} records)\n`);
  process.stdout.write(markdown(meta, records));
}

if (process.argv[2] === '--child') {
  await childMain(process.argv[3], process.argv[4] === '1', process.argv[5]);
} else {
  try {
    await main();
  } catch (error) {
    // It reports; it never fails a build.
    process.stderr.write(`bench: runner error: ${(error as Error).stack ?? String(error)}\n`);
  }
  process.exitCode = 0;
}
