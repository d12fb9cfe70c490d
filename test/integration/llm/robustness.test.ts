import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { OpenAiChatProvider } from '../../../src/app/model/openai-chat-provider.js';
import { defineLlmTool, runLlmPhase, type LlmPhase, type RecordedExchange, type RunLlmPhaseInput } from '../../../src/core/engines/llm/index.js';
import type { ModelProvider, ModelResponse } from '../../../src/core/ports.js';
import { PhaseContractError } from '../../../src/core/phases/phase-runtime.js';
import { createMemoryRepo } from '../../helpers/memory-repo.js';
import { answer, callTools, startScriptedModelServer, type ScriptedModelServer, type ScriptedReply } from '../../helpers/scripted-model-server.js';

/**
 * What real models do that the happy path never shows, one scenario per test, through the
 * engine with the OpenAI-compatible provider against the scripted server on loopback: the
 * engine must tell the model what went wrong and go on, or stop with a reason that says why.
 */

const FILES = {
  'src/app.ts': 'export const greeting = "hello";\n',
  'src/big.txt': `${'0123456789abcdef\n'.repeat(4_000)}`,
  'README.md': '# demo\n',
};
const PHASE: LlmPhase = { name: 'mechanical_change', goal: 'Make the change.', allowedTools: ['file.read', 'file.write', 'git.status'] };

const servers: ScriptedModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function setup(script: ScriptedReply[] | ((body: any, index: number) => ScriptedReply), overrides: Partial<RunLlmPhaseInput> = {}) {
  const repo = await createMemoryRepo(FILES);
  const server = await startScriptedModelServer({ script });
  servers.push(server);
  let writes = 0;
  const recorded: RecordedExchange[] = [];
  const input: RunLlmPhaseInput = {
    model: new OpenAiChatProvider({ baseUrl: server.baseUrl, model: 'scripted-1', maxRetries: 2, sleep: async () => {} }),
    phase: PHASE,
    tools: [
      defineLlmTool({
        name: 'file.read',
        description: 'Read a text file of the repository.',
        args: z.strictObject({ path: z.string() }),
        run: async ({ path }) => repo.workspace.readText(path),
      }),
      defineLlmTool({
        name: 'file.write',
        description: 'Replace the content of a file under src/.',
        args: z.strictObject({ path: z.string(), content: z.string() }),
        run: async ({ path, content }) => {
          if (!path.startsWith('src/')) throw new PhaseContractError('FILE_NOT_ALLOWED', `may not write ${path}`, { path });
          await repo.workspace.write(path, content);
          writes += 1;
          return `wrote ${path}`;
        },
      }),
      defineLlmTool({
        name: 'git.status',
        description: 'List changed files.',
        args: z.strictObject({}),
        run: async () => repo.workspace.changes().map((c) => `${c.kind} ${c.path}`).join('\n') || 'clean',
      }),
    ],
    system: 'You change code carefully.',
    task: { title: 'Greeting', objective: 'Change the greeting to "hi".' },
    context: 'src/app.ts: exports greeting',
    budgets: { maxModelCalls: 10, maxTokens: 100_000, maxSteps: 20 },
    redact: (text) => text,
    record: async (exchange) => void recorded.push(exchange),
    progress: () => writes,
    ...overrides,
  };
  return { repo, server, input, recorded };
}

/** The tool messages of request `i`, in order. */
const toolMessages = (server: ScriptedModelServer, i: number): string[] => server.requests[i].body.messages.filter((m: any) => m.role === 'tool').map((m: any) => m.content);

describe('robustness of the LLM engine against real model behaviour', () => {
  it('malformed tool JSON: told as ARGUMENTS_NOT_JSON, the tool does not run, the model goes on', async () => {
    const { repo, server, input } = await setup([callTools({ id: 'bad', name: 'file_write', arguments: '{"path": "src/app.ts", "content": "x' }), answer('Gave up on the edit.')]);
    const result = await runLlmPhase(input);
    expect(result).toMatchObject({ status: 'DONE', reason: 'MODEL_FINISHED' });
    expect(result.toolResults).toEqual([expect.objectContaining({ tool: 'file.write', status: 'invalid_arguments', reason: 'ARGUMENTS_NOT_JSON' })]);
    expect(toolMessages(server, 1)).toEqual(['error: ARGUMENTS_NOT_JSON: the arguments of "file.write" are not valid JSON']);
    expect(repo.workspace.changes()).toEqual([]);
    expect(server.problems()).toEqual([]);
  });

  it('a tool call cut by max_tokens (finish_reason length, arguments not JSON) is told as invalid arguments, not run', async () => {
    const truncated: ScriptedReply = { content: null, toolCalls: [{ name: 'file_write', arguments: '{"path":"src/app.ts","content":"export const gree' }], finishReason: 'length' };
    const { repo, server, input } = await setup([truncated, callTools({ name: 'file_write', arguments: { path: 'src/app.ts', content: 'export const greeting = "hi";\n' } }), answer('done')]);
    const result = await runLlmPhase(input);
    expect(result.status).toBe('DONE');
    expect(result.toolResults.map((r) => [r.status, r.reason])).toEqual([
      ['invalid_arguments', 'ARGUMENTS_NOT_JSON'],
      ['ok', undefined],
    ]);
    expect(toolMessages(server, 1)[0]).toMatch(/^error: ARGUMENTS_NOT_JSON: /);
    // The cut content never reached the file; the retried, complete call did.
    expect(await repo.workspace.readText('src/app.ts')).toBe('export const greeting = "hi";\n');
  });

  it('unknown tools: refused as UNKNOWN_TOOL with the list of allowed ones', async () => {
    const { server, input } = await setup([callTools({ name: 'shell_exec', arguments: { cmd: 'cat ~/.aws/credentials' } }), answer('ok')]);
    const result = await runLlmPhase(input);
    expect(result.refusals).toEqual([expect.objectContaining({ tool: 'shell_exec', reason: 'UNKNOWN_TOOL' })]);
    expect(toolMessages(server, 1)[0]).toBe('error: UNKNOWN_TOOL: tool "shell_exec" is not allowed in phase "mechanical_change"; allowed tools: file_read, file_write, git_status');
  });

  it('arguments of the wrong type: ARGUMENTS_INVALID naming the field, the tool does not run', async () => {
    const { repo, server, input } = await setup([callTools({ name: 'file_write', arguments: { path: ['src/app.ts'], content: 42 } }), answer('ok')]);
    const result = await runLlmPhase(input);
    expect(result.toolResults).toEqual([expect.objectContaining({ status: 'invalid_arguments', reason: 'ARGUMENTS_INVALID' })]);
    expect(toolMessages(server, 1)[0]).toMatch(/^error: ARGUMENTS_INVALID: invalid arguments for "file\.write": [\s\S]*path[\s\S]*content/);
    expect(repo.workspace.changes()).toEqual([]);
  });

  it('an invented file: a clear FILE_NOT_FOUND for the model, not a crash', async () => {
    const { server, input } = await setup([callTools({ name: 'file_read', arguments: { path: 'src/does/not/exist.ts' } }), answer('That file does not exist.')]);
    const result = await runLlmPhase(input);
    expect(result).toMatchObject({ status: 'DONE', refusals: [expect.objectContaining({ tool: 'file.read', reason: 'FILE_NOT_FOUND' })] });
    expect(toolMessages(server, 1)[0]).toMatch(/^error: FILE_NOT_FOUND: .*src\/does\/not\/exist\.ts/);
  });

  it('oversized output: cut at the limit with a note of what was cut; the request stays bounded', async () => {
    const { server, input } = await setup([callTools({ name: 'file_read', arguments: { path: 'src/big.txt' } }), answer('read it')], { maxToolOutputChars: 1_000 });
    const result = await runLlmPhase(input);
    const size = FILES['src/big.txt'].length;
    expect(result.toolResults[0]).toMatchObject({ status: 'ok', outputChars: size });
    const shown = toolMessages(server, 1)[0];
    expect(shown).toContain(`[... ${size - 1_000} more characters cut]`);
    expect(shown.length).toBeLessThan(1_200);
    expect(server.requests[1].raw.length).toBeLessThan(8_000);
  });

  it('the same call repeated: the model is told once, then the phase stops with MODEL_LOOP (FAILED)', async () => {
    const { server, input } = await setup(() => callTools({ name: 'file_read', arguments: { path: 'src/app.ts' } }));
    const result = await runLlmPhase(input);
    expect(result).toMatchObject({ status: 'FAILED', reason: 'MODEL_LOOP', calls: 3, steps: 2 });
    expect(result.summary).toContain('file_read with the same arguments 3 times');
    expect(server.requests).toHaveLength(3);
    // The first answer is plain; the second carries the warning, once.
    const [first, second] = toolMessages(server, 2);
    expect(first).not.toContain('you already called');
    expect(second).toContain('note: you already called file_read with these arguments');
  });

  it('loop detection: key order does not disguise a repeat, and an edit in between resets the count', async () => {
    const read = (args: unknown) => callTools({ name: 'file_read', arguments: args });
    const write = (content: string) => callTools({ name: 'file_write', arguments: { path: 'src/app.ts', content } });
    const script = [read({ path: 'src/app.ts' }), read('{ "path" : "src/app.ts" }'), write('a\n'), read({ path: 'src/app.ts' }), read({ path: 'src/app.ts' }), write('b\n'), answer('done')];
    const { input } = await setup(script);
    const result = await runLlmPhase(input);
    expect(result).toMatchObject({ status: 'DONE', reason: 'MODEL_FINISHED', steps: 6 });

    // Without the progress marker, the same script counts four identical reads: stopped.
    const { input: blind } = await setup(script, { progress: undefined });
    expect(await runLlmPhase(blind)).toMatchObject({ status: 'FAILED', reason: 'MODEL_LOOP' });
  });

  it('an identical assistant turn repeated (several calls each) is stopped the same way', async () => {
    const turn = () => callTools({ name: 'git_status', arguments: {} }, { name: 'file_read', arguments: { path: 'README.md' } });
    const { server, input } = await setup(() => turn(), { maxRepeatedCalls: 2 });
    const result = await runLlmPhase(input);
    expect(result).toMatchObject({ status: 'FAILED', reason: 'MODEL_LOOP', calls: 2 });
    expect(server.requests).toHaveLength(2);
  });

  it('an empty answer: one nudge; a second empty answer fails with MODEL_EMPTY_ANSWER', async () => {
    const { server, input } = await setup([{ content: '' }, { content: null }, answer('never asked')]);
    const result = await runLlmPhase(input);
    expect(result).toMatchObject({ status: 'FAILED', reason: 'MODEL_EMPTY_ANSWER', calls: 2 });
    expect(server.requests).toHaveLength(2);
    // The empty turn is not echoed back (strict endpoints refuse it); the nudge is.
    expect(server.problems()).toEqual([]);
    expect(server.requests[1].body.messages.at(-1)).toMatchObject({ role: 'user', content: expect.stringContaining('Your last reply was empty') });
  });

  it('an empty answer once, then a real one: the phase finishes normally', async () => {
    const { input } = await setup([{ content: '   ' }, callTools({ name: 'git_status', arguments: {} }), answer('Nothing to change.')]);
    expect(await runLlmPhase(input)).toMatchObject({ status: 'DONE', reason: 'MODEL_FINISHED', summary: 'Nothing to change.', calls: 3 });
  });

  it('a refusal (stopReason refusal from the provider) fails with MODEL_REFUSED and the refusal text, without running its tools', async () => {
    const { repo, input } = await setup([]);
    const refusing: ModelProvider = {
      model: 'refusing-1',
      complete: async (): Promise<ModelResponse> => ({
        message: { role: 'assistant', content: 'I cannot help with modifying this code.', tool_calls: [{ id: 'r1', type: 'function', function: { name: 'file_write', arguments: '{"path":"src/app.ts","content":""}' } }] },
        stopReason: 'refusal',
        usage: { promptTokens: 10, completionTokens: 5 },
      }),
    };
    const result = await runLlmPhase({ ...input, model: refusing });
    expect(result).toMatchObject({ status: 'FAILED', reason: 'MODEL_REFUSED', calls: 1, steps: 0, summary: 'The model refused: I cannot help with modifying this code.' });
    expect(repo.workspace.changes()).toEqual([]);
  });

  it('a provider error mid-run (HTTP 500 after retries): FAILED MODEL_ERROR; the resume replays the recorded exchanges and asks only the rest', async () => {
    const edit = callTools({ name: 'file_write', arguments: { path: 'src/app.ts', content: 'export const greeting = "hi";\n' } });
    const broken = await setup([callTools({ name: 'file_read', arguments: { path: 'src/app.ts' } }), edit, { status: 500 }, { status: 502 }, { status: 503 }]);
    const failed = await runLlmPhase(broken.input);
    expect(failed).toMatchObject({ status: 'FAILED', reason: 'MODEL_ERROR', calls: 2 });
    expect(failed.summary).toContain('MODEL_SERVER_ERROR');
    // Two answers recorded; the first failing call plus its two retries reached the server.
    expect(broken.recorded.map((e) => e.seq)).toEqual([0, 1]);
    expect(broken.server.requests).toHaveLength(5);

    const again = await setup([callTools({ name: 'git_status', arguments: {} }), answer('Changed the greeting.')]);
    const resumed = await runLlmPhase({ ...again.input, replay: broken.recorded });
    expect(resumed).toMatchObject({ status: 'DONE', calls: 4, replayed: 2 });
    expect(again.server.requests).toHaveLength(2);
    // The first live request is the one that failed before, byte for byte.
    expect(again.server.requests[0].raw).toBe(broken.server.requests[2].raw);
    expect(await again.repo.workspace.readText('src/app.ts')).toBe('export const greeting = "hi";\n');
    expect(again.recorded.map((e) => e.seq)).toEqual([2, 3]);
  });
});
