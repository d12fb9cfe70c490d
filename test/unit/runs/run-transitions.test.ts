import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalArtifactStore } from '../../../src/app/local/local-artifact-store.js';
import { readArtifact, writeArtifact } from '../../../src/core/artifacts/artifact-io.js';
import { runKeys } from '../../../src/core/artifacts/keys.js';
import { RunRecord } from '../../../src/core/runs/run-request.js';
import { RunStateError } from '../../../src/core/runs/run-state-error.js';
import { RunRecordStatus } from '../../../src/core/runs/run-status.js';
import { isTransitionAllowed, RUN_WRITERS, transition, type RunPredecessor, type RunWriter } from '../../../src/core/runs/run-transitions.js';
import { writeRunTransition } from '../../../src/core/runs/write-run-transition.js';

/*
 * The run's life cycle, written out here independently of RUN_TRANSITIONS: every
 * (from, to, writer) triple not listed is refused.
 */
const ENDED = ['READY', 'READY_WITH_WARNINGS', 'COMPLETED', 'FAILED', 'BLOCKED', 'NEEDS_APPROVAL', 'BUDGET_EXCEEDED', 'CANCELLED'] as const;
const ALL: readonly RunRecordStatus[] = ['QUEUED', 'RUNNING', ...ENDED, 'PUBLISHED', 'MERGED', 'CLOSED'];
/** A new attempt ends after anything but a closed pull request. */
const WORKER_FROM: readonly RunPredecessor[] = ['NONE', 'QUEUED', 'RUNNING', ...ENDED, 'PUBLISHED'];
/** A candidate (its attempt COMPLETED), a replay after a refusal or a publication, a slow attempt the sweeper failed. */
const CANDIDATE_FROM: readonly RunPredecessor[] = ['NONE', 'QUEUED', 'RUNNING', 'COMPLETED', 'FAILED', 'BLOCKED', 'PUBLISHED'];

const ALLOWED: Record<RunWriter, Partial<Record<RunRecordStatus, readonly RunPredecessor[]>>> = {
  worker: Object.fromEntries(ENDED.map((to) => [to, WORKER_FROM])),
  publisher: { QUEUED: CANDIDATE_FROM, BLOCKED: CANDIDATE_FROM, PUBLISHED: CANDIDATE_FROM, CANCELLED: [...CANDIDATE_FROM, 'CANCELLED'] },
  // A stuck active run, and a completed one whose pull request could not be opened (sweep-publications.ts).
  sweeper: { FAILED: ['NONE', 'QUEUED', 'RUNNING', 'COMPLETED'] },
  'ci-feedback': { MERGED: ALL, CLOSED: ALL },
};

const PREDECESSORS: readonly RunPredecessor[] = ['NONE', ...ALL];
const TABLE = PREDECESSORS.flatMap((from) =>
  RunRecordStatus.options.flatMap((to) => RUN_WRITERS.map((by) => ({ from, to, by, allowed: ALLOWED[by][to]?.includes(from) ?? false }))),
);

const T0 = '2026-02-03T04:05:06.000Z';
const record = (status: RunRecordStatus): RunRecord => ({
  schemaVersion: 1,
  runId: 'abcdefghijkl',
  status,
  attempt: 1,
  attempts: [{ n: 1, status: 'RUNNING', startedAt: T0 }],
  agentBranch: 'agent/i1/rabcdefghijkl',
  updatedAt: T0,
});

describe('the run state machine', () => {
  it('covers every predecessor, status and writer', () => {
    expect(RunRecordStatus.options).toHaveLength(ALL.length);
    expect([...RunRecordStatus.options].sort()).toEqual([...ALL].sort());
    expect([...RUN_WRITERS].sort()).toEqual(Object.keys(ALLOWED).sort());
    expect(TABLE).toHaveLength(14 * 13 * 4);
    expect(TABLE.filter((t) => t.allowed)).toHaveLength(8 * 12 + 3 * 7 + 8 + 4 + 2 * 13);
  });

  it.each(TABLE)('$from -> $to by $by: allowed $allowed', ({ from, to, by, allowed }) => {
    expect(isTransitionAllowed(from, to, by)).toBe(allowed);
    const current = from === 'NONE' ? undefined : record(from);
    const next = { ...record(to), reason: 'why' };
    if (allowed) {
      expect(transition(current, next, { by })).toBe(next);
    } else {
      expect(() => transition(current, next, { by })).toThrow(RunStateError);
    }
  });

  it('names the refused move in the error', () => {
    const refusal = (() => {
      try {
        transition(record('CLOSED'), record('COMPLETED'), { by: 'worker' });
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(RunStateError);
    expect(refusal).toMatchObject({ reason: 'TRANSITION_REFUSED', data: { runId: 'abcdefghijkl', from: 'CLOSED', to: 'COMPLETED', by: 'worker' } });
  });
});

describe('writeRunTransition', () => {
  const KEY = runKeys('acme', 'orders', 'abcdefghijkl').run;
  let root: string;
  let store: LocalArtifactStore;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'run-transition-'));
    store = new LocalArtifactStore(root);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('writes an allowed move through the compare-and-swap writer', async () => {
    await writeArtifact(store, KEY, RunRecord, record('COMPLETED'));
    const written = await writeRunTransition(store, KEY, 'publisher', (current) => current && { ...current, status: 'PUBLISHED' });
    expect(written).toMatchObject({ status: 'PUBLISHED' });
    expect(await readArtifact(store, KEY, RunRecord)).toMatchObject({ status: 'PUBLISHED' });
  });

  it('refuses a forbidden move and leaves run.json as it was', async () => {
    await writeArtifact(store, KEY, RunRecord, record('CLOSED'));
    await expect(writeRunTransition(store, KEY, 'worker', (current) => current && { ...current, status: 'COMPLETED' })).rejects.toMatchObject({
      reason: 'TRANSITION_REFUSED',
      data: { from: 'CLOSED', to: 'COMPLETED', by: 'worker' },
    });
    expect(await readArtifact(store, KEY, RunRecord)).toMatchObject({ status: 'CLOSED' });
  });

  it('decides a first record from NONE', async () => {
    await expect(writeRunTransition(store, KEY, 'ci-feedback', () => record('CLOSED'))).rejects.toMatchObject({
      reason: 'TRANSITION_REFUSED',
      data: { from: 'NONE' },
    });
    expect(await store.get(KEY)).toBeUndefined();
    expect(await writeRunTransition(store, KEY, 'worker', () => record('FAILED'))).toMatchObject({ status: 'FAILED' });
  });
});
