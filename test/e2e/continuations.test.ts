import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATION_CHANGED_FILES, startAppHarness, type AppHarness } from '../helpers/app-harness.js';

/**
 * Issue 6: before the invocation's time runs out the worker checkpoints and writes
 * `continue-<k+1>.json`; at most three continuations per attempt, then FAILED with a reason.
 */
describe('worker continuations', () => {
  describe('an invocation that is short of time once', () => {
    let h: AppHarness;
    let asked = 0;
    beforeAll(async () => {
      // The first time the worker asks, 60 s are left (under its yield margin): it stops after
      // its first phase; from then on there is time enough.
      h = await startAppHarness({ remainingTimeMs: () => (asked++ === 0 ? 60_000 : 15 * 60_000) });
    }, 60_000);
    afterAll(async () => h?.stop());

    it('continues in a new invocation from the checkpoint and still opens the draft PR', async () => {
      expect((await h.deliver('issues', h.payloads.labeled(1))).statusCode).toBe(202);
      await h.drain();
      const keys = (await h.objects()).map((o) => o.key);
      const continuations = keys.filter((k) => /\/attempts\/1\/continue-\d+\.json$/.test(k));
      expect(continuations.map((k) => k.slice(k.lastIndexOf('/') + 1))).toEqual(['continue-1.json']);
      const candidateKey = keys.find((k) => k.endsWith('/candidate/pr-candidate.json'));
      expect(candidateKey).toBeDefined();
      const candidate = await h.json(candidateKey!);
      expect(candidate.files.map((f: { path: string }) => f.path).sort()).toEqual(MIGRATION_CHANGED_FILES);
      expect(h.standin.repo(h.fullName).pulls.size).toBe(1);
    });
  });

  describe('an attempt that never gets enough time', () => {
    let h: AppHarness;
    beforeAll(async () => {
      h = await startAppHarness({ remainingTimeMs: () => 30_000 });
    }, 60_000);
    afterAll(async () => h?.stop());

    it('stops after three continuations: FAILED with the reason, lock released, no candidate', async () => {
      expect((await h.deliver('issues', h.payloads.labeled(2))).statusCode).toBe(202);
      await h.drain();
      const keys = (await h.objects()).map((o) => o.key);
      expect(
        keys
          .filter((k) => /\/continue-\d+\.json$/.test(k))
          .map((k) => k.slice(k.lastIndexOf('/') + 1))
          .sort(),
      ).toEqual(['continue-1.json', 'continue-2.json', 'continue-3.json']);
      const runKey = keys.find((k) => k.endsWith('/run.json'))!;
      const run = await h.json(runKey);
      expect(run.status).toBe('FAILED');
      expect(run.reason).toMatch(/more than 3 continuations/);
      expect(keys.some((k) => k.startsWith('locks/'))).toBe(false);
      expect(keys.some((k) => k.includes('/candidate/'))).toBe(false);
      expect(h.comments(2).at(-1)?.body).toMatch(/more than 3 continuations/);
    });
  });
});
