import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalArtifactStore } from '../../../src/app/local/local-artifact-store.js';
import { CapturingLogger } from '../../../src/app/logger.js';
import { EmfDocument } from '../../../src/app/metrics/emf.js';
import { closeRun } from '../../../src/app/publisher/pull-request-outcome.js';
import { readArtifact, writeArtifact } from '../../../src/core/artifacts/artifact-io.js';
import { runKeys } from '../../../src/core/artifacts/keys.js';
import { RunRecord, RunRequest } from '../../../src/core/runs/run-request.js';

const ASKED = Date.parse('2026-03-02T09:00:00.000Z');
const RUN_ID = 'abcdefghijk2';
const keys = runKeys('acme', 'orders', RUN_ID);

const request: RunRequest = {
  schemaVersion: 1,
  runId: RUN_ID,
  owner: 'acme',
  repo: 'orders',
  source: { kind: 'github', repositoryId: 5, installationId: 42, cloneUrl: 'https://github.com/acme/orders.git', apiUrl: 'https://api.github.com' },
  trigger: { kind: 'label', key: 'label-1' },
  agentBranch: `draftsman/${RUN_ID}`,
  createdAt: new Date(ASKED).toISOString(),
};

let dir: string;
let store: LocalArtifactStore;
let logger: CapturingLogger;
let now: number;
const clock = { now: () => now };

/** A published run whose two attempts each made one priced model call (and the second one unpriced). */
async function publishedRun(): Promise<void> {
  await writeArtifact(store, keys.request, RunRequest, request);
  await writeArtifact(store, keys.run, RunRecord, {
    schemaVersion: 1,
    runId: RUN_ID,
    status: 'PUBLISHED',
    attempt: 2,
    attempts: [],
    agentBranch: request.agentBranch,
    updatedAt: request.createdAt,
  });
  // The task's spend record, as model-call settles it: three calls over two attempts, $0.15 in all.
  await store.put(keys.spend, JSON.stringify({ schemaVersion: 1, calls: 3, tokensIn: 30, tokensOut: 6, costMicroUsd: 150_000, expired: 0, reserved: {} }));
}

/** The outcome lines written: each an EMF document CloudWatch accepts. */
function outcomeLines(): Record<string, unknown>[] {
  return logger
    .entries()
    .filter((e) => e.runOutcomes !== undefined)
    .map((e) => {
      EmfDocument.parse(e);
      return e;
    });
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pr-outcome-'));
  store = new LocalArtifactStore(dir);
  logger = new CapturingLogger();
  now = ASKED + 90 * 60_000;
  await publishedRun();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the pull request outcome metric', () => {
  it('a merge is counted once, per repository and installation, with the time from the request and the spend of every attempt', async () => {
    await closeRun({ store, clock, logger }, keys, request, { merged: true, attempt: 2 });
    expect(await readArtifact(store, keys.run, RunRecord)).toMatchObject({ status: 'MERGED', updatedAt: new Date(now).toISOString() });
    const [line, ...more] = outcomeLines();
    expect(more).toEqual([]);
    expect(line).toMatchObject({
      outcome: 'merged',
      repository: 'acme/orders',
      installation: '42',
      runOutcomes: 1,
      timeToMergeSeconds: 5400,
      runSpendUsd: 0.15,
      runId: RUN_ID,
      attempt: 2,
      fn: 'publisher',
    });
    expect((line._aws as EmfDocument['_aws']).CloudWatchMetrics[0]).toEqual({
      Namespace: 'draftsman',
      Dimensions: [['outcome'], ['outcome', 'installation'], ['outcome', 'repository']],
      Metrics: [
        { Name: 'runOutcomes', Unit: 'Count' },
        { Name: 'timeToMergeSeconds', Unit: 'Seconds' },
        { Name: 'runSpendUsd', Unit: 'None' },
      ],
    });

    // The same close event again (a redelivery): run.json stays MERGED, nothing counted twice.
    now += 60_000;
    await closeRun({ store, clock, logger }, keys, request, { merged: true, attempt: 2 });
    expect(outcomeLines()).toHaveLength(1);
  });

  it('a pull request closed unmerged is counted as closed, with the spend and no time to merge', async () => {
    await closeRun({ store, clock, logger }, keys, request, { merged: false, attempt: 2 });
    expect(await readArtifact(store, keys.run, RunRecord)).toMatchObject({ status: 'CLOSED' });
    const lines = outcomeLines();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ outcome: 'closed', repository: 'acme/orders', installation: '42', runOutcomes: 1, runSpendUsd: 0.15 });
    expect(lines[0]).not.toHaveProperty('timeToMergeSeconds');

    // Reopened and merged later: the merge is counted as well.
    now += 3_600_000;
    await closeRun({ store, clock, logger }, keys, request, { merged: true, attempt: 2 });
    expect(outcomeLines().map((l) => [l.outcome, l.timeToMergeSeconds])).toEqual([
      ['closed', undefined],
      ['merged', 9000],
    ]);
  });

  it('a run without run.json is left alone and counts nothing', async () => {
    await store.delete(keys.run);
    await closeRun({ store, clock, logger }, keys, request, { merged: true, attempt: 1 });
    expect(outcomeLines()).toEqual([]);
  });
});
