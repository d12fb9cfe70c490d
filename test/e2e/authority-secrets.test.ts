import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mavenMultiModuleRepo } from '../fixtures/realistic-repos.js';
import { DEFAULT_POLICY, startAppHarness, type AppHarness } from '../helpers/app-harness.js';
import { answer, callTools } from '../helpers/scripted-model-server.js';

/**
 * Secrets and the model, through the whole App with the worker's real store (docs/trust-chain.md,
 * "Secrets and the model"): a GitHub token past column 21,000 of a minified file, read by the
 * model and probed with `code_search` one more character at a time, never reaches the provider,
 * and the searches answer alike whether or not the guess is right.
 */
const ISSUE = 1;
const BUNDLE = 'order-service/src/main/resources/static/app.js';
// Assembled at run time so no token-like literal sits in the source.
const TOKEN = ['gh', 'p_'].join('') + 'Q7x'.repeat(12);
const RIGHT = TOKEN.slice(0, 8);
const WRONG = `${TOKEN.slice(0, 7)}Z`;

describe('a token far along a long line, read and searched by the model', () => {
  let h: AppHarness;
  let raws: string[] = [];
  let searches: string[] = [];

  beforeAll(async () => {
    const files: Record<string, string> = { ...mavenMultiModuleRepo(), '.agent-policy.yaml': DEFAULT_POLICY };
    // Past the first scan window (20,000 characters), within what a tool result keeps.
    files[BUNDLE] = `${'var a=1;'.repeat(2650)}var t="${TOKEN}";\n`;
    h = await startAppHarness({
      files,
      model: {
        script: (_body, index) =>
          index === 0
            ? callTools({ name: 'file_read', arguments: { path: BUNDLE } })
            : index === 1
              ? callTools({ name: 'code_search', arguments: { query: RIGHT } })
              : index === 2
                ? callTools({ name: 'code_search', arguments: { query: WRONG } })
                : answer('Nothing to change.'),
      },
    });
    h.standin.setIssue(h.fullName, ISSUE, { title: 'Look at the bundle', body: 'Read the minified bundle of the order service and tell what it sets.' });
    expect((await h.deliver('issues', h.payloads.labeled(ISSUE))).statusCode).toBe(202);
    await h.drain({ throwOnError: false });
    raws = h.model!.requests.map((r) => r.raw);
    const toolText = (raw: string) =>
      (JSON.parse(raw).messages as { role: string; content: string | null }[])
        .filter((m) => m.role === 'tool')
        .map((m) => m.content ?? '')
        .at(-1) ?? '';
    searches = [toolText(raws[2] ?? '{"messages":[]}'), toolText(raws[3] ?? '{"messages":[]}')];
  }, 120_000);

  afterAll(async () => h?.stop());

  it('reached the model with the file read and both searches', () => {
    expect(raws.length).toBeGreaterThanOrEqual(4);
    // The line reached the model, the token in it redacted.
    expect(raws[1]).toContain(`var t=\\"${TOKEN.slice(0, 4)}****`);
  });

  it('never sends the token, nor its first characters past the public prefix', () => {
    for (const raw of raws) {
      expect(raw).not.toContain(TOKEN);
      expect(raw).not.toContain(TOKEN.slice(0, 10));
    }
  });

  it('answers the right guess and the wrong one alike: no match either way', () => {
    expect(searches[0]).toBe(searches[1].replaceAll(WRONG, RIGHT));
    expect(searches[0]).not.toContain(BUNDLE);
  });
});
