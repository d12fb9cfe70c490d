import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_POLICY, startAppHarness, type AppHarness } from '../helpers/app-harness.js';

/** The policy's rate limits: runs per hour per repository, and open draft PRs by the App. */
describe('policy limits', () => {
  describe('limits.maxOpenPullRequests', () => {
    let h: AppHarness;
    beforeAll(async () => {
      h = await startAppHarness({ policy: DEFAULT_POLICY.replace('maxOpenPullRequests: 20', 'maxOpenPullRequests: 1') });
    }, 60_000);
    afterAll(async () => h?.stop());

    it('a second run is refused while the first draft PR is open', async () => {
      expect((await h.deliver('issues', h.payloads.labeled(1))).statusCode).toBe(202);
      await h.drain();
      expect(h.standin.repo(h.fullName).pulls.size).toBe(1);
      const before = (await h.objects()).filter((o) => o.key.endsWith('/request.json')).length;
      expect((await h.deliver('issues', h.payloads.labeled(2))).statusCode).toBe(202);
      const replies = h.comments(2);
      expect(replies).toHaveLength(1);
      expect(replies[0].body).toContain('limits.maxOpenPullRequests');
      expect((await h.objects()).filter((o) => o.key.endsWith('/request.json')).length).toBe(before);
    });
  });

  describe('limits.runsPerHour', () => {
    let h: AppHarness;
    beforeAll(async () => {
      h = await startAppHarness({ policy: DEFAULT_POLICY.replace('runsPerHour: 100', 'runsPerHour: 1') });
    }, 60_000);
    afterAll(async () => h?.stop());

    it('the second run of the hour is refused and leaves no lock behind', async () => {
      expect((await h.deliver('issues', h.payloads.labeled(3))).statusCode).toBe(202);
      expect((await h.deliver('issues', h.payloads.labeled(4))).statusCode).toBe(202);
      const replies = h.comments(4);
      expect(replies).toHaveLength(1);
      expect(replies[0].body).toContain('limits.runsPerHour');
      const keys = (await h.objects()).map((o) => o.key);
      expect(keys.filter((k) => k.startsWith('locks/'))).toEqual([expect.stringMatching(/issues\/3\.json$/)]);
      expect(keys.filter((k) => k.endsWith('/request.json'))).toHaveLength(1);
    });
  });
});
