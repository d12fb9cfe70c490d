/**
 * Spend accounting per model call (`accountSpend`, src/core/engines/llm/spend-accounting.ts):
 * the worst case estimated and priced, three records reserved and settled by compare-and-swap,
 * and the call's trail record. CPU per call over an in-memory store that answers at once (the
 * accounting's own cost), then the wall time per call against the S3 stand-in on loopback (the
 * store round trips: six reads, six conditional writes and one create per call), measured apart.
 *
 * The goal's figure is the CPU of the thread that runs the call (the kernel's per-thread run
 * time, /proc/thread-self/schedstat, in nanoseconds). `process.cpuUsage()` counts every thread
 * of the process, so V8's concurrent marking and background compiling, most of it for code and
 * data that are not the accounting's, land on whichever call happens to be running: that figure
 * is reported beside it (its p99), with the whole process's CPU over all calls divided by their
 * number (the collector's and compiler's share included, amortised). The CPU part runs in its own
 * process so that nothing else the bench runner holds is marked or compiled meanwhile.
 * Runnable alone: node --import tsx bench/spend.bench.ts [calls]
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { youngGenerationDuringIngestion } from '../src/app/runtime/young-generation.js';
import { S3ArtifactStore } from '../src/app/aws/s3-artifact-store.js';
import { accountSpend } from '../src/core/engines/llm/spend-accounting.js';
import type { ArtifactStore, ChatMessage, ModelProvider, SpendScope } from '../src/core/ports.js';
import { MapStore } from '../test/helpers/map-store.js';
import { startS3Server } from '../test/helpers/s3-server.js';
import type { BenchRecord } from './bench-record.js';
import { runNodeChild } from './child-process.js';

/** A store that costs next to nothing: a Map, etags from a counter, the conditional writes S3 has. */
function instantStore(): MapStore {
  let n = 0;
  return new MapStore(() => String(++n));
}

/** A request the size a model segment sends mid-phase: a system prompt, the task and tool results (about 40 KB). */
function requestOf(): { messages: ChatMessage[]; tools: []; maxTokens: number } {
  const file = Array.from({ length: 400 }, (_, i) => `    line ${i} of a source file the model read, with some code in it;`).join('\n');
  const messages: ChatMessage[] = [
    { role: 'system', content: 'You change code in a repository through tools. '.repeat(40) },
    { role: 'user', content: 'Guard the token exchange call against surrounding whitespace. '.repeat(10) },
    { role: 'tool', content: file, tool_call_id: 'c1' },
    { role: 'tool', content: file, tool_call_id: 'c2' },
  ];
  return { messages, tools: [], maxTokens: 4_096 };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const round3 = (n: number) => Math.round(n * 1000) / 1000;

/** CPU nanoseconds the calling thread has run (Linux); undefined where the kernel does not say. */
function threadCpuNs(): number | undefined {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ')[0]);
  } catch {
    return undefined;
  }
}

interface CallCost {
  /** The calling thread's CPU (ms); the process's where the thread's is not known. */
  thread: number;
  /** Every thread of the process (ms). */
  process: number;
  /** Wall time (ms). */
  wall: number;
}

async function perCall(store: ArtifactStore, calls: number): Promise<CallCost[]> {
  const inner: ModelProvider = {
    model: 'm',
    complete: async () => ({ message: { role: 'assistant', content: 'ok' }, stopReason: 'end_turn', usage: { promptTokens: 12_000, completionTokens: 800 } }),
  };
  const scope: SpendScope = {
    owner: 'acme',
    repo: 'orders',
    runId: 'benchrun0001',
    attempt: 1,
    installation: '42',
    caps: { taskMicroUsd: 1e12, repositoryMonthlyMicroUsd: 1e12 },
  };
  let ids = 0;
  const provider = accountSpend(inner, scope, {
    store,
    clock: { now: () => Date.parse('2026-12-06T07:00:00.000Z') },
    prices: { m: { inputPerMTokUsd: 3, outputPerMTokUsd: 15 } },
    installationMonthlyMicroUsd: 1e12,
    reservationId: () => `call-${++ids}`,
  });
  const request = requestOf();
  const out: CallCost[] = [];
  for (let i = 0; i < calls; i++) {
    const wall = performance.now();
    const thread = threadCpuNs();
    const before = process.cpuUsage();
    await provider.complete(request);
    const used = process.cpuUsage(before);
    const threadAfter = threadCpuNs();
    const processMs = (used.user + used.system) / 1000;
    out.push({
      thread: thread !== undefined && threadAfter !== undefined ? (threadAfter - thread) / 1e6 : processMs,
      process: processMs,
      wall: performance.now() - wall,
    });
  }
  return out;
}

export async function runSpendBench(options: { calls?: number } = {}): Promise<BenchRecord[]> {
  const calls = options.calls ?? 2_000;
  const cpu = await runNodeChild<CpuFigures>(fileURLToPath(import.meta.url), ['--cpu', String(calls)], { timeoutMs: 120_000 });
  const note = 'in-memory store; 40 KB request';
  const records: BenchRecord[] = [
    { name: 'spend.accounting.cpuPerCall.p50', size: calls, value: cpu.threadP50, unit: 'ms', note: `${note}; the calling thread's CPU` },
    { name: 'spend.accounting.cpuPerCall.p99', size: calls, value: cpu.threadP99, unit: 'ms', note: `${note}; the calling thread's CPU` },
    {
      name: 'spend.accounting.processCpuPerCall.p99',
      size: calls,
      value: cpu.processP99,
      unit: 'ms',
      note: `${note}; every thread, the collector's and compiler's included`,
    },
    {
      name: 'spend.accounting.processCpuPerCall.mean',
      size: calls,
      value: cpu.processMean,
      unit: 'ms',
      note: `${note}; every thread's CPU over all calls, divided by their number`,
    },
  ];
  const s3 = await startS3Server({ bucket: 'draftsman-bench' });
  try {
    const store = new S3ArtifactStore({ client: s3.client, bucket: s3.bucket, sleep: async () => undefined });
    const n = Math.max(20, Math.round(calls / 20));
    const wall = (await perCall(store, n)).map((c) => c.wall).sort((a, b) => a - b);
    records.push(
      { name: 'spend.storeRoundTrip.p50', size: n, value: round3(percentile(wall, 50)), unit: 'ms', note: 'S3 stand-in on loopback: 13 requests per call' },
      { name: 'spend.storeRoundTrip.p99', size: n, value: round3(percentile(wall, 99)), unit: 'ms', note: 'S3 stand-in on loopback: 13 requests per call' },
    );
  } finally {
    await s3.stop();
  }
  return records;
}

interface CpuFigures {
  threadP50: number;
  threadP99: number;
  processP99: number;
  processMean: number;
}

/** The CPU part, in its own process: a warm-up, then the figures over `calls` calls. */
async function cpuChild(calls: number): Promise<void> {
  // The young generation as it is when model calls are made: free to grow (the CLI releases it after ingestion; the model-call function never holds it).
  youngGenerationDuringIngestion.leave();
  await perCall(instantStore(), 3_000);
  const costs = await perCall(instantStore(), calls);
  const thread = costs.map((c) => c.thread).sort((a, b) => a - b);
  const whole = costs.map((c) => c.process).sort((a, b) => a - b);
  const figures: CpuFigures = {
    threadP50: round3(percentile(thread, 50)),
    threadP99: round3(percentile(thread, 99)),
    processP99: round3(percentile(whole, 99)),
    processMean: round3(whole.reduce((a, b) => a + b, 0) / whole.length),
  };
  console.log(JSON.stringify(figures));
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain && process.argv[2] === '--cpu') {
  await cpuChild(Number(process.argv[3]));
} else if (isMain) {
  const calls = process.argv[2] ? Number(process.argv[2]) : undefined;
  for (const r of await runSpendBench({ calls })) console.log(`${r.name.padEnd(40)} ${String(r.value).padStart(8)} ${r.unit}  n=${r.size}  (${r.note})`);
}
