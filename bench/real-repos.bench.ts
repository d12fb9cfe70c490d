/**
 * Real public repositories of different shapes (bench/real-repos.json), kept as local depth-1
 * bare repositories by scripts/prepare-bench-repos.sh and served by the same loopback
 * `git http-backend` as the generated trees. For each: native `git clone --depth 1
 * --no-checkout` against the CLI's `ingest` (each in a fresh process, imports excluded);
 * ingestion then the repository map in one process (the map's time against that ingestion);
 * target selection for a realistic task; the CLI's `map`; and a one-file `replace` run.
 * A repository that was not prepared is one "skipped" row, never a failure. Runnable alone:
 *   node --import tsx bench/real-repos.bench.ts [--runs N] [--only name,name] [--profile DIR]
 * With --profile, each map process writes a CPU profile of the map build and of target
 * selection (ingestion excluded) into DIR.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { z } from 'zod';
import { runCliTimed } from './cli-child.js';
import { HttpRepoSource } from '../src/app/git/http-repo-source.js';
import { createMemoryFs } from '../src/app/local/memfs-adapter.js';
import { createNodeSyntaxService } from '../src/app/local/node-grammar-loader.js';
import { ingestRepository } from '../src/core/ingestion/ingest-repository.js';
import { youngGenerationDuringIngestion } from '../src/app/runtime/young-generation.js';
import { DEFAULT_INGESTION_POLICY } from '../src/core/ingestion/ingestion-policy.js';
import { policyViews } from '../src/core/paths/policy-views.js';
import { parsePolicy } from '../src/core/policy/parse-policy.js';
import { policyDigest } from '../src/core/policy/policy-digest.js';
import { buildRepoMap } from '../src/core/repomap/build-repo-map.js';
import { FileContents } from '../src/core/repomap/file-contents.js';
import { SymbolIndex } from '../src/core/repomap/symbol-index.js';
import { selectTargets } from '../src/core/targets/select-targets.js';
import { parseTask } from '../src/core/task/parse-task.js';
import { sha256Hex } from '../src/core/util/digest.js';
import { gitEnv } from '../test/fixtures/make-repo.js';
import { startGitHttpServer } from '../test/helpers/git-http-server.js';
import type { BenchRecord } from './bench-record.js';
import { runNodeChild, startHeapSampler, type MemoryPeak } from './child-process.js';

export type { BenchRecord };

const exec = promisify(execFile);
const self = fileURLToPath(import.meta.url);
const root = join(dirname(self), '..');

/** One repository of the benchmark: where it comes from, and the task texts used on it. */
const RealRepo = z.object({
  name: z.string().regex(/^[\w.-]+$/),
  repo: z.string(),
  shape: z.string(),
  commit: z.string(),
  targetsTask: z.string(),
  recipe: z.object({ path: z.string(), find: z.string(), replace: z.string() }),
});
type RealRepo = z.infer<typeof RealRepo>;

/** What scripts/prepare-bench-repos.sh recorded about each prepared repository. */
const ManifestEntry = z.object({
  name: z.string(),
  commit: z.string(),
  pinned: z.boolean(),
  files: z.number(),
  upstreamCommit: z.string().optional(),
  omitted: z.string().optional(),
});

export const SKIPPED_NOTE = 'skipped: not prepared (scripts/prepare-bench-repos.sh)';

/** The repositories of the benchmark: bench/real-repos.json, or BENCH_REPOS_LIST (as for the script). */
export function realRepos(env: NodeJS.ProcessEnv = process.env): RealRepo[] {
  return z.array(RealRepo).parse(JSON.parse(readFileSync(env.BENCH_REPOS_LIST ?? join(root, 'bench', 'real-repos.json'), 'utf8')));
}

export function reposDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.BENCH_REPOS_DIR ?? join(root, 'bench', '.repos');
}

function readManifest(dir: string): Map<string, z.infer<typeof ManifestEntry>> {
  try {
    return new Map(
      z
        .array(ManifestEntry)
        .parse(JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')))
        .map((e) => [e.name, e]),
    );
  } catch {
    return new Map();
  }
}

function recipeTask(r: RealRepo): string {
  return `Rename ${r.recipe.find} to ${r.recipe.replace} in ${r.recipe.path}.

\`\`\`agent
mode: draft_pr
steps:
  - recipe: replace
    paths: [${r.recipe.path}]
    find: ${r.recipe.find}
    replace: ${r.recipe.replace}
\`\`\`
`;
}

interface CliChildResult extends MemoryPeak {
  ms: number;
  code: number;
  status?: string;
  reason?: string;
  /** Stage durations from the command's `--json` phases. */
  ingestMs?: number;
  discoveryMs?: number;
}

interface MapChildResult extends MemoryPeak {
  files: number;
  ingestMs: number;
  mapMs: number;
  targetsMs: number;
  targets: number;
  strategy: string;
  /** Files the map read, then files target selection read and parsed with tree-sitter (after the map). */
  mapReads: number;
  targetReads: number;
  targetParsed: number;
  /** sha256 of the map's JSON: the same input must give the same map. */
  mapDigest: string;
}

/** In the child: one CLI command (`ingest`, `map`, `run --task-file`), timed after the imports. */
async function cliChild(args: string[]): Promise<void> {
  const { ms, code, summary, ...peak } = await runCliTimed(args);
  // The run's own stage timings (`--json` phases), the same figures the e2e benchmark reports.
  const phaseMs = (phase: string) => summary.phases?.find((p) => p.phase === phase)?.ms;
  const ingestMs = phaseMs('ingestion');
  const discoveryMs = phaseMs('discovery');
  process.stdout.write(
    `${JSON.stringify({ ms, code, status: summary.status, reason: summary.reason, ingestMs, discoveryMs, ...peak } satisfies CliChildResult)}\n`,
  );
}

/** Runs `work` under the inspector's CPU profiler and writes the profile to `file`. */
async function profiled<T>(file: string | undefined, work: () => Promise<T>): Promise<T> {
  if (!file) return work();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  try {
    return await work();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  }
}

/**
 * In the child: ingestion into memory, then the map and target selection over that snapshot,
 * as the CLI's `map` and `targets` do (default policy, no cache), each timed on its own.
 */
async function mapChild(url: string, name: string, profileDir: string | undefined): Promise<void> {
  const repo = realRepos().find((r) => r.name === name);
  if (!repo) throw new Error(`unknown repository ${name}`);
  const logger = { debug() {}, info() {}, warn() {}, error() {} };
  const syntax = await createNodeSyntaxService();
  const sampler = startHeapSampler();
  const t0 = performance.now();
  // Bracketed as the pipeline brackets it for the CLI and the worker (PipelineDeps.ingestionMemory).
  youngGenerationDuringIngestion.enter();
  const { workspace } = await ingestRepository({
    source: new HttpRepoSource({ url }),
    fs: createMemoryFs(),
    gitdir: '/repo/.git',
    policy: { ...DEFAULT_INGESTION_POLICY, maxFileCount: 1_000_000, maxRepoSizeMb: 10_000 },
    clock: { now: () => Date.now() },
    logger,
  });
  youngGenerationDuringIngestion.leave();
  const t1 = performance.now();
  const policy = parsePolicy({ text: undefined });
  const task = parseTask({ title: repo.targetsTask, body: repo.targetsTask, source: 'cli' });
  const { rules } = policyViews(policy, task);
  const contents = new FileContents(workspace);
  const map = await profiled(profileDir && join(profileDir, `${name}-map.cpuprofile`), () =>
    buildRepoMap({ workspace, owner: 'local', repo: name, rules, policyDigest: policyDigest(policy), contents }),
  );
  const t2 = performance.now();
  const mapReads = contents.readsFromStore;
  const symbols = new SymbolIndex(syntax, contents);
  const selection = await profiled(profileDir && join(profileDir, `${name}-targets.cpuprofile`), () =>
    selectTargets({ workspace, task, map, rules, contents, syntax, symbols }),
  );
  const t3 = performance.now();
  const result: MapChildResult = {
    files: workspace.paths().length,
    ingestMs: t1 - t0,
    mapMs: t2 - t1,
    targetsMs: t3 - t2,
    targets: selection.selectedFiles.length,
    strategy: selection.strategy,
    mapReads,
    targetReads: contents.readsFromStore - mapReads,
    targetParsed: symbols.extracted,
    mapDigest: sha256Hex(JSON.stringify(map)),
    ...sampler.stop(),
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

const round = (n: number, digits = 0): number => Number(n.toFixed(digits));
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

function prepared(dir: string): boolean {
  return existsSync(join(dir, 'HEAD')) && existsSync(join(dir, 'objects'));
}

/** Milliseconds of `runs` native shallow clones (no checkout) of `url`. */
async function nativeClones(url: string, scratch: string, runs: number): Promise<number[]> {
  const native: number[] = [];
  for (let i = 0; i < runs; i++) {
    const into = join(scratch, `clone-${i}`);
    const start = performance.now();
    await exec('git', ['clone', '-q', '--depth', '1', '--no-checkout', url, into], { env: gitEnv(), maxBuffer: 64 * 1024 * 1024 });
    native.push(performance.now() - start);
    rmSync(into, { recursive: true, force: true });
  }
  return native;
}

/** The commit measured, as the row notes name it (a trimmed tree says what it left out). */
function commitLabel(m: z.infer<typeof ManifestEntry> | undefined): string {
  if (!m) return 'commit unknown';
  return `${m.commit.slice(0, 12)}${m.omitted ? ` (tree of ${m.upstreamCommit?.slice(0, 12)} without ${m.omitted})` : ''}`;
}

/** The timing rows of one repository: native clone, CLI ingest, map build and target selection, medians of `runs`. */
function timingRecords(
  r: ReturnType<typeof realRepos>[number],
  size: BenchRecord['size'],
  commit: string,
  runs: number,
  measured: { native: number[]; ingests: CliChildResult[]; maps: MapChildResult[] },
): BenchRecord[] {
  const { native, ingests, maps } = measured;
  const nativeMs = median(native);
  const cliIngestMs = median(ingests.map((x) => x.ms));
  const mapMs = median(maps.map((x) => x.mapMs));
  const mapIngestMs = median(maps.map((x) => x.ingestMs));
  const digests = new Set(maps.map((x) => x.mapDigest));
  const okIngest = ingests.every((x) => x.code === 0);
  return [
    {
      name: `real.${r.name}.native`,
      size,
      value: round(nativeMs),
      unit: 'ms',
      note: `git clone --depth 1 --no-checkout, median of ${runs}; ${r.repo} at ${commit}`,
    },
    {
      name: `real.${r.name}.cliIngest`,
      size,
      value: okIngest ? round(cliIngestMs) : NaN,
      unit: 'ms',
      baseline: round(nativeMs),
      ratio: okIngest ? round(cliIngestMs / nativeMs, 2) : undefined,
      note: `${okIngest ? '' : `FAILED: ${ingests.find((x) => x.code !== 0)?.reason}; `}draftsman ingest in a fresh process (imports excluded), median of ${runs}; ingestion itself ${round(median(ingests.map((x) => x.ingestMs ?? NaN)))} ms; maxRSS ${median(ingests.map((x) => x.maxRssMb))} MB`,
    },
    {
      name: `real.${r.name}.map`,
      size,
      value: round(mapMs),
      unit: 'ms',
      baseline: round(mapIngestMs),
      ratio: round(mapMs / mapIngestMs, 2),
      note: `map build after ingestion in the same process (baseline: that ingestion), medians of ${runs}; ${digests.size === 1 ? 'same map every run' : `**${digests.size} different maps**`} (sha256 ${[...digests][0].slice(0, 12)}); ${maps[0].mapReads} files read; maxRSS ${median(maps.map((x) => x.maxRssMb))} MB`,
    },
    {
      name: `real.${r.name}.targets`,
      size,
      value: round(median(maps.map((x) => x.targetsMs))),
      unit: 'ms',
      note: `target selection after the map, median of ${runs}: ${maps[0].targets} target(s) (${maps[0].strategy}), ${maps[0].targetReads} more files read, ${maps[0].targetParsed} parsed for symbols, for "${r.targetsTask.slice(0, 60)}…"`,
    },
  ];
}

/**
 * Every repository of bench/real-repos.json: the prepared ones measured, the others one
 * skipped row each. Never throws for a missing repository.
 */
export async function runRealReposBench(options: { runs?: number; timeoutMs?: number; profileDir?: string; only?: string[] } = {}): Promise<BenchRecord[]> {
  const runs = options.runs ?? 3;
  const timeoutMs = options.timeoutMs ?? 5 * 60_000;
  const dir = reposDir();
  const manifest = readManifest(dir);
  const records: BenchRecord[] = [];
  const present = realRepos().filter((r) => {
    if (options.only && !options.only.includes(r.name)) return false;
    if (prepared(join(dir, `${r.name}.git`))) return true;
    records.push({ name: `real.${r.name}`, size: r.shape, value: NaN, unit: 'ms', note: SKIPPED_NOTE });
    return false;
  });
  if (present.length === 0) return records;
  const scratch = mkdtempSync(join(tmpdir(), 'bench-real-'));
  let outs = 0;
  const server = await startGitHttpServer({ root: dir });
  try {
    for (const r of present) {
      const url = `${server.url}/${r.name}.git`;
      const m = manifest.get(r.name);
      const size = m?.files ?? r.shape;
      const commit = commitLabel(m);
      const child = <T>(args: string[]) => runNodeChild<T>(self, args, { timeoutMs });
      // A fresh artifact root per command: a stored map of an earlier command would be a cache hit.
      const cli = (args: string[]) => child<CliChildResult>(['--child', 'cli', ...args, '--out', join(scratch, `state-${++outs}`)]);
      try {
        await exec('git', ['ls-remote', url], { env: gitEnv() }); // warm the server path and the page cache
        const native = await nativeClones(url, scratch, runs);
        const ingests: CliChildResult[] = [];
        for (let i = 0; i < runs; i++) ingests.push(await cli(['ingest', url]));
        const maps: MapChildResult[] = [];
        for (let i = 0; i < runs; i++)
          maps.push(await child<MapChildResult>(['--child', 'map', url, r.name, ...(options.profileDir ? [options.profileDir] : [])]));
        records.push(...timingRecords(r, size, commit, runs, { native, ingests, maps }));
        const map = await cli(['map', url]);
        records.push({
          name: `real.${r.name}.cliMap`,
          size,
          value: round(map.ms),
          unit: 'ms',
          note: `draftsman map in a fresh process: exit ${map.code}, ${map.status ?? 'no status'}${map.reason ? ` (${map.reason})` : ''}; ingestion ${map.ingestMs ?? '?'} ms, discovery (map + targets) ${map.discoveryMs ?? '?'} ms`,
        });
        const taskFile = join(scratch, `${r.name}-task.md`);
        writeFileSync(taskFile, recipeTask(r));
        const run = await cli(['run', url, '--task-file', taskFile]);
        records.push({
          name: `real.${r.name}.recipe`,
          size,
          value: round(run.ms),
          unit: 'ms',
          note: `draftsman run, one replace step on ${r.recipe.path}: exit ${run.code}, ${run.status ?? 'no status'}${run.reason ? ` (${run.reason})` : ''}; ingestion ${run.ingestMs ?? '?'} ms, discovery ${run.discoveryMs ?? '?'} ms; maxRSS ${run.maxRssMb} MB`,
        });
      } catch (error) {
        records.push({ name: `real.${r.name}`, size, value: NaN, unit: 'ms', note: `FAILED: ${(error as Error).message}` });
      }
    }
  } finally {
    await server.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
  return records;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (process.argv[2] === '--child' && process.argv[3] === 'cli') await cliChild(process.argv.slice(4));
  else if (process.argv[2] === '--child' && process.argv[3] === 'map') await mapChild(process.argv[4], process.argv[5], process.argv[6]);
  else {
    const flag = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
    const profileDir = flag('--profile');
    if (profileDir) mkdirSync(profileDir, { recursive: true });
    const records = await runRealReposBench({ runs: flag('--runs') ? Number(flag('--runs')) : undefined, profileDir, only: flag('--only')?.split(',') });
    for (const r of records)
      console.log(
        `${r.name.padEnd(30)} ${String(r.value).padStart(8)} ${r.unit.padEnd(3)} ${r.ratio === undefined ? '' : `${r.ratio}x `}n=${r.size}${r.note ? `  (${r.note})` : ''}`,
      );
  }
}
