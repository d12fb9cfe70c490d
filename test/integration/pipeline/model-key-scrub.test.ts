import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ModelProviderError } from '../../../src/app/model/model-provider-error.js';
import { OpenAiChatProvider } from '../../../src/app/model/openai-chat-provider.js';
import { mavenMultiModuleRepo } from '../../fixtures/realistic-repos.js';
import { startScriptedModelServer, type RecordedRequest, type ScriptedModelServer, type ScriptedReply } from '../../helpers/scripted-model-server.js';
import { cli, makeWorkingCopy } from '../cli/cli-harness.js';
import { MIGRATION_POLICY, removeRoot, tempRoot } from './pipeline-harness.js';

/**
 * The model API key never reaches anything the run stores or prints, whatever an endpoint
 * echoes back: a non-JSON 500 quoting the request headers, a 200 that is not JSON, the key
 * straddling the excerpt's cut. The key is not credential-shaped, so only redaction by value
 * can catch it.
 */
const KEY = ['canary', 'model', 'key', 'Zq81'].join('-');
const TASK = 'Guard the LegacyAuthClient.exchangeToken call in OrderService against surrounding whitespace in the code';

let root: string;
let repo: string;
const servers: ScriptedModelServer[] = [];
beforeAll(() => {
  root = tempRoot('model-key');
  repo = join(root, 'orders');
  makeWorkingCopy(repo, { ...mavenMultiModuleRepo(), '.agent-policy.yaml': MIGRATION_POLICY });
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(() => removeRoot(root));

/** What a misconfigured proxy answers: an HTML-ish page that dumps the request headers. */
const echoHeaders = (request: RecordedRequest, pad = 0): string =>
  `${'<'.repeat(pad)}<html><body>upstream failed<pre>POST /v1/chat/completions\nAuthorization: ${request.authorization}\nX-Debug: key=${request.authorization?.slice(7)}</pre></body></html>`;

async function modelFor(reply: (request: RecordedRequest) => ScriptedReply, maxRetries = 1) {
  const server = await startScriptedModelServer({ apiKey: KEY, script: (_body, _index, request) => reply(request) });
  servers.push(server);
  return { server, model: new OpenAiChatProvider({ baseUrl: server.baseUrl, model: 'scripted-1', apiKey: KEY, maxRetries, backoffMs: 1 }) };
}

function filesContaining(dir: string, needle: string): string[] {
  const hits: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const full = join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (readFileSync(full).includes(needle)) hits.push(full);
    }
  };
  walk(dir);
  return hits;
}

describe('the model API key never reaches an artifact, a checkpoint or a log', () => {
  it.each([
    [
      'a non-JSON 500 echoing the Authorization header (retried, then failed)',
      (r: RecordedRequest): ScriptedReply => ({ status: 500, body: echoHeaders(r), headers: { 'content-type': 'text/html' } }),
    ],
    [
      'a 200 whose body is not JSON and echoes the header',
      (r: RecordedRequest): ScriptedReply => ({ status: 200, body: echoHeaders(r), headers: { 'content-type': 'text/html' } }),
    ],
    [
      'the key straddling the excerpt cut',
      (r: RecordedRequest): ScriptedReply => ({ status: 502, body: `${'x'.repeat(285)} key=${r.authorization?.slice(7)} tail` }),
    ],
  ])(
    '%s',
    async (_name, reply) => {
      const { server, model } = await modelFor(reply);
      const out = join(root, `state-${servers.length}`);
      const result = await cli(['run', repo, '--task', TASK, '--out', out, '--json'], { model });

      expect(server.requests.length).toBeGreaterThan(0);
      expect(server.requests.every((r) => r.authorization === `Bearer ${KEY}`)).toBe(true);
      expect(result.json).toMatchObject({ status: 'FAILED' });
      // The failure is reported, with its reason, but the key is in no stored file and no output.
      expect(filesContaining(out, 'MODEL_')).not.toEqual([]);
      expect(filesContaining(out, KEY)).toEqual([]);
      expect(result.stdout + result.stderr).not.toContain(KEY);
    },
    30_000,
  );

  it('the provider error carries status and a bounded redacted excerpt, no cause, no headers', async () => {
    const { model } = await modelFor((r) => ({ status: 500, body: `${echoHeaders(r)}${'y'.repeat(5000)}` }), 0);
    const error = await model.complete({ messages: [{ role: 'user', content: 'hi' }], tools: [] }).then(
      () => undefined,
      (e: unknown) => e as ModelProviderError,
    );
    expect(error).toBeInstanceOf(ModelProviderError);
    expect(error!.reason).toBe('MODEL_SERVER_ERROR');
    expect(error!.data).toMatchObject({ status: 500, attempts: 1 });
    // The excerpt is cut at 300 characters; the endpoint and who failed (provider, model, attempts) come around it.
    expect(error!.message.length).toBeLessThan(500);
    expect(error!.message).toContain('(provider openai, model ');
    expect(error!.message).toContain('Authorization: [REDACTED]');
    expect(error!.cause).toBeUndefined();
    expect(JSON.stringify({ ...error!.toJSON(), stack: error!.stack })).not.toContain(KEY);
  });
});
