import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { HttpRepoSource } from '../src/app/git/http-repo-source.js';
import { createMemoryFs } from '../src/app/local/memfs-adapter.js';
import { WORKER_PROCESS_ENVIRONMENT } from '../src/app/runtime/worker-environment.js';
import { ingestRepository } from '../src/core/ingestion/ingest-repository.js';
import { DEFAULT_INGESTION_POLICY } from '../src/core/ingestion/ingestion-policy.js';
import { parseIndex } from '../src/core/ingestion/pack-idx.js';
import type { FsLike } from '../src/core/ports.js';
import { generateHistoryRepo } from '../test/fixtures/history-repo.js';
import { generateLargeRepo, gitEnv } from '../test/fixtures/make-repo.js';
import { startGitHttpServer } from '../test/helpers/git-http-server.js';
import type { BenchRecord } from './bench-record.js';
import { CHILD_NODE_ARGS } from './child-process.js';

export type { BenchRecord };

const exec = promisify(execFile);
const self = fileURLToPath(import.meta.url);

/** Wall time of an async native git command (async: the server runs in this process). */
async function timeGit(args: string[]): Promise<number> {
  const start = performance.now();
  await exec('git', args, { env: gitEnv(), maxBuffer: 64 * 1024 * 1024 });
  return performance.now() - start;
}

interface ChildResult {
  ms: number;
  fetchMs: number;
  scanMs: number;
  bytes: number;
  files: number;
  maxRssMb: number;
  rssAfterImportMb: number;
}

/** Ingestion to READY in a child process, so its peak RSS is its own. */
function ingestInChild(url: string): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    // The process environment the worker is deployed with (glibc reads it at start).
    const child = spawn(process.execPath, [...CHILD_NODE_ARGS, self, '--child', url], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, ...WORKER_PROCESS_ENVIRONMENT },
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`ingestion child exited with ${code}`));
      else resolve(JSON.parse(out.trim().split('\n').pop() ?? '{}') as ChildResult);
    });
  });
}

async function childMain(url: string): Promise<void> {
  const rssAfterImportMb = process.memoryUsage().rss / 1048576;
  const lines: Record<string, unknown>[] = [];
  const logger = { debug() {}, info: (_m: string, meta?: Record<string, unknown>) => void lines.push(meta ?? {}), warn() {}, error() {} };
  const start = performance.now();
  const result = await ingestRepository({
    source: new HttpRepoSource({ url }),
    fs: createMemoryFs(),
    gitdir: '/repo/.git',
    policy: { ...DEFAULT_INGESTION_POLICY, maxFileCount: 1_000_000, maxRepoSizeMb: 10_000 },
    clock: { now: () => Math.round(performance.now()) },
    logger,
  });
  const ms = performance.now() - start;
  const meta = lines[0] ?? {};
  const out: ChildResult = {
    ms,
    fetchMs: Number(meta.fetchDurationMs ?? 0),
    scanMs: Number(meta.scanDurationMs ?? 0),
    bytes: Number(meta.fetchBytes ?? 0),
    files: result.workspace.paths().length,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
    rssAfterImportMb,
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

const round = (n: number, digits = 0): number => Number(n.toFixed(digits));
const RUNS = 3;
const median = (values: number[]): number => values.slice().sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * Ingestion (fetch + scan to READY) against native `git clone --depth 1` with and without
 * checkout, for generated repositories served by the same loopback `git http-backend`; and
 * peak RSS of the ingesting process against the pack size.
 */
export async function runIngestionBench(sizes = [1000, 10000, 50000]): Promise<BenchRecord[]> {
  const records: BenchRecord[] = [];
  for (const size of sizes) {
    const root = mkdtempSync(join(tmpdir(), `bench-ingest-${size}-`));
    try {
      generateLargeRepo(join(root, 'repo.git'), size);
      const server = await startGitHttpServer({ root });
      try {
        const url = `${server.url}/repo.git`;
        await timeGit(['ls-remote', url]); // warm the server path and the page cache
        const checkout = await timeGit(['clone', '-q', '--depth', '1', url, join(root, 'clone-checkout')]);
        // The machine is shared: native and ours alternate, and each side's median of three counts.
        const natives: number[] = [];
        const runs: ChildResult[] = [];
        for (let i = 0; i < RUNS; i++) {
          natives.push(await timeGit(['clone', '-q', '--depth', '1', '--no-checkout', url, join(root, `clone-bare-${i}`)]));
          runs.push(await ingestInChild(url));
        }
        const noCheckout = median(natives);
        const ours = runs.slice().sort((a, b) => a.ms - b.ms)[Math.floor(runs.length / 2)];
        const packMb = ours.bytes / 1048576;
        const peakAbove = Math.max(...runs.map((r) => r.maxRssMb - r.rssAfterImportMb));
        records.push(
          { name: 'native git clone --depth 1', size, value: round(checkout), unit: 'ms' },
          { name: 'native git clone --depth 1 --no-checkout', size, value: round(noCheckout), unit: 'ms' },
          {
            name: 'ingestion to READY (fetch + scan)',
            size,
            value: round(ours.ms),
            unit: 'ms',
            baseline: round(checkout),
            ratio: round(ours.ms / checkout, 2),
            note: `vs checkout clone; fetch ${ours.fetchMs} ms, scan ${ours.scanMs} ms`,
          },
          {
            name: 'ingestion vs no-checkout clone',
            size,
            value: round(ours.ms),
            unit: 'ms',
            baseline: round(noCheckout),
            ratio: round(ours.ms / noCheckout, 2),
            note: `medians of ${RUNS}: ours ${runs.map((r) => round(r.ms)).join('/')} ms, native ${natives.map((n) => round(n)).join('/')} ms`,
          },
          {
            name: 'ingestion peak RSS vs pack size',
            size,
            value: round(ours.maxRssMb, 1),
            unit: 'MB',
            baseline: round(packMb, 2),
            ratio: round(ours.maxRssMb / Math.max(packMb, 0.01), 1),
            note: `RSS after imports ${round(ours.rssAfterImportMb)} MB; ${ours.files} files`,
          },
          // Peak minus the child's own RSS just before ingestion (after imports): what ingesting costs.
          {
            name: 'ingestion peak RSS above baseline vs pack size',
            size,
            value: round(peakAbove, 1),
            unit: 'MB',
            baseline: round(packMb, 2),
            ratio: round(peakAbove / Math.max(packMb, 0.01), 2),
            note: `worst of ${RUNS}; peaks ${runs.map((r) => round(r.maxRssMb)).join('/')} MB over baselines ${runs.map((r) => round(r.rssAfterImportMb)).join('/')} MB`,
          },
        );
      } finally {
        await server.stop();
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }
  return records;
}

/** Objects in the object store's packs (each pack's index lists them). */
async function countObjects(fs: FsLike, gitdir: string): Promise<number> {
  const dir = `${gitdir}/objects/pack`;
  let count = 0;
  for (const name of (await fs.promises.readdir(dir)).filter((n) => n.endsWith('.idx'))) {
    count += parseIndex((await fs.promises.readFile(`${dir}/${name}`)) as Uint8Array).oids.length;
  }
  return count;
}

/**
 * Each clone strategy on the same generated repository (history, source files, one large
 * asset) served by one `git http-backend` with `uploadpack.allowFilter`: time to READY, bytes
 * transferred and objects stored, side by side; then what the later on-demand fetches cost
 * (blobless: reading files; shallow: deepening for a history question).
 */
export async function runStrategyBench(options: { files?: number; commits?: number; assetBytes?: number } = {}): Promise<BenchRecord[]> {
  const files = options.files ?? 2000;
  const commits = options.commits ?? 100;
  const assetBytes = options.assetBytes ?? 4 * 1024 * 1024;
  const size = `${files} files, ${commits} commits, ${Math.round(assetBytes / 1048576)} MiB asset`;
  const root = mkdtempSync(join(tmpdir(), 'bench-strategies-'));
  const records: BenchRecord[] = [];
  try {
    generateHistoryRepo(join(root, 'repo.git'), { commits, files, binaryBytes: assetBytes });
    const logger = { debug() {}, info() {}, warn() {}, error() {} };
    // One server per run: an idle keep-alive socket from an earlier run must not be reused.
    const run = async (taskText: string, sizeKb?: number, later?: (result: Awaited<ReturnType<typeof ingestRepository>>, fs: FsLike) => Promise<void>) => {
      const server = await startGitHttpServer({ root, config: { 'uploadpack.allowFilter': 'true' } });
      try {
        const url = `${server.url}/repo.git`;
        await timeGit(['ls-remote', url]);
        const fs = createMemoryFs();
        const start = performance.now();
        const result = await ingestRepository({
          source: new HttpRepoSource({ url, ...(sizeKb !== undefined ? { sizeKb: async () => sizeKb } : {}) }),
          fs,
          gitdir: '/repo/.git',
          taskText,
          policy: { ...DEFAULT_INGESTION_POLICY, maxFileCount: 1_000_000, maxRepoSizeMb: 10_000, bloblessOverMb: 1 },
          clock: { now: () => Math.round(performance.now()) },
          logger,
        });
        const measured = { ms: performance.now() - start, bytes: result.report.fetch?.bytes ?? 0, objects: await countObjects(fs, '/repo/.git') };
        await later?.(result, fs);
        return measured;
      } finally {
        await server.stop();
      }
    };
    const later: BenchRecord[] = [];
    const shallow = await run('Rename value3 to valueThree', undefined, async (result) => {
      // A history question after a shallow fetch: deepen on demand to 50 commits.
      const start = performance.now();
      const deepened = await result.workspace.missing?.deepen?.(50);
      later.push({
        name: 'shallow: deepen on demand to 50 commits',
        size,
        value: round(performance.now() - start),
        unit: 'ms',
        note: `${round((deepened?.bytes ?? 0) / 1024)} KiB transferred`,
      });
    });
    const rows: [string, Awaited<ReturnType<typeof run>>][] = [
      ['shallow-object-backed (depth 1)', shallow],
      ['deepened (deepen 50)', await run('Fix the regression in calc')],
      [
        'deepened (deepen-since, half the history)',
        await run(`broken since ${new Date(Date.UTC(2024, 0, 1) + Math.floor(commits / 2) * 86_400_000).toISOString().slice(0, 10)}`),
      ],
      [
        'blobless (filter blob:none, depth 1)',
        await run('Rename value3 to valueThree', 2048, async (result, fs) => {
          const before = await countObjects(fs, '/repo/.git');
          const start = performance.now();
          for (const p of result.workspace
            .paths()
            .filter((q) => q.endsWith('.ts'))
            .slice(0, 20))
            await result.workspace.read(p);
          later.push({
            name: 'blobless: 20 files read on demand',
            size,
            value: round(performance.now() - start),
            unit: 'ms',
            note: `${(await countObjects(fs, '/repo/.git')) - before} blobs fetched, one request each`,
          });
        }),
      ],
    ];
    for (const [name, r] of rows) {
      records.push({
        name: `strategy ${name}`,
        size,
        value: round(r.ms),
        unit: 'ms',
        baseline: round(shallow.ms),
        ratio: round(r.ms / shallow.ms, 2),
        note: `${round(r.bytes / 1024)} KiB transferred (${round(r.bytes / Math.max(shallow.bytes, 1), 2)}x shallow), ${r.objects} objects`,
      });
    }
    records.push(...later);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return records;
}

function printTable(records: BenchRecord[]): void {
  const rows = records.map((r) => [
    r.name,
    String(r.size),
    `${r.value} ${r.unit}`,
    r.baseline === undefined ? '' : String(r.baseline),
    r.ratio === undefined ? '' : `${r.ratio}x`,
    r.note ?? '',
  ]);
  const head = ['benchmark', 'files', 'value', 'baseline', 'ratio', 'note'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  console.log([line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n'));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (process.argv[2] === '--child') await childMain(process.argv[3]);
  else if (process.argv[2] === '--strategies') printTable(await runStrategyBench());
  else {
    const sizes = process.argv
      .slice(2)
      .map(Number)
      .filter((n) => n > 0);
    printTable(await runIngestionBench(sizes.length > 0 ? sizes : undefined));
  }
}
