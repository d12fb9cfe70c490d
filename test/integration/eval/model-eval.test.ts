import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeSyntaxService } from '../../../src/app/local/node-grammar-loader.js';
import { OpenAiChatProvider } from '../../../src/app/model/openai-chat-provider.js';
import type { TreeSyntaxService } from '../../../src/core/syntax/create-syntax-service.js';
import { checkResult, formatModelEval, runModelEval } from '../../../eval/model/run.js';
import { MODEL_EVAL_TASKS, type ModelEvalTask } from '../../../eval/model/tasks.js';
import { answer, callTools, startScriptedModelServer, type ScriptedModelServer, type ScriptedReply } from '../../helpers/scripted-model-server.js';

/**
 * `npm run eval:model` against the scripted server: per task, a script that makes the right edit
 * through the tools (adding the file to the plan first, in case discovery did not select it).
 * Every task must pass, and a wrong edit must fail its check.
 */

/** The corrected file for each task: what a capable model would write. */
const FIXES: Record<string, (content: string) => string> = {
  'off-by-one-total': (c) => c.replace('items[1:]', 'items'),
  'rename-parameter': (c) => c.replace('def fib(n):', 'def fib(count):').replace('range(n):\n        a, b', 'range(count):\n        a, b'),
  'null-check': (c) => c.replace('  return user.name.trim();', "  if (user === null) return '';\n  return user.name.trim();"),
  'comparison-boundary': (c) => c.replace('age > 18', 'age >= 18'),
  'greeting-text': (c) => c.replace('return "hello, " + name;', 'return "Hello, " + name + "!";'),
  'config-default': (c) => c.replace('TIMEOUT_SECONDS = 5', 'TIMEOUT_SECONDS = 30'),
};

function scriptFor(task: ModelEvalTask): ScriptedReply[] {
  const path = task.changes[0];
  const usage = { promptTokens: 50, completionTokens: 5 };
  return [
    { ...callTools({ name: 'file_read', arguments: { path } }), usage },
    { ...callTools({ name: 'plan_revise', arguments: { reason: `the task names ${path}`, addFiles: [path] } }), usage },
    { ...callTools({ name: 'file_write', arguments: { path, content: FIXES[task.id](task.files[path]) } }), usage },
    answer(`Changed ${path}.`, usage),
  ];
}

/** The task a request belongs to (its objective is the task text), and how far its conversation is. */
function route(body: any): ScriptedReply {
  const user = body.messages[1].content as string;
  const task = MODEL_EVAL_TASKS.find((t) => user.includes(t.task));
  if (!task) return answer('unknown task');
  const turn = body.messages.filter((m: any) => m.role === 'assistant').length;
  return scriptFor(task)[turn] ?? answer('done');
}

let server: ScriptedModelServer;
let syntax: TreeSyntaxService;

beforeAll(async () => {
  server = await startScriptedModelServer({ script: (body) => route(body) });
  syntax = await createNodeSyntaxService();
});

afterAll(async () => server?.close());

describe('npm run eval:model', () => {
  it('every task passes against the scripted model; calls and tokens are counted per task', async () => {
    expect(MODEL_EVAL_TASKS.length).toBeGreaterThanOrEqual(5);
    expect(Object.keys(FIXES).sort()).toEqual(MODEL_EVAL_TASKS.map((t) => t.id).sort());
    const model = new OpenAiChatProvider({ baseUrl: server.baseUrl, model: 'scripted-1', maxRetries: 0 });
    const { results } = await runModelEval(model);
    expect(server.problems()).toEqual([]);
    expect(results.map((r) => [r.id, r.pass, r.failures])).toEqual(MODEL_EVAL_TASKS.map((t) => [t.id, true, []]));
    for (const r of results) {
      expect(r.calls).toBe(4);
      expect(r.tokens).toEqual({ prompt: 200, completion: 20 });
      const first = server.requests.find((q) => q.body.messages[1].content.includes(MODEL_EVAL_TASKS.find((t) => t.id === r.id)!.task.split('\n')[0]))!;
      expect(r.firstRequestBytes).toBe(
        Buffer.byteLength(JSON.stringify({ messages: first.body.messages, tools: first.body.tools.map((t: any) => t.function) })),
      );
      expect(r.maxRequestBytes).toBeGreaterThanOrEqual(r.firstRequestBytes);
      expect(r.firstRecall).toEqual({ found: 1, of: 1 });
    }
    const table = formatModelEval('scripted-1', results);
    expect(table).toContain('first/max request  first recall');
    expect(table).toMatch(/first working set recall: \d+\/\d+ of the fixes' files; first request: largest \d+\.\dK/);
    expect(table).toContain(`model scripted-1: ${MODEL_EVAL_TASKS.length}/${MODEL_EVAL_TASKS.length} tasks pass`);
  }, 180_000);

  it.each([
    ['a fix that misses the point', 'off-by-one-total', (c: string) => c.replace('items[1:]', 'items[2:]'), /total still skips the first item/],
    ['a file that no longer parses', 'config-default', (c: string) => c.replace('TIMEOUT_SECONDS = 5', 'TIMEOUT_SECONDS = 30\ndef ('), /does not parse/],
    [
      'the parameter renamed in the wrong function',
      'rename-parameter',
      (c: string) => c.replace('def squares(n):', 'def squares(count):').replace('range(n)]', 'range(count)]'),
      /fib does not take `count`/,
    ],
  ])('a wrong result fails its check: %s', (_what, id, edit, why) => {
    const task = MODEL_EVAL_TASKS.find((t) => t.id === id)!;
    const path = task.changes[0];
    expect(checkResult(task, 'COMPLETED', new Map([[path, edit(task.files[path])]]), syntax)).toEqual([expect.stringMatching(why)]);
    // The right fix passes the same check.
    expect(checkResult(task, 'COMPLETED', new Map([[path, FIXES[id](task.files[path])]]), syntax)).toEqual([]);
  });

  it('a change to another file, or a run that did not complete, fails', () => {
    const task = MODEL_EVAL_TASKS.find((t) => t.id === 'comparison-boundary')!;
    const fixed = FIXES[task.id](task.files['lib/age.js']);
    expect(
      checkResult(
        task,
        'COMPLETED',
        new Map([
          ['lib/age.js', fixed],
          ['README.md', 'x\n'],
        ]),
        syntax,
      ),
    ).toEqual(['changed but should not be: README.md']);
    expect(checkResult(task, 'FAILED', new Map(), syntax)).toEqual(['the run ended FAILED', 'not changed: lib/age.js']);
  });
});
