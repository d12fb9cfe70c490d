/**
 * Spend accounting per model call (`accountSpend`, src/core/engines/llm/spend-accounting.ts):
 * the worst case estimated and priced, three records reserved and settled by compare-and-swap,
 * and the call's trail record. CPU per call over an in-memory store that answers at once (the
 * accounting's own cost), then the wall time per call against the S3 stand-in on loopback (the
 * store round trips: six reads, six conditional writes and one create per call), measured apart.
 * Runnable alone: node --import tsx bench/spend.bench.ts [calls]
 */
import { pathToFileURL } from 'node:url';
import { S3ArtifactStore } from '../src/app/aws/s3-artifact-store.js';
import { accountSpend } from '../src/core/engines/llm/spend-accounting.js';
import type { ArtifactStore, ChatMessage, ModelProvider, SpendScope } from '../src/core/ports.js';
import { MapStore } from '../test/helpers/map-store.js';
import { startS3Server } from '../test/helpers/s3-server.js';
import type { BenchRecord } from './bench-record.js';

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

async function perCall(store: ArtifactStore, calls: number, cpu: boolean): Promise<number[]> {
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
  const out: number[] = [];
  for (let i = 0; i < calls; i++) {
    const wall = performance.now();
    const before = process.cpuUsage();
    await provider.complete(request);
    const used = process.cpuUsage(before);
    out.push(cpu ? (used.user + used.system) / 1000 : performance.now() - wall);
  }
  return out;
}

export async function runSpendBench(options: { calls?: number } = {}): Promise<BenchRecord[]> {
  const calls = options.calls ?? 2_000;
  // Warm-up, then CPU per call (process.cpuUsage has microsecond resolution: the p99 of single calls is what the goal asks).
  await perCall(instantStore(), 3_000, true);
  const cpu = (await perCall(instantStore(), calls, true)).sort((a, b) => a - b);
  const records: BenchRecord[] = [
    { name: 'spend.accounting.cpuPerCall.p50', size: calls, value: round3(percentile(cpu, 50)), unit: 'ms', note: 'in-memory store; 40 KB request' },
    { name: 'spend.accounting.cpuPerCall.p99', size: calls, value: round3(percentile(cpu, 99)), unit: 'ms', note: 'in-memory store; 40 KB request' },
  ];
  const s3 = await startS3Server({ bucket: 'draftsman-bench' });
  try {
    const store = new S3ArtifactStore({ client: s3.client, bucket: s3.bucket, sleep: async () => undefined });
    const n = Math.max(20, Math.round(calls / 20));
    const wall = (await perCall(store, n, false)).sort((a, b) => a - b);
    records.push(
      { name: 'spend.storeRoundTrip.p50', size: n, value: round3(percentile(wall, 50)), unit: 'ms', note: 'S3 stand-in on loopback: 13 requests per call' },
      { name: 'spend.storeRoundTrip.p99', size: n, value: round3(percentile(wall, 99)), unit: 'ms', note: 'S3 stand-in on loopback: 13 requests per call' },
    );
  } finally {
    await s3.stop();
  }
  return records;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const calls = process.argv[2] ? Number(process.argv[2]) : undefined;
  for (const r of await runSpendBench({ calls })) console.log(`${r.name.padEnd(40)} ${String(r.value).padStart(8)} ${r.unit}  n=${r.size}  (${r.note})`);
}
