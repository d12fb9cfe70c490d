import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiChatProvider } from '../../../src/app/model/openai-chat-provider.js';
import { CANARIES, canaryFile, KEY_BODY } from '../../fixtures/secret-canaries.js';
import { mavenMultiModuleRepo } from '../../fixtures/realistic-repos.js';
import { answer, callTools, startScriptedModelServer, type ScriptedModelServer, type ScriptedReply } from '../../helpers/scripted-model-server.js';
import { cli, makeWorkingCopy } from '../cli/cli-harness.js';
import { MIGRATION_POLICY, removeRoot, tempRoot } from './pipeline-harness.js';

/**
 * Real-format credentials in repository files are redacted before any model request: the
 * scripted model server reads them through every tool that returns file content and must
 * receive none of them (nor the body lines of a private key block).
 */
const TASK = 'Guard the LegacyAuthClient.exchangeToken call in OrderService against surrounding whitespace in the code';
const SERVICE = 'order-service/src/main/java/com/acme/order/OrderService.java';
const CONFIG_PASSWORD = ['plain', 'Text', 'Pw42'].join('');

let root: string;
let repo: string;
let server: ScriptedModelServer | undefined;
beforeAll(() => {
  root = tempRoot('secret-redaction');
  repo = join(root, 'orders');
  makeWorkingCopy(repo, {
    ...mavenMultiModuleRepo(),
    '.agent-policy.yaml': MIGRATION_POLICY,
    'deploy/credentials.txt': canaryFile(),
    '.npmrc': `${CANARIES.filter((c) => c.path === '.npmrc')
      .map((c) => c.line)
      .join('\n')}\n`,
    // An unquoted password is a finding only in a configuration file: reads are redacted with the file's path.
    'config/app.yml': `${CANARIES[0].line}\npassword: ${CONFIG_PASSWORD}\n`,
  });
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});
afterAll(() => removeRoot(root));

describe('secrets in file content never reach the model', () => {
  it('file reads, code search and the diff the model asks for carry every canary redacted', async () => {
    const script: ScriptedReply[] = [
      callTools(
        { name: 'file_read', arguments: { path: 'deploy/credentials.txt' } },
        { name: 'file_read', arguments: { path: '.npmrc' } },
        { name: 'file_read', arguments: { path: 'config/app.yml' } },
      ),
      callTools({ name: 'code_search', arguments: { query: '://' } }, { name: 'code_search', arguments: { query: '_auth' } }),
      callTools({ name: 'file_write', arguments: { path: SERVICE, content: `${mavenMultiModuleRepo()[SERVICE]}// ${CANARIES[2].value}\n` } }),
      callTools({ name: 'git_diff', arguments: {} }),
      answer('done'),
    ];
    server = await startScriptedModelServer({ apiKey: 'model-key', script: (_body, index) => script[index] ?? answer('done') });
    const model = new OpenAiChatProvider({ baseUrl: server.baseUrl, model: 'scripted-1', apiKey: 'model-key', maxRetries: 0 });
    await cli(['run', repo, '--task', TASK, '--out', join(root, 'state'), '--json'], { model });

    expect(server.problems()).toEqual([]);
    expect(server.requests.length).toBeGreaterThanOrEqual(5);
    // The reads did happen (the tool results are there, redacted)...
    const seen = server.requests.map((r) => r.raw).join('\n');
    expect(seen).toContain('postgres://orders:****@db.internal');
    expect(seen).toContain('Private-MAC: ****');
    // ...and no canary, nor any key body line, is in any request.
    for (const request of server.requests) {
      for (const c of CANARIES) expect(request.raw, `${c.rule} (${c.path})`).not.toContain(c.value);
      for (const line of KEY_BODY) expect(request.raw).not.toContain(line);
      expect(request.raw).not.toContain(CONFIG_PASSWORD);
    }
  }, 60_000);
});
