import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiChatProvider } from '../../../src/app/model/openai-chat-provider.js';
import type { ModelProvider } from '../../../src/core/ports.js';
import { answer, callTools, startScriptedModelServer, type ScriptedModelServer, type ScriptedReply } from '../../helpers/scripted-model-server.js';
import { cli, makeWorkingCopy } from '../cli/cli-harness.js';
import { ledgerDir, removeRoot, tempRoot } from './pipeline-harness.js';

/**
 * The conversation a model segment holds, through the CLI with a scripted model: what each
 * request carries as the conversation grows, the names the model is told, what the tools
 * answer, and how far `plan_revise` reaches.
 */

/** A Python module of about 3 KB: `count` small functions, each with a docstring and an indented body. */
function module(name: string, count: number): string {
  const fns = Array.from(
    { length: count },
    (_, i) =>
      `def ${name}_step_${i}(amount, rate):\n    """Apply ${name} step ${i} to the amount at the given rate, rounding half up to cents."""\n` +
      `    if rate is None:\n        return amount\n    value = amount * (1 + rate * ${i + 1})\n    return round(value, 2)\n`,
  );
  return `"""The ${name} rules of the billing package."""\n\n${fns.join('\n\n')}\n`;
}

const MODULES = ['invoice', 'tax', 'currency', 'discount', 'shipping', 'ledger', 'refund', 'report'];
const FILES: Record<string, string> = {
  'pyproject.toml': '[project]\nname = "billing"\nversion = "1.0.0"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
  'billing/__init__.py': '',
  ...Object.fromEntries(MODULES.map((m) => [`billing/${m}.py`, module(m, 14)])),
  'billing/invoice_total.py':
    'from billing.discount import discount_step_0\n\n\ndef compute_total(lines, discount):\n    """The invoice total."""\n    total = sum(line.amount for line in lines)\n    return total\n',
  'tests/test_invoice.py': 'from billing.invoice_total import compute_total\n\n\ndef test_total():\n    assert compute_total([], None) == 0\n',
  // Fixtures and data: never the model's context.
  ...Object.fromEntries(
    Array.from({ length: 60 }, (_, i) => [`tests/fixtures/invoice_${String(i).padStart(2, '0')}.json`, `{"lines": [{"amount": ${i}}], "discount": 0.1}\n`]),
  ),
  ...Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`tests/testdata/export_${i}.html`, `<html><body>invoice ${i}</body></html>\n`])),
  'tests/testdata/archive.json.gz': '\u001f\u008b\u0008\u0000compressed',
};
const TASK = 'compute_total ignores the discount\n\ncompute_total in billing/invoice_total.py returns the sum of the lines and never applies `discount`.';

let root: string;
let repo: string;
const servers: ScriptedModelServer[] = [];

beforeAll(() => {
  root = tempRoot('model-conversation');
  repo = join(root, 'billing');
  makeWorkingCopy(repo, FILES);
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

afterAll(() => removeRoot(root));

async function run(script: ScriptedReply[], out: string, options: { maxOutputTokens?: number } = {}) {
  const server = await startScriptedModelServer({ script: (_body, index) => script[index] ?? answer('done') });
  servers.push(server);
  const provider = new OpenAiChatProvider({ baseUrl: server.baseUrl, model: 'scripted-1', apiKey: 'k', maxRetries: 0 });
  const model: ModelProvider =
    options.maxOutputTokens === undefined
      ? provider
      : { model: provider.model, maxOutputTokens: options.maxOutputTokens, complete: (request) => provider.complete(request) };
  const result = await cli(['run', repo, '--task', TASK, '--out', join(root, out), '--json'], { model });
  return { server, result, runDir: result.json?.runDir as string };
}

function ledger(runDir: string): any[] {
  const dir = ledgerDir(runDir, 1);
  return readdirSync(dir)
    .sort()
    .map((name) => JSON.parse(readFileSync(join(dir, name), 'utf8')));
}

/** The content of the tool message answering `callId` in request `index`. */
function resultOf(server: ScriptedModelServer, index: number, callId: string): string {
  return server.requests[index].body.messages.find((m: any) => m.role === 'tool' && m.tool_call_id === callId).content;
}

/** Twelve reads of 3 KB modules and searches, then an answer: a conversation of 13 model calls. */
const READS: ScriptedReply[] = [
  ...MODULES.map((m, i) => callTools({ id: `read_${i}`, name: 'file_read', arguments: { path: `billing/${m}.py` } })),
  ...MODULES.slice(0, 4).map((m, i) => callTools({ id: `search_${i}`, name: 'code_search', arguments: { query: `def ${m}_step_` } })),
  answer('Read the modules; nothing changed.'),
];

describe('the conversation of a model segment', () => {
  it('stays bounded: the first two messages never change, old long tool results are elided with a note naming the call, recent ones are whole', async () => {
    const { server } = await run(READS, 'bounded');
    expect(server.problems()).toEqual([]);
    const requests = server.requests;
    expect(requests.length).toBe(READS.length);
    const sizes = requests.map((r) => r.raw.length);
    if (process.env.DRAFTSMAN_PRINT_SIZES) console.log(JSON.stringify(sizes));
    if (process.env.DRAFTSMAN_PRINT_SIZES) require('node:fs').writeFileSync('/tmp/first-request.json', requests[0].raw);

    // The stable prefix: system prompt and task context byte-identical in every request.
    const prefix = JSON.stringify(requests[0].body.messages.slice(0, 2));
    for (const r of requests) expect(JSON.stringify(r.body.messages.slice(0, 2))).toBe(prefix);

    // The first read is whole while recent, elided once three more turns have passed, and the note says how to get it back.
    expect(resultOf(server, 1, 'read_0')).toContain('def invoice_step_13(amount, rate):');
    expect(resultOf(server, 3, 'read_0')).toContain('def invoice_step_13(amount, rate):');
    const note = resultOf(server, 4, 'read_0');
    expect(note).not.toContain('def invoice_step_13');
    expect(note).toMatch(/^\[elided: the result of file_read \{"path":"billing\/invoice\.py"\} \(\d+ characters\)/);
    expect(note).toContain('repeat the call');
    // Once elided, an old turn stays as it is in every later request (the prefix a provider caches grows).
    for (let i = 5; i < requests.length; i++) expect(resultOf(server, i, 'read_0')).toBe(note);

    // Bounded: after the first few calls the request stops growing by a whole tool result per call.
    const growth = sizes.slice(5).map((size, i) => size - sizes[4 + i]);
    const wholeResult = resultOf(server, 1, 'read_0').length;
    for (const g of growth) expect(g).toBeLessThan(wholeResult / 2);
    expect(Math.max(...sizes)).toBeLessThan(sizes[0] + 4 * wholeResult);
  });

  it('sends a lean first request: the map part within 8 KB, no fixtures or data files in its lists, tests near the target first', async () => {
    const { server } = await run([answer('nothing to do')], 'lean');
    const context = server.requests[0].body.messages[1].content as string;
    const map = context.slice(context.indexOf('Repository map, projected'), context.indexOf('<<<END UNTRUSTED'));
    if (process.env.DRAFTSMAN_PRINT_SIZES) console.log(server.requests[0].raw.length, map.length);
    expect(map.length).toBeGreaterThan(0);
    expect(map.length).toBeLessThanOrEqual(8 * 1024);
    const tests = map.split('\n').find((line) => line.startsWith('tests: '))!;
    expect(JSON.parse(tests.slice('tests: '.length)).map((t: any) => t.path)).toEqual(['tests/test_invoice.py']);
    expect(map).not.toMatch(/testdata|\.gz/);
  });

  it('one name per tool in the offer, the prompt, descriptions, results and the ledger; searches keep indentation and say why nothing matched', async () => {
    const { server, runDir } = await run(
      [
        callTools(
          { id: 'indented', name: 'code_search', arguments: { query: 'return round(value, 2)', paths: ['billing/tax.py'], maxResults: 1 } },
          { id: 'literal', name: 'code_search', arguments: { query: 'def \\w+_step_0\\(' } },
          { id: 'invalid', name: 'code_search', arguments: { query: 'def (', regex: true } },
          { id: 'refused', name: 'verify_commands', arguments: {} },
        ),
        answer('looked'),
      ],
      'names',
    );
    const offered: string[] = server.requests[0].body.tools.map((t: any) => t.function.name);
    const system = server.requests[0].body.messages[0].content as string;
    expect(system).toContain(`Tools available in this phase: ${offered.join(', ')}.`);
    // No description names a tool any other way than the model calls it.
    const descriptions = server.requests[0].body.tools.map((t: any) => t.function.description).join('\n');
    expect(descriptions).not.toMatch(/\b(file|code_search|repo_map|git|plan)\.[a-z_]+/);
    expect(resultOf(server, 1, 'indented')).toMatch(/^<<<UNTRUSTED tool code_search id=/);
    expect(resultOf(server, 1, 'indented')).toContain('billing/tax.py:8:     return round(value, 2)');
    expect(resultOf(server, 1, 'literal')).toContain('looks like a regular expression: pass regex: true');
    expect(resultOf(server, 1, 'invalid')).toMatch(/^error: REGEX_INVALID: regex is not valid: /);
    expect(resultOf(server, 1, 'refused')).toMatch(/^error: (TOOL_NOT_ALLOWED|UNKNOWN_TOOL): tool "verify_commands" is not allowed/);
    const refusals = ledger(runDir)
      .filter((e) => e.type === 'TOOL_REFUSED')
      .map((e) => e.payload.tool);
    expect(refusals).toContain('verify_commands');
    for (const tool of refusals) expect(tool).toMatch(/^[a-z_]+$/);
  });

  it('tells the model what to do in the phase and when to stop, in plain words', async () => {
    const { server } = await run([answer('nothing to do')], 'goal');
    const goal = (server.requests[0].body.messages[0].content as string).split('\n').find((line) => line.startsWith('Goal: '))!;
    expect(goal).not.toMatch(/segment|deterministic/);
    expect(goal).toContain('Make the change the task asks for');
    expect(goal).toMatch(/Stop when the change is made: reply without a tool call/);
    expect(goal).toContain('plan_revise');
  });

  it("asks for the provider's completion cap per call", async () => {
    const { server } = await run([answer('nothing to do')], 'max-output', { maxOutputTokens: 16_000 });
    expect(server.requests[0].body.max_tokens).toBe(16_000);
    const { server: plain } = await run([answer('nothing to do')], 'max-output-default');
    expect(plain.requests[0].body.max_tokens).toBe(4_096);
  });
});
