import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiChatProvider } from '../../../src/app/model/openai-chat-provider.js';
import { sha256Hex } from '../../../src/core/util/digest.js';
import { mavenMultiModuleRepo } from '../../fixtures/realistic-repos.js';
import { answer, callTools, startScriptedModelServer, type ScriptedModelServer, type ScriptedReply } from '../../helpers/scripted-model-server.js';
import { cli, makeWorkingCopy } from '../cli/cli-harness.js';
import { ledgerDir, MIGRATION_POLICY, removeRoot, tempRoot } from './pipeline-harness.js';

/**
 * The model's tools through the whole pipeline: it asks the navigator where a symbol is
 * defined, makes a precise edit that breaks the parse, is told where, fixes it, and the
 * candidate holds exactly the precise edit.
 */
const SERVICE = 'order-service/src/main/java/com/acme/order/OrderService.java';
const CLIENT = 'order-service/src/main/java/com/acme/auth/LegacyAuthClient.java';
const TASK = 'Guard the LegacyAuthClient.exchangeToken call in OrderService against surrounding whitespace in the code';

let root: string;
let repo: string;
const servers: ScriptedModelServer[] = [];

beforeAll(() => {
  root = tempRoot('model-tools');
  repo = join(root, 'orders');
  makeWorkingCopy(repo, { ...mavenMultiModuleRepo(), '.agent-policy.yaml': MIGRATION_POLICY });
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

afterAll(() => removeRoot(root));

/** The tool results of the last turn of a request, in order. */
function toolResults(raw: string): string[] {
  const messages = JSON.parse(raw).messages as { role: string; content: string }[];
  const tail: string[] = [];
  for (let i = messages.length - 1; i >= 0 && messages[i].role === 'tool'; i--) tail.unshift(messages[i].content);
  return tail;
}

describe('model tools in the pipeline', () => {
  it('find definition, a precise edit that breaks the parse, the problem reported, the fix; the candidate holds the precise edit', async () => {
    const service = mavenMultiModuleRepo()[SERVICE];
    const broken = service.replace('legacyAuthClient.exchangeToken(code);', 'legacyAuthClient.exchangeToken(code.trim();');
    const fixed = service.replace('legacyAuthClient.exchangeToken(code);', 'legacyAuthClient.exchangeToken(code.trim());');
    expect(broken).not.toBe(service);
    const script: ScriptedReply[] = [
      callTools({ name: 'repo_map_find_definition', arguments: { name: 'LegacyAuthClient.exchangeToken' } }),
      callTools({
        name: 'file_edit',
        arguments: { path: SERVICE, oldText: 'legacyAuthClient.exchangeToken(code);', newText: 'legacyAuthClient.exchangeToken(code.trim();' },
      }),
      callTools({ name: 'file_edit', arguments: { path: SERVICE, oldText: 'exchangeToken(code.trim();', newText: 'exchangeToken(code.trim());' } }),
      answer('Trimmed the code before LegacyAuthClient.exchangeToken in OrderService.'),
    ];
    const server = await startScriptedModelServer({ script: (_body, index) => script[index] ?? answer('done'), apiKey: 'model-key' });
    servers.push(server);
    const model = new OpenAiChatProvider({ baseUrl: server.baseUrl, model: 'scripted-1', apiKey: 'model-key', maxRetries: 0 });
    const result = await cli(['run', repo, '--task', TASK, '--out', join(root, 'state'), '--json'], { model });

    expect(server.problems()).toEqual([]);
    expect(server.requests).toHaveLength(script.length);
    expect(result.json).toMatchObject({ status: 'COMPLETED' });
    const offered = server.requests[0].body.tools.map((t: any) => t.function.name);
    expect(offered).toEqual(expect.arrayContaining(['repo_map_find_definition', 'file_edit', 'file_read']));
    expect(offered).not.toContain('repo_map_query');

    // The navigator answered with the definition first and its evidence.
    const [definition] = toolResults(server.requests[1].raw);
    const clientLine =
      mavenMultiModuleRepo()
        [CLIENT].split('\n')
        .findIndex((l) => l.includes('public String exchangeToken(')) + 1;
    const lines = definition.split('\n');
    expect(lines[1]).toBe('find_definition name=LegacyAuthClient.exchangeToken limit=20: 2 results');
    expect(lines[2]).toMatch(new RegExp(`^1\\. ${CLIENT} \\(score 1\\): method LegacyAuthClient\\.exchangeToken defined at line ${clientLine}: `));
    expect(lines[2]).toMatch(new RegExp(`\\[${CLIENT}:${clientLine}, symbol_index:definition\\]$`));

    // The broken edit was applied and its parse problem reported; the fix parsed.
    const editLine = service.split('\n').findIndex((l) => l.includes('legacyAuthClient.exchangeToken(code);')) + 1;
    const [first] = toolResults(server.requests[2].raw);
    expect(first).toContain(`edited ${SERVICE}: replaced 1 occurrence(s) at line(s) ${editLine}`);
    expect(first).toMatch(/parse problems: \d+; fix them before finishing\n {2}line \d+, column \d+: /);
    const [second] = toolResults(server.requests[3].raw);
    expect(second).toContain('parse: ok');
    expect(second).not.toContain('parse problems');

    // Each edit is ledgered with the digest of what it left.
    const runDir = result.json!.runDir as string;
    const ledgerPath = ledgerDir(runDir, 1);
    const entries = readdirSync(ledgerPath)
      .sort()
      .map((n) => JSON.parse(readFileSync(join(ledgerPath, n), 'utf8')));
    expect(entries.filter((e) => e.type === 'EDIT_APPLIED').map((e) => [e.phase, e.payload.tool, e.payload.path, e.payload.sha256After])).toEqual([
      ['mechanical_change', 'file_edit', SERVICE, sha256Hex(broken)],
      ['mechanical_change', 'file_edit', SERVICE, sha256Hex(fixed)],
    ]);

    // The candidate holds exactly the precise edit.
    const candidate = JSON.parse(readFileSync(result.json!.artifacts['pr-candidate.json'], 'utf8'));
    expect(candidate.files.map((f: { path: string }) => f.path)).toEqual([SERVICE]);
    expect(readFileSync(join(runDir, 'candidate', 'changes', candidate.files[0].blobSha), 'utf8')).toBe(fixed);
  }, 60_000);
});
