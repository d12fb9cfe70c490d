import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ArtifactStore } from '../../src/core/ports.js';
import { MAINTAINER, startAppHarness, type AppHarness } from '../helpers/app-harness.js';

/**
 * The publisher holds a candidate's `attempt` to what the run's trusted writers recorded
 * (docs/trust-chain.md, "Attempts the publisher accepts"): the worker, with its own store,
 * re-puts its cancelled attempt-1 candidate as attempt 2, which nobody requested; nothing is
 * published and the run says why.
 */
describe('a candidate for an attempt nobody requested', () => {
  let h: AppHarness;
  let prefix = '';
  let workerStore: ArtifactStore | undefined;

  beforeAll(async () => {
    h = await startAppHarness();
    expect((await h.deliver('issues', h.payloads.labeled(1))).statusCode).toBe(202);
    prefix = h
      .pending()
      .find((k) => k.endsWith('/request.json'))!
      .replace(/request\.json$/, '');
    const stop = h.interceptWorkerWrites((_key, store) => void (workerStore ??= store));
    await h.drain({ only: ['worker'] });
    stop();
    // The maintainer cancels before the publisher ran.
    await h.deliver('issue_comment', h.payloads.comment(1, '/agent cancel', { sender: MAINTAINER }));
    expect(await h.json(`${prefix}control/cancel.json`)).toMatchObject({ attempt: 1 });
    // The worker's credentials re-put the candidate under an attempt it invents.
    const candidate = await h.json(`${prefix}candidate/pr-candidate.json`);
    expect(candidate).toMatchObject({ attempt: 1 });
    await workerStore!.put(`${prefix}candidate/pr-candidate.json`, JSON.stringify({ ...candidate, attempt: 2 }));
    await h.drain();
  }, 120_000);

  afterAll(async () => h?.stop());

  it('publishes nothing and records ATTEMPT_NOT_REQUESTED', async () => {
    expect(await h.store.get(`${prefix}attempts/2/request.json`)).toBeUndefined();
    expect([...h.standin.repo(h.fullName).pulls.values()]).toEqual([]);
    expect(await h.json(`${prefix}publish.json`)).toBeUndefined();
    const refusals = h.logs.entries().filter((l) => l.fn === 'publisher' && JSON.stringify(l).includes('ATTEMPT_NOT_REQUESTED'));
    expect(refusals.length).toBeGreaterThan(0);
  });
});
