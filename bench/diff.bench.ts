/**
 * Line diff cost on large files: the unified patch (`buildHunks`) and the secret scan's added
 * lines (`addedLines`) of a file with every line changed, at 1 MB and 20 MB, plus a 1 MB file
 * with a few scattered edits (the exact Myers path). Runnable alone:
 *   node --import tsx bench/diff.bench.ts [--sizes 1,20]
 */
import { pathToFileURL } from 'node:url';
import { addedLines } from '../src/core/secrets/secret-scan.js';
import { buildHunks } from '../src/core/git/unified-patch.js';
import type { BenchRecord } from './bench-record.js';

const MB = 1024 * 1024;

/** About `bytes` of 40-byte lines; `salt` changes every line, `every` keeps all but one line in `every`. */
function textOf(bytes: number, salt: string, every = 1): string {
  const lines: string[] = [];
  for (let i = 0, size = 0; size < bytes; i++) {
    const line = `line ${String(i).padStart(8, '0')} ${i % every === 0 ? salt : 'same'} ${'x'.repeat(16)}\n`;
    lines.push(line);
    size += line.length;
  }
  return lines.join('');
}

const round = (n: number): number => Math.round(n * 10) / 10;

/** Wall time, and CPU time of this process (the machine may be shared: CPU time shows the cost itself). */
function time(fn: () => void): { ms: number; cpuMs: number } {
  const start = performance.now();
  const cpu = process.cpuUsage();
  fn();
  const used = process.cpuUsage(cpu);
  return { ms: performance.now() - start, cpuMs: (used.user + used.system) / 1000 };
}

export async function runDiffBench(options: { sizesMb?: number[] } = {}): Promise<BenchRecord[]> {
  const records: BenchRecord[] = [];
  const encoder = new TextEncoder();
  for (const mb of options.sizesMb ?? [1, 20]) {
    const before = textOf(mb * MB, 'aaaa');
    const after = textOf(mb * MB, 'bbbb');
    let changed = 0;
    const patch = time(() => {
      changed = buildHunks(before, after).insertions;
    });
    records.push({
      name: 'diff.allLinesChanged.unifiedPatch',
      size: `${mb} MB`,
      value: round(patch.ms),
      unit: 'ms',
      note: `${changed} lines changed; CPU ${round(patch.cpuMs)} ms`,
    });
    const scan = time(() => {
      addedLines(encoder.encode(before), encoder.encode(after));
    });
    records.push({
      name: 'diff.allLinesChanged.secretScanAddedLines',
      size: `${mb} MB`,
      value: round(scan.ms),
      unit: 'ms',
      note: `CPU ${round(scan.cpuMs)} ms`,
    });
  }
  const base = textOf(MB, 'aaaa', 1);
  const scattered = textOf(MB, 'aaaa', 1).replace(/line (\d{5}000) aaaa/g, 'line $1 edit');
  const exact = time(() => buildHunks(base, scattered));
  records.push({
    name: 'diff.scatteredEdits.unifiedPatch',
    size: '1 MB',
    value: round(exact.ms),
    unit: 'ms',
    note: `one line in 1000 changed; CPU ${round(exact.cpuMs)} ms`,
  });
  return records;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const i = process.argv.indexOf('--sizes');
  const sizesMb = i >= 0 ? process.argv[i + 1].split(',').map(Number) : undefined;
  for (const r of await runDiffBench({ sizesMb }))
    console.log(`${r.name.padEnd(45)} ${String(r.value).padStart(8)} ${r.unit} ${r.size}${r.note ? `  (${r.note})` : ''}`);
}
