import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/app/cli/run-cli.js';
import type { ArtifactStore } from '../../src/core/ports.js';
import { startAppHarness, type AppHarness } from '../helpers/app-harness.js';

/**
 * A trail nobody rewrites, through the App: in the middle of a run, the worker's own session
 * (RunWorkerRole, session policy, tags; the S3 stand-in applying the packaged bucket policy)
 * tries to overwrite, replace and delete a record of its own attempt's trail, and to forge a
 * spend record there. Each is refused and the record is unchanged; the published commit's
 * trailers name the run, the attempt and the trail, which holds the attempt's ledger.
 */

type Outcome = 'refused' | 'written' | 'not written';

async function outcomeOf(write: () => Promise<unknown>): Promise<Outcome> {
  try {
    const result = await write();
    return result === false ? 'not written' : 'written';
  } catch {
    return 'refused';
  }
}

describe('the trail: create-only for the worker, and the commit leads to it', () => {
  let h: AppHarness;
  let first = '';
  let firstBody = '';
  const outcomes: Record<string, Outcome> = {};

  beforeAll(async () => {
    h = await startAppHarness();
    await h.deliver('issues', h.payloads.labeled(1));
    let tried = false;
    const stop = h.interceptWorkerWrites(async (key: string, store: ArtifactStore) => {
      if (tried || !/^trail\/acme\/orders\/[^/]+\/1\/ledger\/000002\.json$/.test(key)) return;
      tried = true;
      const ledger = key.slice(0, key.lastIndexOf('/') + 1);
      first = `${ledger}000000.json`;
      firstBody = new TextDecoder().decode((await store.get(first))!.body);
      const forged = '{"schemaVersion":1,"seq":0,"type":"FORGED"}\n';
      outcomes.overwrite = await outcomeOf(() => store.put(first, forged));
      outcomes.replace = await outcomeOf(() => store.putIfAbsent(first, forged));
      outcomes.swap = await outcomeOf(async () => store.putIfMatch(first, forged, (await store.get(first))!.etag));
      outcomes.delete = await outcomeOf(() => store.delete(first));
      outcomes.unconditionalNew = await outcomeOf(() => store.put(`${ledger}999999.json`, forged));
      outcomes.spend = await outcomeOf(() => store.putIfAbsent(`${key.slice(0, key.indexOf('/ledger/'))}/spend/forged.json`, '{}'));
    });
    await h.drain();
    stop();
  }, 120_000);

  afterAll(async () => h?.stop());

  it('the worker can neither overwrite, replace, swap nor delete a trail record, nor write one without a condition, nor forge spend', async () => {
    expect(outcomes).toEqual({
      overwrite: 'refused',
      replace: 'not written',
      swap: 'refused',
      delete: 'refused',
      unconditionalNew: 'refused',
      spend: 'refused',
    });
    expect(new TextDecoder().decode((await h.store.get(first))!.body)).toBe(firstBody);
    expect(await h.store.get(first.replace('000000.json', '999999.json'))).toBeUndefined();
  });

  it("the published commit's trailers name the run, the attempt and its trail, which holds the attempt's ledger", async () => {
    const { runId } = await h.json('issues/acme/orders/1/latest.json');
    const published = await h.json(`runs/acme/orders/${runId}/publish.json`);
    const message = (await h.standin.repo(h.fullName).git.readCommit(published.publishedCommitSha))!.message;
    expect(message).toContain(`Run-id: ${runId}\nRun-attempt: 1\nRun-trail: trail/acme/orders/${runId}/1/\n`);
    const trail = /^Run-trail: (.+)$/m.exec(message)![1];
    const ledger = await h.store.list(`${trail}ledger/`);
    expect(ledger.length).toBeGreaterThan(3);
    expect(ledger).toContain(first);
    const types = await Promise.all(ledger.map(async (key) => (await h.json(key)).type as string));
    expect(types).toContain('git.commit.created');
  });

  it('`draftsman audit <run-id> --bucket` prints the trail the commit names, event by event', async () => {
    const { runId } = await h.json('issues/acme/orders/1/latest.json');
    const out: string[] = [];
    const code = await runCli(['audit', runId, '--bucket', h.s3.bucket, '--endpoint', h.s3.endpoint, '--region', 'us-east-1'], {
      stdout: (text) => void out.push(text),
      stderr: (text) => void out.push(text),
      env: { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
      cwd: process.cwd(),
      clock: h.clock,
      isTty: false,
    });
    expect(code).toBe(0);
    const text = out.join('');
    const ledger = await h.store.list(`trail/acme/orders/${runId}/1/ledger/`);
    expect(text.split('\n')[0]).toBe(`attempt 1  trail/acme/orders/${runId}/1/  ${ledger.length} events, 0 model calls, $0.0000`);
    expect(text).toMatch(/^ {5}0 {2}\S+ {2}git-boundary {2}git\.branch\.created$/m);
    expect(text).toMatch(/git\.commit\.created$/m);
    expect(
      await runCli(['audit', 'zzzzzzzzzzzz', '--bucket', h.s3.bucket, '--endpoint', h.s3.endpoint, '--region', 'us-east-1'], {
        stdout: () => undefined,
        stderr: () => undefined,
        env: { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' },
        cwd: process.cwd(),
        clock: h.clock,
        isTty: false,
      }),
    ).toBe(1);
  });
});
