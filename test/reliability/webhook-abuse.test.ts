import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_WEBHOOK_BYTES } from '../../src/app/webhook/receive-webhook.js';
import { startAppHarness, type AppHarness } from '../helpers/app-harness.js';

/**
 * Webhook abuse (invariant 6 in docs/architecture.md): a bad signature, missing headers, a wrong content type,
 * a body over 25 MB and an unknown event each get their status code, and leave no trace: no S3
 * object, no GitHub call, no token minted, nothing queued for a worker.
 */
let h: AppHarness;

async function footprint() {
  return {
    objects: (await h.objects()).map((o) => `${o.key}:${o.body.byteLength}`),
    calls: h.standin.calls.length,
    issued: h.issued.length,
    pending: h.pending(),
    comments: [...h.standin.repo(h.fullName).comments.keys()],
  };
}

beforeAll(async () => {
  h = await startAppHarness();
});

afterAll(async () => h?.stop());

describe('abusive deliveries get the right status and change nothing', () => {
  it.each([
    ['a bad signature', 401, { badSignature: true }],
    ['a signature of another body', 401, { headers: { 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` } }],
    ['no signature header', 400, { headers: { 'x-hub-signature-256': '' } }],
    ['no event header', 400, { headers: { 'x-github-event': '' } }],
    ['no delivery id', 400, { headers: { 'x-github-delivery': '' } }],
    ['a form-encoded content type', 415, { headers: { 'content-type': 'application/x-www-form-urlencoded' } }],
    ['a text content type', 415, { headers: { 'content-type': 'text/plain' } }],
    ['no content type', 415, { headers: { 'content-type': '' } }],
  ] as const)('%s: %i', async (_name, status, options) => {
    const before = await footprint();
    for (const base64 of [false, true]) {
      const res = await h.deliver('issues', h.payloads.labeled(1), { ...options, base64 });
      expect(res.statusCode).toBe(status);
    }
    expect(await footprint()).toEqual(before);
  });

  it('a correctly signed body over 25 MB: 413, before any parsing', async () => {
    const before = await footprint();
    const payload = { ...h.payloads.labeled(1), padding: 'x'.repeat(MAX_WEBHOOK_BYTES + 1024) };
    const start = performance.now();
    const res = await h.deliver('issues', payload, { base64: false });
    expect(res.statusCode).toBe(413);
    expect(performance.now() - start).toBeLessThan(10_000);
    expect(await footprint()).toEqual(before);
  });

  it('a body just under 25 MB is still read (the cap is the only reason above)', async () => {
    const before = await footprint();
    // An event the App does not subscribe to, so the test measures the size gate alone.
    const res = await h.deliver('star', { action: 'created', padding: 'x'.repeat(MAX_WEBHOOK_BYTES - 4096) });
    expect(res.statusCode).toBe(202);
    expect(await footprint()).toEqual(before);
  });

  it.each([
    ['an unknown event name', 'made_up_event'],
    ['an event the App ignores', 'star'],
  ])('%s: accepted (202) and ignored', async (_name, event) => {
    const before = await footprint();
    const res = await h.deliver(event, { action: 'created', repository: h.payloads.labeled(1).repository, installation: { id: h.installationId } });
    expect(res.statusCode).toBe(202);
    expect(await footprint()).toEqual(before);
  });

  it.each([
    ['a JSON string', '{"action": "labeled", '],
    ['a JSON array', [1, 2, 3]],
    ['JSON null', null],
    ['an issues.labeled without issue or sender', { action: 'labeled', installation: { id: 7 } }],
    ['an issue_comment.created whose comment is a number', { action: 'created', comment: 5, issue: 1, repository: 'x', sender: 'y', installation: { id: 7 } }],
  ])('a signed payload of the wrong shape (%s): 400, not a retried 500, and nothing else', async (_name, payload) => {
    const before = await footprint();
    const event = payload !== null && typeof payload === 'object' && 'comment' in payload ? 'issue_comment' : 'issues';
    const res = await h.deliver(event, payload);
    expect(res.statusCode).toBe(400);
    expect(await footprint()).toEqual(before);
  });

  it('after all that, a proper delivery still starts a run (the handler is not wedged)', async () => {
    const res = await h.deliver('issues', h.payloads.labeled(1));
    expect(res.statusCode).toBe(202);
    expect(h.pending().filter((k) => k.endsWith('/request.json'))).toHaveLength(1);
  });
});
