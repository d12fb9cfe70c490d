/**
 * Hostile repositories at full size: a 200k-file tree against the default `maxFileCount`
 * (100k) must end in FILE_COUNT_EXCEEDED, a directory chain 10k deep in HOSTILE_TREE_ENTRY
 * (TOO_DEEP). Measures the time to refusal and the peak memory of the ingesting process (a
 * child, so its memory is its own), served by a loopback `git http-backend`. Runnable alone:
 *   node --import tsx bench/hostile.bench.ts [--json] [--files N] [--depth N] [--max-files N]
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { deflateSync } from 'node:zlib';
import { HttpRepoSource } from '../src/app/git/http-repo-source.js';
import { createMemoryFs } from '../src/app/local/memfs-adapter.js';
import { IngestionError } from '../src/core/errors.js';
import { ingestRepository } from '../src/core/ingestion/ingest-repository.js';
import { DEFAULT_INGESTION_POLICY } from '../src/core/ingestion/ingestion-policy.js';
import { commitTree, git, initBare } from '../test/fixtures/make-repo.js';
import { startGitHttpServer } from '../test/helpers/git-http-server.js';
import { runNodeChild, startHeapSampler, type MemoryPeak } from './child-process.js';
import type { BenchRecord } from './bench-record.js';

export type { BenchRecord };

const self = fileURLToPath(import.meta.url);

/**
 * `files` distinct small blobs in nested directories (1,000 per directory), one commit, packed:
 * what a real repository of that many files costs to fetch, built with `git fast-import`.
 */
export function makeManyFilesRepo(gitdir: string, files: number): string {
  initBare(gitdir);
  const chunks: Buffer[] = [Buffer.from('commit refs/heads/main\ncommitter Fixture <f@example.test> 1704164645 +0000\ndata 5\nmany\n')];
  for (let i = 0; i < files; i++) {
    const data = Buffer.from(`file ${i}\n`);
    chunks.push(Buffer.from(`M 100644 inline d${Math.floor(i / 1000)}/f${i}.txt\ndata ${data.length}\n`), data, Buffer.from('\n'));
  }
  git(['--git-dir', gitdir, 'fast-import', '--quiet'], { input: Buffer.concat(chunks) });
  git(['--git-dir', gitdir, 'repack', '-a', '-d', '-q']);
  return git(['--git-dir', gitdir, 'rev-parse', 'refs/heads/main']);
}

/** Write one loose object the way git does (zlib of `type size\0body`); returns its SHA-1. */
function writeLooseObject(gitdir: string, type: 'blob' | 'tree', body: Buffer): Buffer {
  const raw = Buffer.concat([Buffer.from(`${type} ${body.length}\u0000`), body]);
  const oid = createHash('sha1').update(raw).digest();
  const hex = oid.toString('hex');
  mkdirSync(join(gitdir, 'objects', hex.slice(0, 2)), { recursive: true });
  writeFileSync(join(gitdir, 'objects', hex.slice(0, 2), hex.slice(2)), deflateSync(raw));
  return oid;
}

/**
 * `d/d/.../leaf.txt`, `depth` directories deep, next to a README. The trees are written as
 * loose objects directly (one `git hash-object` per level would take minutes at 10k), then
 * packed by git.
 */
export function makeDeepChainRepo(gitdir: string, depth: number): string {
  initBare(gitdir);
  const entry = (mode: string, name: string, oid: Buffer) => Buffer.concat([Buffer.from(`${mode} ${name}\u0000`), oid]);
  let oid = writeLooseObject(gitdir, 'tree', entry('100644', 'leaf.txt', writeLooseObject(gitdir, 'blob', Buffer.from('deep\n'))));
  // depth - 1 here; the root's `d` entry is the last level.
  for (let i = 1; i < depth; i++) oid = writeLooseObject(gitdir, 'tree', entry('40000', 'd', oid));
  const readme = writeLooseObject(gitdir, 'blob', Buffer.from('# fixture\n'));
  const root = writeLooseObject(gitdir, 'tree', Buffer.concat([entry('100644', 'README.md', readme), entry('40000', 'd', oid)]));
  const commit = commitTree(gitdir, root.toString('hex'));
  git(['--git-dir', gitdir, 'repack', '-a', '-d', '-q']);
  return commit;
}

interface ChildResult extends MemoryPeak {
  ms: number;
  outcome: string;
  kind?: string;
  fileCount?: number;
  fetchMs?: number;
  fetchBytes?: number;
}

/** In the child: ingest with the default policy and report how (and how fast) it ended. */
async function childMain(url: string, maxFileCount: number): Promise<void> {
  const sampler = startHeapSampler();
  const logger = { debug() {}, info() {}, warn() {}, error() {} };
  const start = performance.now();
  let result: Omit<ChildResult, keyof MemoryPeak>;
  try {
    await ingestRepository({
      source: new HttpRepoSource({ url }),
      fs: createMemoryFs(),
      gitdir: '/repo/.git',
      policy: { ...DEFAULT_INGESTION_POLICY, maxFileCount },
      clock: { now: () => Math.round(performance.now()) },
      logger,
    });
    result = { ms: performance.now() - start, outcome: 'READY (not refused)' };
  } catch (error) {
    const ms = performance.now() - start;
    if (!(error instanceof IngestionError)) throw error;
    const scan = error.data.policyScan as { fileCount?: number; findings?: { code: string; data?: { kind?: string } }[] } | undefined;
    const report = error.data.report as { fetch?: { durationMs: number; bytes: number | null } | null } | undefined;
    result = {
      ms,
      outcome: error.reason,
      kind: scan?.findings?.find((f) => f.code === error.reason)?.data?.kind,
      fileCount: scan?.fileCount,
      fetchMs: report?.fetch?.durationMs,
      fetchBytes: report?.fetch?.bytes ?? undefined,
    };
  }
  process.stdout.write(`${JSON.stringify({ ...result, ...sampler.stop() })}\n`);
}

const round = (n: number, digits = 0): number => Number(n.toFixed(digits));

/** Time to refusal and peak memory for the two full-size hostile repositories. */
export async function runHostileBench(options: { files?: number; depth?: number; maxFileCount?: number; timeoutMs?: number } = {}): Promise<BenchRecord[]> {
  const files = options.files ?? 200_000;
  const depth = options.depth ?? 10_000;
  const maxFileCount = options.maxFileCount ?? DEFAULT_INGESTION_POLICY.maxFileCount;
  const root = mkdtempSync(join(tmpdir(), 'bench-hostile-'));
  const records: BenchRecord[] = [];
  try {
    let t = performance.now();
    makeManyFilesRepo(join(root, 'many.git'), files);
    const buildMany = performance.now() - t;
    t = performance.now();
    makeDeepChainRepo(join(root, 'deep.git'), depth);
    const buildDeep = performance.now() - t;
    const server = await startGitHttpServer({ root });
    try {
      const cases = [
        {
          repo: 'many',
          size: files,
          expect: 'FILE_COUNT_EXCEEDED',
          label: `${files} files vs maxFileCount ${maxFileCount}${maxFileCount === DEFAULT_INGESTION_POLICY.maxFileCount ? ' (default)' : ''}`,
          buildMs: buildMany,
        },
        {
          repo: 'deep',
          size: depth,
          expect: 'HOSTILE_TREE_ENTRY/TOO_DEEP',
          label: `chain ${depth} directories deep vs maxPathDepth ${DEFAULT_INGESTION_POLICY.maxPathDepth}`,
          buildMs: buildDeep,
        },
      ];
      for (const c of cases) {
        const name = c.repo === 'many' ? 'hostile.manyFiles' : 'hostile.deepChain';
        try {
          const r = await runNodeChild<ChildResult>(self, ['--child', `${server.url}/${c.repo}.git`, String(maxFileCount)], {
            timeoutMs: options.timeoutMs ?? 10 * 60_000,
          });
          const got = r.kind ? `${r.outcome}/${r.kind}` : r.outcome;
          const fetch = r.fetchMs === undefined ? '' : `; fetch ${r.fetchMs} ms${r.fetchBytes ? `, ${round(r.fetchBytes / 1048576, 1)} MB pack` : ''}`;
          records.push(
            {
              name: `${name}.timeToRefusal`,
              size: c.size,
              value: round(r.ms),
              unit: 'ms',
              note: `${got === c.expect ? 'refused' : 'UNEXPECTED'}: ${got} (expected ${c.expect}); ${c.label}${fetch}; fixture built in ${round(c.buildMs / 1000, 1)} s`,
            },
            { name: `${name}.peakRss`, size: c.size, value: r.maxRssMb, unit: 'MB', note: 'maxRSS of the ingesting process' },
            { name: `${name}.peakHeap`, size: c.size, value: r.peakHeapMb, unit: 'MB', note: 'heapUsed sampled every 10 ms' },
          );
        } catch (error) {
          records.push({ name: `${name}.timeToRefusal`, size: c.size, value: NaN, unit: 'ms', note: `FAILED: ${(error as Error).message}` });
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
  if (process.argv[2] === '--child') await childMain(process.argv[3], Number(process.argv[4]));
  else {
    const records = await runHostileBench({ files: flag('--files'), depth: flag('--depth'), maxFileCount: flag('--max-files') });
    if (process.argv.includes('--json')) for (const r of records) console.log(JSON.stringify(r));
    else
      for (const r of records)
        console.log(`${r.name.padEnd(30)} ${String(r.value).padStart(8)} ${r.unit.padEnd(3)} n=${r.size}${r.note ? `  (${r.note})` : ''}`);
  }
}
