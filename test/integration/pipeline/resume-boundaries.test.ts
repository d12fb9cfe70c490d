import { describe, expect, it } from 'vitest';
import { PHASE_NAMES } from '../../../src/core/phases/phase-contracts.js';
import type { ArtifactStore } from '../../../src/core/ports.js';
import { EXPECTED_CHANGED, FIXED_NOW, MIGRATION_TASK, loadAttempt, useResumeFixture, runOnce } from './pipeline-harness.js';

/**
 * Resume by rebuild : an attempt interrupted at any phase boundary, or
 * crashing in the middle of a phase, and continued by a fresh invocation (fresh memfs, same
 * store) ends with the same commit and a byte-identical candidate.
 */
const RUN_ID = 'resume0000001';
/** The continuing invocation runs an hour later: nothing that affects a SHA may come from its clock. */
const LATER = { now: () => FIXED_NOW + 3_600_000 };
const fx = useResumeFixture(RUN_ID, MIGRATION_TASK);

describe('resume after an interruption', () => {
  it('the uninterrupted reference run completes with a candidate over the expected files', () => {
    expect(fx.reference.result.status).toBe('COMPLETED');
    expect(fx.reference.result.headCommitSha).toMatch(/^[0-9a-f]{40}$/);
    const names = Object.keys(fx.reference.candidate);
    expect(names).toEqual(expect.arrayContaining(['pr-candidate.json', 'pr-body.md', 'diff-summary.json']));
    expect(names.filter((n) => n.startsWith('changes/'))).toHaveLength(EXPECTED_CHANGED.length);
    const candidate = JSON.parse(Buffer.from(fx.reference.candidate['pr-candidate.json'], 'base64').toString('utf8'));
    expect(candidate.files.map((f: { path: string }) => f.path).sort()).toEqual(EXPECTED_CHANGED);
  });

  // Boundary k: the first invocation runs k phases and yields; a fresh one continues.
  it.each(PHASE_NAMES.slice(1).map((phase, i) => [i + 1, phase] as const))(
    'after %i phase(s), before %s: same commit, byte-identical candidate',
    async (k, nextPhase) => {
      const { store, dir, run } = await fx.fresh(`yield-${k}`);
      let asked = 0;
      const first = await runOnce({ store, source: fx.bare, ...run, shouldYield: () => ++asked === k });
      expect(first.status).toBe('SUSPENDED');
      const checkpoints = await store.list(`${run.keys.attempt(1).checkpointsPrefix}`);
      expect(checkpoints).toHaveLength(k);
      expect(await store.get(run.keys.candidate.prCandidate)).toBeUndefined();

      const second = await runOnce({ store, source: fx.bare, keys: run.keys, attempt: await loadAttempt(store, run.keys, 1), clock: LATER });
      expect(second.status).toBe('COMPLETED');
      expect(second.headCommitSha).toBe(fx.reference.result.headCommitSha);
      expect(second.headTreeSha).toBe(fx.reference.result.headTreeSha);
      expect(fx.candidateOf(dir)).toEqual(fx.reference.candidate);
      const resumed = await ledgerTypes(store, run.keys.attempt(1).ledgerPrefix);
      expect(resumed.filter((e) => e.type === 'RESUMED')).toEqual([{ type: 'RESUMED', phase: PHASE_NAMES[k - 1] }]);
      expect(resumed.find((e) => e.type === 'SUSPENDED')?.phase).toBe(nextPhase);
    },
    30_000,
  );
});
async function ledgerTypes(store: ArtifactStore, prefix: string): Promise<{ type: string; phase?: string }[]> {
  const out: { type: string; phase?: string }[] = [];
  for (const key of await store.list(prefix)) {
    const entry = JSON.parse(new TextDecoder().decode((await store.get(key))!.body));
    if (entry.type === 'RESUMED' || entry.type === 'SUSPENDED') out.push({ type: entry.type, phase: entry.phase });
  }
  return out;
}
