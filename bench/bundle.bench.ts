/**
 * Bundle size of each handler: runs the project's own build (`node scripts/build.mjs --quiet`,
 * esbuild, one ESM file per handler in dist/) and stats what it wrote, raw and gzipped (a
 * Lambda zip is deflate, so gzip is close to the upload size). Runnable alone:
 *   node --import tsx bench/bundle.bench.ts [--json]
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { BenchRecord } from './bench-record.js';

export type { BenchRecord };

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const HANDLERS = ['webhook', 'worker', 'publisher', 'token-read', 'token-write', 'sweeper', 'verifier', 'cli'];

const kib = (bytes: number): number => Math.round((bytes / 1024) * 10) / 10;

/** Build, then one record per handler bundle (KiB; gzipped size in the note). Missing handlers are rows too. */
export async function runBundleBench(): Promise<BenchRecord[]> {
  const start = performance.now();
  let buildError: string | undefined;
  try {
    execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--quiet'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString('utf8') ?? String(error);
    buildError = stderr.trim().split('\n').slice(-3).join(' | ').slice(0, 300);
  }
  const buildMs = Math.round(performance.now() - start);
  const records: BenchRecord[] = [];
  const dist = join(root, 'dist');
  const built = existsSync(dist) ? readdirSync(dist).filter((f) => f.endsWith('.mjs')) : [];
  for (const name of HANDLERS) {
    const file = join(dist, `${name}.mjs`);
    const source = join(root, 'src', 'handlers', `${name}.ts`);
    if (!existsSync(source)) {
      records.push({ name: `bundle.${name}`, size: 1, value: NaN, unit: 'KiB', note: `no src/handlers/${name}.ts yet` });
      continue;
    }
    if (!existsSync(file) || statSync(file).mtimeMs < Date.now() - 10 * 60_000) {
      records.push({ name: `bundle.${name}`, size: 1, value: NaN, unit: 'KiB', note: `not built${buildError ? `: ${buildError}` : ''}` });
      continue;
    }
    const bytes = readFileSync(file);
    records.push({
      name: `bundle.${name}`,
      size: 1,
      value: kib(bytes.length),
      unit: 'KiB',
      note: `dist/${name}.mjs; gzip ${kib(gzipSync(bytes, { level: 9 }).length)} KiB`,
    });
  }
  const others = built.filter((f) => !HANDLERS.includes(f.replace(/\.mjs$/, '')));
  records.push({
    name: 'bundle.build',
    size: HANDLERS.length,
    value: buildMs,
    unit: 'ms',
    note: `node scripts/build.mjs --quiet${buildError ? `; FAILED: ${buildError}` : ''}${others.length ? `; also in dist: ${others.join(', ')}` : ''}`,
  });
  return records;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const records = await runBundleBench();
  if (process.argv.includes('--json')) for (const r of records) console.log(JSON.stringify(r));
  else for (const r of records) console.log(`${r.name.padEnd(22)} ${String(r.value).padStart(8)} ${r.unit.padEnd(4)}${r.note ? `  (${r.note})` : ''}`);
}
