/**
 * The run queue's hand-off (docs/architecture.md, "The run queue"): from a worker slot freeing
 * (the running run's `run.json` written as ended) to the next waiting run's `request.json`
 * written by the admission pass, which is what starts it (the pass then updates the places of
 * the runs still waiting: `queue.admissionPass` is the whole pass). In between, as deployed minus
 * EventBridge and Lambda's polling: the wake-up sent and received through the real SQS client
 * and the SQS stand-in, then one admission pass (src/core/runs/admit-waiting.ts) over the S3
 * stand-in on loopback, with one worker slot and ten runs kept waiting behind it. The progress
 * comments' GitHub calls are left out (a place shown answers at once). p50 and p99; the pass
 * alone beside it. Runnable alone: node --import tsx bench/queue.bench.ts [handoffs]
 */
import { pathToFileURL } from 'node:url';
import { DeleteMessageCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { S3ArtifactStore } from '../src/app/aws/s3-artifact-store.js';
import { sqsWake } from '../src/app/aws/sqs-wake.js';
import { writeArtifact } from '../src/core/artifacts/artifact-io.js';
import { runKeys } from '../src/core/artifacts/keys.js';
import type { ArtifactStore } from '../src/core/ports.js';
import { admitWaiting } from '../src/core/runs/admit-waiting.js';
import { RunRecord, type RunRequest } from '../src/core/runs/run-request.js';
import { enqueueRun } from '../src/core/runs/run-queue.js';
import { startS3Server } from '../test/helpers/s3-server.js';
import { startSqsStandin } from '../test/helpers/sqs-standin.js';
import type { BenchRecord } from './bench-record.js';

const NOW = Date.parse('2026-12-06T07:00:00.000Z');
const WAITING = 10;
const LIMITS = { runsPerHour: 1000, maxOpenPullRequests: 100 };

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const round1 = (n: number) => Math.round(n * 10) / 10;
const runId = (n: number) => `benchrun${String(n).padStart(4, '0')}`;

function request(n: number): RunRequest {
  return {
    schemaVersion: 1,
    runId: runId(n),
    owner: 'acme',
    repo: 'orders',
    source: { kind: 'github', repositoryId: 1, installationId: 2, cloneUrl: 'https://example.test/acme/orders.git', apiUrl: 'https://api.example.test' },
    trigger: { kind: 'label', key: `label-${n}` },
    issue: { number: n, title: `issue ${n}`, body: '', updatedAt: new Date(NOW).toISOString(), progressCommentId: 1000 + n },
    agentBranch: `agent/issue-${n}`,
    createdAt: new Date(NOW).toISOString(),
  };
}

const ended = (n: number): RunRecord => ({
  schemaVersion: 1,
  runId: runId(n),
  status: 'COMPLETED',
  attempt: 1,
  attempts: [],
  agentBranch: `agent/issue-${n}`,
  updatedAt: new Date(NOW).toISOString(),
});

export async function runQueueBench(options: { handoffs?: number } = {}): Promise<BenchRecord[]> {
  const handoffs = options.handoffs ?? 100;
  const s3 = await startS3Server({ bucket: 'draftsman-bench' });
  const sqs = await startSqsStandin();
  const client = new SQSClient({ endpoint: sqs.url, region: 'us-east-1', credentials: { accessKeyId: 'BENCH', secretAccessKey: 'BENCH' } });
  const url = sqs.queueUrl('run-queue-wake');
  const wake = sqsWake(client, url);
  try {
    const s3Store = new S3ArtifactStore({ client: s3.client, bucket: s3.bucket, sleep: async () => undefined });
    // The run starts when its request.json is written: note when that write returned.
    let requestWritten = 0;
    const store: ArtifactStore = {
      get: (k) => s3Store.get(k),
      put: (k, b, o) => s3Store.put(k, b, o),
      putIfMatch: (k, b, e, o) => s3Store.putIfMatch(k, b, e, o),
      delete: (k) => s3Store.delete(k),
      list: (p) => s3Store.list(p),
      async putIfAbsent(k, b, o) {
        const written = await s3Store.putIfAbsent(k, b, o);
        if (written && k.endsWith('/request.json')) requestWritten = performance.now();
        return written;
      },
    };
    const pass = () => admitWaiting({ store, now: NOW, workerSlots: 1, lockTtlMs: 7_200_000, showPlace: async () => true });
    for (let n = 1; n <= WAITING + 1; n++) await enqueueRun(store, request(n), LIMITS, NOW);
    await pass();
    let running = 1;
    let next = WAITING + 2;
    const total: number[] = [];
    const passes: number[] = [];
    for (let i = 0; i < handoffs; i++) {
      const freed = performance.now();
      await writeArtifact(store, runKeys('acme', 'orders', runId(running)).run, RunRecord, ended(running));
      await wake('run-record');
      const { Messages = [] } = await client.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10 }));
      const passStart = performance.now();
      const report = await pass();
      const done = performance.now();
      if (report.admitted.length !== 1) throw new Error(`hand-off ${i}: the pass admitted ${report.admitted.length} runs`);
      for (const m of Messages) await client.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: m.ReceiptHandle! }));
      total.push(requestWritten - freed);
      passes.push(done - passStart);
      running = Number(report.admitted[0].slice('benchrun'.length));
      // Keep the line as long: one more run joins it.
      await enqueueRun(store, request(next++), LIMITS, NOW);
    }
    if (sqs.violations.length > 0) throw new Error(`SQS model violations: ${sqs.violations.join('; ')}`);
    total.sort((a, b) => a - b);
    passes.sort((a, b) => a - b);
    const note = `S3 and SQS stand-ins on loopback; 1 worker slot, ${WAITING} runs waiting; progress comments not counted`;
    return [
      { name: 'queue.handoff.p50', size: handoffs, value: round1(percentile(total, 50)), unit: 'ms', note },
      { name: 'queue.handoff.p99', size: handoffs, value: round1(percentile(total, 99)), unit: 'ms', note },
      {
        name: 'queue.admissionPass.p50',
        size: handoffs,
        value: round1(percentile(passes, 50)),
        unit: 'ms',
        note: `the whole pass, from the wake-up received, with the ${WAITING} places shown again`,
      },
    ];
  } finally {
    client.destroy();
    await sqs.close();
    await s3.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const handoffs = process.argv[2] ? Number(process.argv[2]) : undefined;
  for (const r of await runQueueBench({ handoffs })) console.log(`${r.name.padEnd(32)} ${String(r.value).padStart(8)} ${r.unit}  n=${r.size}  (${r.note})`);
}
