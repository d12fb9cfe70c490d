import { describe, expect, it } from 'vitest';
import { PHASE_NAMES } from '../../../src/core/phases/phase-contracts.js';
import { dyingStore, FIXED_NOW, MIGRATION_TASK, loadAttempt, useResumeFixture, runOnce } from './pipeline-harness.js';

/**
 * Resume by rebuild : an attempt interrupted at any phase boundary, or
 * crashing in the middle of a phase, and continued by a fresh invocation (fresh memfs, same
 * store) ends with the same commit and a byte-identical candidate.
 */
const RUN_ID = 'resume0000002';
/** The continuing invocation runs an hour later: nothing that affects a SHA may come from its clock. */
const LATER = { now: () => FIXED_NOW + 3_600_000 };
const fx = useResumeFixture(RUN_ID, MIGRATION_TASK);

describe('resume, every phase in its own invocation', () => {
  it('yielding at every boundary (one phase per invocation) gives the same candidate', async () => {
    const { store, dir, run } = await fx.fresh('yield-all');
    const statuses: string[] = [];
    for (let invocation = 0; invocation < PHASE_NAMES.length + 2; invocation++) {
      const at = FIXED_NOW + invocation * 60_000;
      const result = await runOnce({
        store,
        source: fx.bare,
        keys: run.keys,
        attempt: await loadAttempt(store, run.keys, 1),
        shouldYield: () => true,
        clock: { now: () => at },
      });
      statuses.push(result.status);
      if (result.status !== 'SUSPENDED') {
        expect(result.headCommitSha).toBe(fx.reference.result.headCommitSha);
        break;
      }
    }
    expect(statuses).toEqual([...Array(PHASE_NAMES.length - 1).fill('SUSPENDED'), 'COMPLETED']);
    expect(fx.candidateOf(dir)).toEqual(fx.reference.candidate);
  }, 60_000);
});

describe('resume after a crash in the middle of a phase', () => {
  it.each([
    ['mechanical_change, between its two segments', /\/patches\/000001-/],
    ['mechanical_change, before its checkpoint', /\/checkpoints\/\d+-mechanical_change\.json$/],
    ['pr_preparation, after the change blobs, before pr-candidate.json', /\/candidate\/pr-candidate\.json$/],
    ['discovery, before the target selection artifact', /\/target-selection\.json$/],
  ])(
    'crash in %s',
    async (_where, at) => {
      const { store, dir, run } = await fx.fresh(`crash-${String(at).replace(/[^a-z]/g, '')}`);
      const dying = dyingStore(store, (key) => at.test(key));
      const crashed = await runOnce({ store: dying, source: fx.bare, ...run }).then(
        (r) => r,
        (error: unknown) => error as Error,
      );
      expect(dying.died()).toBe(true);
      expect(crashed).toBeInstanceOf(Error);
      expect(await store.get(run.keys.candidate.prCandidate)).toBeUndefined();

      const resumed = await runOnce({ store, source: fx.bare, keys: run.keys, attempt: await loadAttempt(store, run.keys, 1), clock: LATER });
      expect(resumed.status).toBe('COMPLETED');
      expect(resumed.headCommitSha).toBe(fx.reference.result.headCommitSha);
      expect(fx.candidateOf(dir)).toEqual(fx.reference.candidate);
    },
    30_000,
  );
});
