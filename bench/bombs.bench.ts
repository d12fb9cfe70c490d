/**
 * Bombs: a pack whose blob inflates to 1.5 GB of zeros (1.5 MB compressed) and a tree bomb of
 * ten shared subtrees per level (10^7 paths from a few dozen objects). Measures the time to
 * refusal and the peak RSS of the ingesting process (a child, so its memory is its own): the
 * pack over a loopback `git http-backend`, the tree bomb as a local checkout whose HEAD it is
 * (where `git status` would list every path) and over HTTP. Runnable alone:
 *   node --import tsx bench/bombs.bench.ts [--json] [--blob-mb N] [--levels N]
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { HttpRepoSource } from '../src/app/git/http-repo-source.js';
import { LocalRepoSource } from '../src/app/git/local-repo-source.js';
import { createMemoryFs } from '../src/app/local/memfs-adapter.js';
import { IngestionError } from '../src/core/errors.js';
import { ingestRepository } from '../src/core/ingestion/ingest-repository.js';
import { DEFAULT_INGESTION_POLICY } from '../src/core/ingestion/ingestion-policy.js';
import { commitTree, git, gitEnv, initBare } from '../test/fixtures/make-repo.js';
import { startGitHttpServer } from '../test/helpers/git-http-server.js';
import { makeTreeBombRepo } from '../test/reliability/hostile-fixtures.js';
import type { BenchRecord } from './bench-record.js';
import { runNodeChild, startHeapSampler, type MemoryPeak } from './child-process.js';

export type { BenchRecord };

const self = fileURLToPath(import.meta.url);
const round = (n: number, digits = 0): number => Number(n.toFixed(digits));

/** One blob of `mb` MiB of zeros, streamed into git (never held in this process). */
function makeZeroBlobRepo(gitdir: string, mb: number): void {
  initBare(gitdir);
  const blob = execFileSync('sh', ['-c', `head -c ${mb * 1024 * 1024} /dev/zero | git --git-dir "$0" hash-object -w --stdin`, gitdir], { env: gitEnv() })
    .toString('utf8')
    .trim();
  const tree = git(['--git-dir', gitdir, 'mktree'], { input: `100644 blob ${blob}\tzeros.bin\n` });
  commitTree(gitdir, tree);
  git(['--git-dir', gitdir, 'repack', '-a', '-d', '-q']);
}

/** A working copy whose HEAD is the tree bomb and whose index is a one-file commit's. */
function makeBombCheckout(dir: string, bomb: string): void {
  mkdirSync(dir);
  git(['init', '-q', '-b', 'main'], { cwd: dir });
  writeFileSync(join(dir, 'README.md'), '# checkout\n');
  git(['add', '-A'], { cwd: dir });
  git(['commit', '-qm', 'initial'], { cwd: dir });
  git(['fetch', '-q', bomb, 'main:refs/heads/bomb'], { cwd: dir });
  git(['update-ref', '--no-deref', 'HEAD', 'refs/heads/bomb'], { cwd: dir });
}

interface ChildResult extends MemoryPeak {
  ms: number;
  outcome: string;
}

/** In the child: ingest with the default policy and report how (and how fast) it ended. */
async function childMain(kind: string, location: string): Promise<void> {
  const sampler = startHeapSampler();
  const logger = { debug() {}, info() {}, warn() {}, error() {} };
  const start = performance.now();
  const source = kind === 'local' ? new LocalRepoSource(location) : new HttpRepoSource({ url: location });
  let outcome: string;
  try {
    const result = await ingestRepository({
      source,
      fs: createMemoryFs(),
      gitdir: '/repo/.git',
      ref: kind === 'local' ? 'main' : undefined,
      policy: DEFAULT_INGESTION_POLICY,
      clock: { now: () => Math.round(performance.now()) },
      logger,
    });
    outcome = result.status;
  } catch (error) {
    if (!(error instanceof IngestionError)) throw error;
    outcome = error.reason;
  }
  process.stdout.write(`${JSON.stringify({ ms: performance.now() - start, outcome, ...sampler.stop() })}\n`);
}

/** Time to refusal and peak RSS for the pack bomb and the tree bomb. */
export async function runBombsBench(options: { blobMb?: number; levels?: number; timeoutMs?: number } = {}): Promise<BenchRecord[]> {
  const blobMb = options.blobMb ?? 1536;
  const levels = options.levels ?? 6;
  const paths = 10 ** (levels + 1);
  const root = mkdtempSync(join(tmpdir(), 'bench-bombs-'));
  const records: BenchRecord[] = [];
  try {
    let t = performance.now();
    makeZeroBlobRepo(join(root, 'zeros.git'), blobMb);
    const buildPack = performance.now() - t;
    t = performance.now();
    makeTreeBombRepo(join(root, 'bomb.git'), 10, levels);
    makeBombCheckout(join(root, 'checkout'), join(root, 'bomb.git'));
    const buildTree = performance.now() - t;
    const server = await startGitHttpServer({ root });
    try {
      const cases = [
        // Over the repository limit: refused from the object header. Under it: hashed as a stream, so READY with a FILE_TOO_LARGE warning, in bounded memory.
        {
          name: 'bombs.pack',
          kind: 'http',
          location: `${server.url}/zeros.git`,
          size: `${blobMb} MiB of zeros`,
          expect: blobMb > DEFAULT_INGESTION_POLICY.maxRepoSizeMb ? 'FILE_TOO_LARGE' : 'READY_WITH_WARNINGS',
          buildMs: buildPack,
        },
        {
          name: 'bombs.treeAtLocalHead',
          kind: 'local',
          location: join(root, 'checkout'),
          size: `${paths} paths`,
          expect: 'FILE_COUNT_EXCEEDED',
          buildMs: buildTree,
        },
        {
          name: 'bombs.treeOverHttp',
          kind: 'http',
          location: `${server.url}/bomb.git`,
          size: `${paths} paths`,
          expect: 'FILE_COUNT_EXCEEDED',
          buildMs: buildTree,
        },
      ];
      for (const c of cases) {
        try {
          const r = await runNodeChild<ChildResult>(self, ['--child', c.kind, c.location], { timeoutMs: options.timeoutMs ?? 5 * 60_000 });
          const verdict = r.outcome !== c.expect ? 'UNEXPECTED' : r.outcome.startsWith('READY') ? 'accepted' : 'refused';
          records.push(
            {
              name: `${c.name}.timeToRefusal`,
              size: c.size,
              value: round(r.ms),
              unit: 'ms',
              note: `${verdict}: ${r.outcome} (expected ${c.expect}); default policy; fixture built in ${round(c.buildMs / 1000, 1)} s`,
            },
            { name: `${c.name}.peakRss`, size: c.size, value: r.maxRssMb, unit: 'MB', note: 'maxRSS of the ingesting process' },
          );
        } catch (error) {
          records.push({ name: `${c.name}.timeToRefusal`, size: c.size, value: NaN, unit: 'ms', note: `FAILED: ${(error as Error).message}` });
        }
      }
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return records;
}

function flag(name: string): number | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : undefined;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (process.argv[2] === '--child') await childMain(process.argv[3], process.argv[4]);
  else {
    const records = await runBombsBench({ blobMb: flag('--blob-mb'), levels: flag('--levels') });
    if (process.argv.includes('--json')) for (const r of records) console.log(JSON.stringify(r));
    else
      for (const r of records)
        console.log(`${r.name.padEnd(34)} ${String(r.value).padStart(8)} ${r.unit.padEnd(3)} n=${r.size}${r.note ? `  (${r.note})` : ''}`);
  }
}
