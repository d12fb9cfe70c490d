import { readdirSync, lstatSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createHash } from 'node:crypto';

/**
 * Safety bounds for hostile inputs: wall time and heap growth of one operation. These are not
 * performance assertions, only "it ends, and it does not eat the machine".
 */
export const MAX_HOSTILE_MS = 20_000;
export const MAX_HOSTILE_HEAP_MB = 500;

export interface Measured<T> {
  value?: T;
  error?: unknown;
  ms: number;
  /** Highest heapUsed seen while the operation ran, minus heapUsed before it (MB). */
  heapPeakDeltaMb: number;
}

/**
 * Run `fn` and measure it. heapUsed is sampled every 5 ms on a timer (it runs whenever the
 * operation awaits) and once more at the end, so a synchronous spike between samples is the
 * only thing it can miss; the bound is generous enough for that.
 */
export async function measure<T>(fn: () => Promise<T>): Promise<Measured<T>> {
  const before = process.memoryUsage().heapUsed;
  let peak = before;
  const sample = (): void => {
    const used = process.memoryUsage().heapUsed;
    if (used > peak) peak = used;
  };
  const timer = setInterval(sample, 5);
  const start = performance.now();
  try {
    const value = await fn();
    return { value, ms: performance.now() - start, heapPeakDeltaMb: (Math.max(peak, process.memoryUsage().heapUsed) - before) / 1048576 };
  } catch (error) {
    sample();
    return { error, ms: performance.now() - start, heapPeakDeltaMb: (peak - before) / 1048576 };
  } finally {
    clearInterval(timer);
  }
}

/**
 * Every entry under `dir` (relative path, type, size, content digest for files, link target
 * for symlinks), sorted: two equal snapshots mean nothing was written, changed or removed.
 */
export function treeSnapshot(dir: string, skip: (relativePath: string) => boolean = () => false): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const full = join(d, name);
      const rel = relative(dir, full);
      if (skip(rel)) continue;
      const st = lstatSync(full);
      if (st.isDirectory()) {
        out.push(`${rel}/ dir ${st.mode.toString(8)}`);
        walk(full);
      } else if (st.isSymbolicLink()) out.push(`${rel} link`);
      else out.push(`${rel} ${st.size} ${st.mode.toString(8)} ${createHash('sha1').update(readFileSync(full)).digest('hex')}`);
    }
  };
  walk(dir);
  return out;
}
