import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiChatProvider } from '../../../src/app/model/openai-chat-provider.js';
import { mavenMultiModuleRepo } from '../../fixtures/realistic-repos.js';
import { answer, callTools, startScriptedModelServer, type ScriptedModelServer, type ScriptedReply } from '../../helpers/scripted-model-server.js';
import { cli, makeWorkingCopy } from '../cli/cli-harness.js';
import {
  ledgerDir,
  LocalArtifactStore,
  MIGRATION_POLICY,
  dyingStore,
  loadAttempt,
  makeMavenBare,
  removeRoot,
  runOnce,
  startRun,
  tempRoot,
} from './pipeline-harness.js';

/**
 * The LLM engine through the whole pipeline (no recipe steps, a model configured): the model's
 * tool calls, a write outside its segment refused and ledgered, the canary never sent, and the
 * model-call budget stopping the run.
 */
// GitHub-token shaped, assembled at run time so no token-like literal sits in the source.
const CANARY = ['gh', 'p_'].join('') + 'Q4z'.repeat(12);
const SERVICE = 'order-service/src/main/java/com/acme/order/OrderService.java';
const CONFIG = 'order-service/src/main/resources/application.yml';
const TASK = 'Guard the LegacyAuthClient.exchangeToken call in OrderService against surrounding whitespace in the code';

let root: string;
let repo: string;
const servers: ScriptedModelServer[] = [];

beforeAll(() => {
  root = tempRoot('llm-engine');
  repo = join(root, 'orders');
  const files = mavenMultiModuleRepo();
  files[CONFIG] = `${files[CONFIG]}github:\n  token: ${CANARY}\n`;
  makeWorkingCopy(repo, { ...files, '.agent-policy.yaml': MIGRATION_POLICY });
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

afterAll(() => removeRoot(root));

async function modelFor(script: (body: any, index: number) => ScriptedReply) {
  const server = await startScriptedModelServer({ script, apiKey: 'model-key' });
  servers.push(server);
  return { server, model: new OpenAiChatProvider({ baseUrl: server.baseUrl, model: 'scripted-1', apiKey: 'model-key', maxRetries: 0 }) };
}

/** Every file under `dir` whose bytes contain `needle`. */
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

function ledger(runDir: string, attempt = 1): any[] {
  const dir = ledgerDir(runDir, attempt);
  return readdirSync(dir)
    .sort()
    .map((name) => JSON.parse(readFileSync(join(dir, name), 'utf8')));
}

describe('the LLM engine in the pipeline', () => {
  it('reads, writes an allowed target, is refused outside its segment, never sends the canary; the candidate holds only its change', async () => {
    const service = mavenMultiModuleRepo()[SERVICE];
    const edited = service.replace('legacyAuthClient.exchangeToken(code)', 'legacyAuthClient.exchangeToken(code.trim())');
    expect(edited).not.toBe(service);
    const script: ScriptedReply[] = [
      callTools({ name: 'file_read', arguments: { path: SERVICE } }, { name: 'file_read', arguments: { path: CONFIG } }),
      callTools({ name: 'code_search', arguments: { query: 'token' } }),
      callTools({ name: 'file_write', arguments: { path: SERVICE, content: edited } }),
      callTools(
        { name: 'file_write', arguments: { path: '.github/workflows/ci.yml', content: 'name: pwned\n' } },
        { name: 'file_write', arguments: { path: CONFIG, content: 'server:\n  port: 1\n' } },
      ),
      callTools({ name: 'git_diff', arguments: {} }),
      answer('Trimmed the code before the exchange in OrderService; left CI and config alone.'),
    ];
    const { server, model } = await modelFor((_body, index) => script[index] ?? answer('done'));
    const out = join(root, 'state-llm');
    const result = await cli(['run', repo, '--task', TASK, '--out', out, '--json'], { model });

    expect(server.problems()).toEqual([]);
    expect(server.requests).toHaveLength(script.length);
    expect(result.code).toBe(0);
    expect(result.json).toMatchObject({ status: 'COMPLETED' });

    // The model was offered exactly the change phase's projected tools.
    expect(server.requests[0].body.tools.map((t: any) => t.function.name).sort()).toEqual([
      'code_search',
      'file_create',
      'file_delete',
      'file_edit',
      'file_read',
      'file_write',
      'git_blame',
      'git_diff',
      'git_log',
      'plan_revise',
      'repo_map_explain_path',
      'repo_map_find_definition',
      'repo_map_find_files',
      'repo_map_find_importers',
      'repo_map_find_tests',
      'repo_map_owners',
    ]);
    // It saw the file it asked for...
    expect(server.requests[1].raw).toContain('legacyAuthClient.exchangeToken(code)');
    expect(server.requests[1].raw).toContain('jdbc:postgresql://localhost/orders');
    // ...but never the canary: not in any request body, nor anywhere in what the run stored.
    for (const request of server.requests) expect(request.raw).not.toContain(CANARY);
    expect(filesContaining(out, CANARY)).toEqual([]);
    expect(result.stdout + result.stderr).not.toContain(CANARY);

    // The refused writes are in the tool results the model saw and in the ledger.
    const refusedTurn = JSON.parse(server.requests[4].raw)
      .messages.filter((m: any) => m.role === 'tool')
      .slice(-2);
    expect(refusedTurn.map((m: any) => m.content)).toEqual([
      expect.stringMatching(/^error: FILE_NOT_ALLOWED: /),
      expect.stringMatching(/^error: FILE_NOT_ALLOWED: /),
    ]);
    const entries = ledger(result.json!.runDir);
    const refusals = entries.filter((e) => e.type === 'TOOL_REFUSED');
    expect(refusals.map((e) => [e.phase, e.payload.tool, e.payload.reason])).toEqual([
      ['mechanical_change', 'file_write', 'FILE_NOT_ALLOWED'],
      ['mechanical_change', 'file_write', 'FILE_NOT_ALLOWED'],
    ]);
    expect(entries.filter((e) => e.type === 'MODEL_EXCHANGE')).toHaveLength(script.length);

    // Only the allowed write reached the candidate.
    const candidate = JSON.parse(readFileSync(result.json!.artifacts['pr-candidate.json'], 'utf8'));
    expect(candidate.files.map((f: { path: string }) => f.path)).toEqual([SERVICE]);
    const blob = candidate.files[0].blobSha as string;
    expect(readFileSync(join(result.json!.runDir, 'candidate', 'changes', blob), 'utf8')).toBe(edited);
    const body = readFileSync(result.json!.artifacts['pr-body.md'], 'utf8');
    expect(body).toContain('engine: llm');
  }, 30_000);

  it('a model that never finishes is stopped by the model-call budget: BUDGET_EXCEEDED, exit 3, no candidate', async () => {
    // Always a different file, so loop detection (identical calls) does not stop it first.
    const { server, model } = await modelFor((_body, index) => callTools({ name: 'file_read', arguments: { path: [SERVICE, CONFIG, 'pom.xml'][index % 3] } }));
    const out = join(root, 'state-budget');
    const task = `${TASK}\n\n\`\`\`agent\nmode: draft_pr\nbudgets: {maxModelCalls: 3}\n\`\`\`\n`;
    const result = await cli(['run', repo, '--task', task, '--out', out, '--json'], { model });
    expect(server.requests).toHaveLength(3);
    expect(result.code).toBe(3);
    expect(result.json).toMatchObject({ status: 'BUDGET_EXCEEDED', reason: 'MODEL_BUDGET_EXCEEDED' });
    expect(result.json!.artifacts['pr-candidate.json']).toBeUndefined();
    const stop = ledger(result.json!.runDir).find((e) => e.type === 'RUN_STOPPED');
    expect(stop).toMatchObject({ phase: 'mechanical_change', payload: { state: 'BUDGET_EXCEEDED' } });
  }, 30_000);

  it('a crash in the middle of the model segment resumes by replaying the recorded exchanges: the model is not asked again, the commit is the same', async () => {
    const bare = join(root, 'orders.git');
    const files = mavenMultiModuleRepo();
    makeMavenBare(bare, { [CONFIG]: `${files[CONFIG]}github:\n  token: ${CANARY}\n` });
    const edited = files[SERVICE].replace('legacyAuthClient.exchangeToken(code)', 'legacyAuthClient.exchangeToken(code.trim())');
    const script: ScriptedReply[] = [
      callTools({ name: 'file_read', arguments: { path: SERVICE } }),
      callTools({ name: 'file_write', arguments: { path: SERVICE, content: edited } }),
      callTools({ name: 'git_diff', arguments: {} }),
      answer('Trimmed the code in OrderService.'),
    ];
    const run = async (dir: string, from: number, crashAfterExchanges?: number) => {
      const { server, model } = await modelFor((_body, index) => script[from + index] ?? answer('done'));
      const store = new LocalArtifactStore(dir);
      const started = await startRun(store, bare, 'llmresume0001', TASK);
      let exchanges = 0;
      const crashing =
        crashAfterExchanges === undefined ? store : dyingStore(store, (_key, body) => body.includes('"MODEL_EXCHANGE"') && ++exchanges > crashAfterExchanges);
      const result = await runOnce({ store: crashing, source: bare, model, ...started }).catch((error: unknown) => error as Error);
      return { server, model, store, started, result };
    };

    const reference = await run(join(root, 'llm-reference'), 0);
    expect(reference.result).toMatchObject({ status: 'COMPLETED' });
    expect(reference.server.requests).toHaveLength(script.length);

    const crashed = await run(join(root, 'llm-crash'), 0, 2);
    expect(crashed.result).toBeInstanceOf(Error);
    expect(crashed.server.requests).toHaveLength(3); // the third answer was received, never recorded

    // A fresh invocation: two exchanges replay from the ledger, the model is asked from turn 3 on.
    const { server, model } = await modelFor((_body, index) => script[2 + index] ?? answer('done'));
    const resumed = await runOnce({
      store: crashed.store,
      source: bare,
      model,
      keys: crashed.started.keys,
      attempt: await loadAttempt(crashed.store, crashed.started.keys, 1),
    });
    expect(resumed).toMatchObject({ status: 'COMPLETED', headCommitSha: (reference.result as { headCommitSha: string }).headCommitSha });
    expect(server.requests).toHaveLength(2);
    expect(server.problems()).toEqual([]);
    // The first request after the resume carries the replayed conversation: both earlier tool results.
    expect(server.requests[0].body.messages.filter((m: any) => m.role === 'tool')).toHaveLength(2);
    for (const request of server.requests) expect(request.raw).not.toContain(CANARY);
  }, 30_000);
});
