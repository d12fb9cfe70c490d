/**
 * Measuring a piece of work in its own process, so peak RSS and heap belong to that work alone:
 * the parent spawns `node <CHILD_NODE_ARGS> <script> ...args` and reads the child's last stdout line
 * as JSON; the child samples its heap while it works.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * How a child process starts: TypeScript through tsx, then, before the script's own modules,
 * what the composition roots that ingest import first (src/handlers/cli.ts, worker.ts), so the
 * child's runtime is configured as the CLI's and the worker's are.
 */
export const CHILD_NODE_ARGS = ['--import', 'tsx', '--import', new URL('../src/app/runtime/keep-young-generation.ts', import.meta.url).href];

/** Peak memory of this process: sampled `heapUsed` plus the kernel's `maxRSS` (a true peak). */
export interface MemoryPeak {
  peakHeapMb: number;
  maxRssMb: number;
}

/**
 * Samples `process.memoryUsage().heapUsed` every `intervalMs` until `stop()`. A sampler cannot
 * see inside a long synchronous stretch, so the heap figure is a lower bound; `maxRssMb` is not.
 */
export function startHeapSampler(intervalMs = 10): { stop(): MemoryPeak } {
  let peak = process.memoryUsage().heapUsed;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  }, intervalMs);
  timer.unref();
  return {
    stop: () => {
      clearInterval(timer);
      peak = Math.max(peak, process.memoryUsage().heapUsed);
      return { peakHeapMb: round(peak / 1048576), maxRssMb: round(process.resourceUsage().maxRSS / 1024) };
    },
  };
}

/**
 * Run `node <CHILD_NODE_ARGS> script ...args` and parse its last stdout line as JSON. Stderr is
 * kept (the tail goes into the error). The whole process group is killed at `timeoutMs`.
 */
export function runNodeChild<T>(
  script: string,
  args: string[],
  options: { timeoutMs: number; env?: NodeJS.ProcessEnv; nodeArgs?: string[]; /** Read the result from this file instead of stdout. */ resultFile?: string },
): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...CHILD_NODE_ARGS, script, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: options.env ?? process.env,
      detached: true,
    });
    let out = '';
    let err = '';
    let timedOut = false;
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (out.length > 256 * 1024) out = out.slice(-128 * 1024);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString('utf8');
      if (err.length > 64 * 1024) err = err.slice(-32 * 1024);
    });
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, options.timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      let last = out.trim().split('\n').pop() ?? '';
      if (timedOut) return reject(new Error(`timed out after ${Math.round(options.timeoutMs / 1000)} s`));
      if (code !== 0) return reject(new Error(`exited with ${code ?? signal}: ${tail(err)}`));
      try {
        if (options.resultFile) last = readFileSync(options.resultFile, 'utf8');
        resolve(JSON.parse(last) as T);
      } catch {
        reject(new Error(`no JSON result on stdout: ${tail(last || err)}`));
      }
    });
  });
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

function tail(text: string): string {
  const lines = text
    .trim()
    .split('\n')
    .filter((l) => l.trim() !== '');
  return lines.slice(-3).join(' | ').slice(0, 400);
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}
