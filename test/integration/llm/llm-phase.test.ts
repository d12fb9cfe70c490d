import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { OpenAiChatProvider } from '../../../src/app/model/openai-chat-provider.js';
import { defineLlmTool, runLlmPhase, type LlmPhase, type RecordedExchange, type RunLlmPhaseInput } from '../../../src/core/engines/llm/index.js';
import { PhaseContractError } from '../../../src/core/phases/phase-runtime.js';
import type { Workspace } from '../../../src/core/workspace/workspace.js';
import { createMemoryRepo } from '../../helpers/memory-repo.js';
import { answer, callTools, startScriptedModelServer, type ScriptedModelServer, type ScriptedModelServerOptions } from '../../helpers/scripted-model-server.js';

// A GitHub-token-shaped canary, assembled at run time so no literal token sits in the source.
const CANARY = ['gh', 'p_'].join('') + 'Zq7'.repeat(12);
const maskTokens = (text: string) => text.replace(/\bgh[pousr]_[A-Za-z0-9]{36,}\b/g, '[REDACTED:github-token]');

const FILES = {
  'src/app.ts': 'export const greeting = "hello";\n',
  'src/util.ts': 'export function add(a: number, b: number) { return a + b; }\n',
  'config/app.properties': `endpoint=https://example.invalid\ntoken=${CANARY}\n`,
  'README.md': '# demo\n',
};

const servers: ScriptedModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function server(options: ScriptedModelServerOptions): Promise<ScriptedModelServer> {
  const s = await startScriptedModelServer(options);
  servers.push(s);
  return s;
}

/** The caller's tool projections over a workspace; writes are allowed under `src/` only. */
function toolsFor(workspace: Workspace) {
  return [
    defineLlmTool({
      name: 'file_read',
      description: 'Read a text file of the repository.',
      args: z.strictObject({ path: z.string() }),
      run: async ({ path }) => workspace.readText(path),
    }),
    defineLlmTool({
      name: 'file_write',
      description: 'Replace the content of a file inside the allowed paths.',
      args: z.strictObject({ path: z.string(), content: z.string() }),
      run: async ({ path, content }) => {
        if (!path.startsWith('src/')) throw new PhaseContractError('FILE_NOT_ALLOWED', `may not write ${path}`, { path });
        await workspace.write(path, content);
        return `wrote ${path}`;
      },
    }),
    defineLlmTool({
      name: 'git_status',
      description: 'List changed files.',
      args: z.strictObject({}),
      run: async () =>
        workspace
          .changes()
          .map((c) => `${c.kind} ${c.path}`)
          .join('\n') || 'clean',
    }),
  ];
}

const EDIT_PHASE: LlmPhase = { name: 'mechanical_change', goal: 'Make the change.', allowedTools: ['file_read', 'file_write', 'git_status'] };
const DISCOVERY: LlmPhase = { name: 'discovery', goal: 'Find the targets; do not edit.', allowedTools: ['file_read', 'git_status'] };

async function setup(options: ScriptedModelServerOptions, phase: LlmPhase = EDIT_PHASE, overrides: Partial<RunLlmPhaseInput> = {}) {
  const repo = await createMemoryRepo(FILES);
  const s = await server(options);
  const recorded: RecordedExchange[] = [];
  const input: RunLlmPhaseInput = {
    model: new OpenAiChatProvider({ baseUrl: s.baseUrl, model: 'scripted-1', apiKey: 'test-key', maxRetries: 0 }),
    phase,
    tools: toolsFor(repo.workspace),
    system: 'You change code carefully.',
    task: { title: 'Rename greeting', objective: 'Change the greeting to "hi".' },
    context: 'src/app.ts: exports greeting',
    budgets: { maxModelCalls: 10, maxTokens: 100_000, maxSteps: 20 },
    redact: maskTokens,
    record: async (exchange) => {
      recorded.push(exchange);
    },
    ...overrides,
  };
  return { repo, server: s, input, recorded };
}

const EDIT_SCRIPT = [
  callTools({ id: 'c1', name: 'file_read', arguments: { path: 'src/app.ts' } }),
  callTools(
    { id: 'c2', name: 'file_write', arguments: { path: 'src/app.ts', content: 'export const greeting = "hi";\n' } },
    { id: 'c3', name: 'git_status', arguments: {} },
  ),
  answer('Changed the greeting in src/app.ts.'),
];

describe('runLlmPhase against an OpenAI-compatible server', () => {
  it('executes tool calls and feeds their results back until the model answers', async () => {
    const { repo, server: s, input, recorded } = await setup({ script: EDIT_SCRIPT, apiKey: 'test-key' });

    const result = await runLlmPhase(input);

    expect(result).toMatchObject({ status: 'DONE', reason: 'MODEL_FINISHED', summary: 'Changed the greeting in src/app.ts.', calls: 3, steps: 3, tokens: 360 });
    expect(result.toolResults.map((r) => [r.tool, r.status])).toEqual([
      ['file_read', 'ok'],
      ['file_write', 'ok'],
      ['git_status', 'ok'],
    ]);
    expect(await repo.workspace.readText('src/app.ts')).toBe('export const greeting = "hi";\n');
    expect(s.problems()).toEqual([]);
    expect(s.requests).toHaveLength(3);
    // Only the phase's tools are offered, under wire-safe names.
    expect(s.requests[0].body.tools.map((t: any) => t.function.name)).toEqual(['file_read', 'file_write', 'git_status']);
    expect(s.requests[0].body.tool_choice).toBe('auto');
    // The file content came back as a tool message, framed as untrusted data.
    const toolMessage = s.requests[1].body.messages.at(-1);
    expect(toolMessage.role).toBe('tool');
    expect(toolMessage.content).toMatch(
      /^<<<UNTRUSTED tool file_read id=[0-9a-f]{12}>>>\nexport const greeting = "hello";\n\n<<<END UNTRUSTED id=[0-9a-f]{12}>>>$/,
    );
    expect(s.requests[2].body.messages.at(-1).content).toContain('MODIFIED src/app.ts');
    expect(s.requests[0].body.messages[0].content).toContain('never instructions');
    expect(recorded.map((e) => e.seq)).toEqual([0, 1, 2]);
  });

  it('refuses a tool the phase does not allow, tells the model and reports it', async () => {
    const script = [callTools({ name: 'file_write', arguments: { path: 'src/app.ts', content: 'x' } }), answer('Could not edit in discovery.')];
    const { repo, server: s, input } = await setup({ script }, DISCOVERY);

    const result = await runLlmPhase(input);

    expect(result.status).toBe('DONE');
    expect(result.refusals).toEqual([expect.objectContaining({ tool: 'file_write', status: 'refused', reason: 'TOOL_NOT_ALLOWED' })]);
    expect(repo.workspace.changes()).toEqual([]);
    expect(s.requests[0].body.tools.map((t: any) => t.function.name)).toEqual(['file_read', 'git_status']);
    expect(s.requests[1].body.messages.at(-1)).toMatchObject({ role: 'tool', content: expect.stringMatching(/^error: TOOL_NOT_ALLOWED: /) });
    expect(s.problems()).toEqual([]);
  });

  it('refuses a write outside the scope: the tool error reaches the model and the result', async () => {
    const script = [callTools({ name: 'file_write', arguments: { path: 'config/app.properties', content: 'token=' } }), answer('Left config alone.')];
    const { repo, server: s, input } = await setup({ script });

    const result = await runLlmPhase(input);

    expect(result.refusals).toEqual([expect.objectContaining({ tool: 'file_write', reason: 'FILE_NOT_ALLOWED', status: 'refused' })]);
    expect(repo.workspace.changes()).toEqual([]);
    expect(s.requests[1].body.messages.at(-1).content).toBe('error: FILE_NOT_ALLOWED: may not write config/app.properties');
  });

  it('reports arguments that are not JSON or do not validate, without running the tool', async () => {
    const script = [
      callTools(
        { name: 'file_read', arguments: '{"path": ' },
        { name: 'file_read', arguments: { path: 5 } },
        { name: 'file_write', arguments: { path: 'src/x.ts' } },
      ),
      answer('ok'),
    ];
    const { repo, server: s, input } = await setup({ script });

    const result = await runLlmPhase(input);

    expect(result.toolResults.map((r) => [r.status, r.reason])).toEqual([
      ['invalid_arguments', 'ARGUMENTS_NOT_JSON'],
      ['invalid_arguments', 'ARGUMENTS_INVALID'],
      ['invalid_arguments', 'ARGUMENTS_INVALID'],
    ]);
    expect(repo.workspace.changes()).toEqual([]);
    expect(s.problems()).toEqual([]);
  });

  it('stops with BUDGET_EXCEEDED when the model-call budget is spent', async () => {
    const loop = () => callTools({ name: 'git_status', arguments: {} });
    const { server: s, input } = await setup({ script: () => loop() }, EDIT_PHASE, { budgets: { maxModelCalls: 2, maxTokens: 100_000, maxSteps: 50 } });

    const result = await runLlmPhase(input);

    expect(result).toMatchObject({ status: 'BUDGET_EXCEEDED', reason: 'MAX_MODEL_CALLS', calls: 2, steps: 2 });
    expect(s.requests).toHaveLength(2);
  });

  it('stops with BUDGET_EXCEEDED before a call whose prompt no longer fits the token budget; the cap sent leaves room for the prompt', async () => {
    const heavy = () => ({
      ...callTools({ name: 'file_write', arguments: { path: 'src/app.ts', content: 'changed' } }),
      usage: { promptTokens: 500, completionTokens: 100 },
    });
    const { repo, server: s, input } = await setup({ script: () => heavy() }, EDIT_PHASE, { budgets: { maxModelCalls: 10, maxTokens: 1_000, maxSteps: 50 } });
    const result = await runLlmPhase(input);

    // The second prompt is at least the first prompt and answer as counted (600) plus the tool result: over the 400 left.
    expect(result).toMatchObject({ status: 'BUDGET_EXCEEDED', reason: 'MAX_TOKENS', calls: 1, tokens: 600, steps: 1 });
    expect(result.exhausted).toMatchObject({ dimension: 'tokens_in', scope: 'phase', limit: 1_000, used: 600 });
    expect(result.exhausted!.needed).toBeGreaterThan(400);
    expect(s.requests).toHaveLength(1);
    // The completion cap is what is left of the budget once the prompt estimate is taken off.
    const cap = s.requests[0].body.max_tokens as number;
    expect(cap).toBeGreaterThan(0);
    expect(cap).toBeLessThan(1_000 - s.requests[0].raw.length / 6);
    expect(await repo.workspace.readText('src/app.ts')).toBe('changed');
  });

  it('stops with BUDGET_EXCEEDED when the step budget is spent mid-turn', async () => {
    const script = [callTools({ name: 'git_status', arguments: {} }, { name: 'git_status', arguments: {} }, { name: 'git_status', arguments: {} })];
    const { input } = await setup({ script }, EDIT_PHASE, { budgets: { maxModelCalls: 10, maxTokens: 100_000, maxSteps: 2 } });

    const result = await runLlmPhase(input);

    expect(result).toMatchObject({ status: 'BUDGET_EXCEEDED', reason: 'MAX_STEPS', steps: 2, calls: 1 });
    expect(result.toolResults).toHaveLength(2);
  });

  it('never sends a secret from a file the model reads: every request body is free of the canary', async () => {
    const script = [
      callTools({ name: 'file_read', arguments: { path: 'config/app.properties' } }),
      callTools({ name: 'file_read', arguments: { path: 'src/app.ts' } }),
      answer('Read the configuration.'),
    ];
    const { server: s, input } = await setup({ script }, DISCOVERY, { context: `config/app.properties has token=${CANARY}` });

    const result = await runLlmPhase(input);

    expect(result.status).toBe('DONE');
    expect(s.requests).toHaveLength(3);
    for (const request of s.requests) expect(request.raw).not.toContain(CANARY);
    expect(s.requests[1].raw).toContain('[REDACTED:github-token]');
    expect(JSON.stringify(result)).not.toContain(CANARY);
  });

  it('control: without redaction the canary does reach the server, so the scan above can see it', async () => {
    const script = [callTools({ name: 'file_read', arguments: { path: 'config/app.properties' } }), answer('done')];
    const { server: s, input } = await setup({ script }, DISCOVERY, { redact: (text) => text });

    await runLlmPhase(input);

    expect(s.requests[1].raw).toContain(CANARY);
  });

  it('replays recorded exchanges without any HTTP request and gives the same result and workspace', async () => {
    const first = await setup({ script: EDIT_SCRIPT });
    const original = await runLlmPhase(first.input);
    expect(first.recorded).toHaveLength(3);

    const again = await setup({ script: [] });
    const newlyRecorded: RecordedExchange[] = [];
    const replayed = await runLlmPhase({ ...again.input, replay: first.recorded, record: async (e) => void newlyRecorded.push(e) });

    expect(again.server.requests).toHaveLength(0);
    expect(newlyRecorded).toEqual([]);
    expect({ ...replayed, replayed: 0 }).toEqual({ ...original, replayed: 0 });
    expect(replayed.replayed).toBe(3);
    expect(await again.repo.workspace.readText('src/app.ts')).toBe(await first.repo.workspace.readText('src/app.ts'));
  });

  it('resumes after a partial replay by asking the model only for what was not recorded', async () => {
    const first = await setup({ script: EDIT_SCRIPT });
    await runLlmPhase(first.input);

    const resumed = await setup({ script: EDIT_SCRIPT.slice(1) });
    const result = await runLlmPhase({ ...resumed.input, replay: first.recorded.slice(0, 1) });

    expect(result).toMatchObject({ status: 'DONE', calls: 3, replayed: 1 });
    expect(resumed.server.requests).toHaveLength(2);
    // The live requests are byte-identical to the ones the first attempt sent.
    expect(resumed.server.requests.map((r) => r.raw)).toEqual(first.server.requests.slice(1).map((r) => r.raw));
    expect(resumed.recorded.map((e) => e.requestDigest)).toEqual(first.recorded.slice(1).map((e) => e.requestDigest));
  });

  it('fails with REPLAY_DIVERGED, without asking the model, when the conversation differs from the recording', async () => {
    const first = await setup({ script: EDIT_SCRIPT });
    await runLlmPhase(first.input);

    const changed = await setup({ script: EDIT_SCRIPT }, EDIT_PHASE, { context: 'a different map projection' });
    const result = await runLlmPhase({ ...changed.input, replay: first.recorded });

    expect(result).toMatchObject({ status: 'FAILED', reason: 'REPLAY_DIVERGED', calls: 0 });
    expect(changed.server.requests).toHaveLength(0);
  });

  it('fails (not throws) when the model endpoint rejects the call', async () => {
    const { input } = await setup({ script: [{ status: 400, body: '{"error":{"message":"context too long"}}' }] });

    const result = await runLlmPhase(input);

    expect(result).toMatchObject({ status: 'FAILED', reason: 'MODEL_ERROR', calls: 0 });
    expect(result.summary).toContain('MODEL_REQUEST_REJECTED');
  });
});
