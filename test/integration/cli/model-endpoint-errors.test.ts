import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiChatProvider } from '../../../src/app/model/openai-chat-provider.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../../helpers/scripted-model-server.js';
import { removeRoot, tempRoot } from '../pipeline/pipeline-harness.js';
import { cli, makeWorkingCopy } from './cli-harness.js';

/**
 * A model endpoint that is down or answers 404 is the first thing a user running a local model
 * meets (the server not started, `/v1` left off the base URL, a model not pulled). The CLI says
 * which, in its text output and in `--json`, instead of a bare MODEL_ERROR.
 */
const TASK = 'Fix total in src/invoice.py so it sums the item prices';

let root: string;
let repo: string;
let server: ScriptedModelServer;
let closedPort: number;
beforeAll(async () => {
  root = tempRoot('cli-model-endpoint');
  repo = join(root, 'shop');
  makeWorkingCopy(repo, {
    'src/invoice.py': 'def total(items):\n    return 0\n',
    'tests/test_invoice.py': 'from src.invoice import total\n\ndef test_total():\n    assert total([1, 2]) == 3\n',
  });
  server = await startScriptedModelServer({ script: [] });
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  closedPort = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
});
afterAll(async () => {
  await server?.close();
  removeRoot(root);
});

const CASES = [
  {
    name: 'nothing listens on the port (connection refused)',
    baseUrl: () => `http://127.0.0.1:${closedPort}/v1`,
    cause: () => new RegExp(`MODEL_NETWORK_ERROR: model endpoint http://127\\.0\\.0\\.1:${closedPort}/v1/chat/completions unreachable: .*ECONNREFUSED`),
  },
  {
    name: 'the server answers 404 (base URL without /v1)',
    baseUrl: () => server.baseUrl.replace(/\/v1$/, ''),
    cause: () => new RegExp(`MODEL_NOT_FOUND: model endpoint ${server.baseUrl.replace(/\/v1$/, '')}/chat/completions answered HTTP 404 \\(check the base URL`),
  },
];

describe('draftsman run with a model endpoint that cannot answer', () => {
  it.each(CASES)('$name: the cause is in --json and in the text output', async ({ name, baseUrl, cause }) => {
    const model = new OpenAiChatProvider({ baseUrl: baseUrl(), model: 'qwen3', maxRetries: 0 });
    const out = (kind: string) => join(root, `${name.split(' ')[0]}-${kind}`);

    const json = await cli(['run', repo, '--task', TASK, '--out', out('json'), '--json'], { model });
    const text = await cli(['run', repo, '--task', TASK, '--out', out('text')], { model });

    expect(json.code).toBe(1);
    expect(json.json).toMatchObject({ status: 'FAILED', reason: 'MODEL_ERROR' });
    expect(json.json?.details?.summary).toMatch(cause());
    expect(text.code).toBe(1);
    // The progress lines and the outcome go to stderr; the cause is one of its lines, whole.
    expect(text.stderr.split('\n').some((line) => cause().test(line))).toBe(true);
  });
});

describe('draftsman run reads the model from the environment by the names serve and the App use', () => {
  it.each([
    { names: 'MODEL_*', env: () => ({ MODEL_BASE_URL: `http://127.0.0.1:${closedPort}/v1`, MODEL_NAME: 'qwen3' }), warned: false },
    {
      names: 'the old DRAFTSMAN_MODEL_*',
      env: () => ({ DRAFTSMAN_MODEL_BASE_URL: `http://127.0.0.1:${closedPort}/v1`, DRAFTSMAN_MODEL: 'qwen3' }),
      warned: true,
    },
  ])(
    '$names: the endpoint configured is the one called',
    async ({ names, env, warned }) => {
      const result = await cli(['run', repo, '--task', TASK, '--out', join(root, `env-${warned}`), '--json'], { env: env() });
      // The run reached the configured endpoint (nothing listens there): the model was built from these names.
      expect(JSON.stringify(result.json), names).toContain(`127.0.0.1:${closedPort}/v1`);
      const warning = /draftsman: warning: DRAFTSMAN_MODEL_BASE_URL is an old name, still read: set MODEL_BASE_URL instead/;
      if (warned) expect(result.stderr).toMatch(warning);
      else expect(result.stderr).not.toMatch(/old name/);
    },
    120_000,
  );
});
