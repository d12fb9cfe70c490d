import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAppHarness, type AppHarness } from '../helpers/app-harness.js';

/** An invalid `.agent-policy.yaml` on the default branch: one "Action Required" comment with file:line, and no run. */

const INVALID_POLICY = `version: 1
agent:
  maxChangedFiles: lots
  forbiddenPaths:
    - .github/workflows/**
`;

describe('an invalid policy on the default branch', () => {
  let h: AppHarness;

  beforeAll(async () => {
    h = await startAppHarness({ policy: INVALID_POLICY });
  }, 60_000);

  afterAll(async () => h?.stop());

  it('a label gets one Action Required comment naming the file and line, and starts no run', async () => {
    expect((await h.deliver('issues', h.payloads.labeled(1))).statusCode).toBe(202);
    const comments = h.comments(1);
    expect(comments).toHaveLength(1);
    expect(comments[0].user).toBe(h.botLogin);
    expect(comments[0].body).toContain('Action Required');
    expect(comments[0].body).toMatch(/`\.agent-policy\.yaml:3:\d+`/);
    expect(comments[0].body).toContain('agent.maxChangedFiles');
    // Only the stored delivery: no run, no lock, no limit counter.
    const keys = (await h.objects()).map((o) => o.key);
    expect(keys).toEqual(['deliveries/00000000-0000-4000-8000-000000000001.json']);
    expect(h.pending()).toEqual([]);
  });

  it('another trigger on the same issue edits that comment instead of adding a second one', async () => {
    const [first] = h.comments(1);
    expect((await h.deliver('issue_comment', h.payloads.comment(1, '/agent run'))).statusCode).toBe(202);
    const comments = h.comments(1);
    expect(comments).toHaveLength(1);
    expect(comments[0].id).toBe(first.id);
    expect((await h.objects()).map((o) => o.key).filter((k) => !k.startsWith('deliveries/'))).toEqual([]);
    // Only the intake ever obtained a token: neither the worker nor the publisher was involved.
    expect(new Set(h.issued.map((t) => t.fn))).toEqual(new Set(['intake']));
  });
});
