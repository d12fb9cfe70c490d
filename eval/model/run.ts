import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createNodeSyntaxService } from '../../src/app/local/node-grammar-loader.js';
import { modelFromEnv as cliModelFromEnv } from '../../src/app/cli/run-stage.js';
import type { ModelProvider } from '../../src/core/ports.js';
import type { TreeSyntaxService } from '../../src/core/syntax/create-syntax-service.js';
import { cli, CLI_NOW, makeWorkingCopy } from '../../test/integration/cli/cli-harness.js';
import { MODEL_EVAL_TASKS, type ModelEvalTask } from './tasks.js';

/**
 * `npm run eval:model [-- --json] [--task ID ...] [--keep]`: runs each free-text task of
 * tasks.ts through the same pipeline as `draftsman run` (no recipe block: the model makes the
 * change) against the model configured by MODEL_* and checks the result: the run
 * completed, exactly the expected files changed, each passes its predicate and parses. Prints
 * pass/fail per task with model calls, tokens in and out (the history bound shows in tokens in),
 * the first and largest request's size and how many of the fix's files the first working set
 * held; exits 1 when a task fails.
 */

export interface ModelTaskResult {
  id: string;
  pass: boolean;
  status: string;
  reason?: string;
  /** What is wrong with the result; empty when it passes. */
  failures: string[];
  changed: string[];
  calls: number;
  tokens: { prompt: number; completion: number };
  /** Bytes of the first request (messages and tools as JSON), and of the largest. */
  firstRequestBytes: number;
  maxRequestBytes: number;
  /** Of the task's `changes`, how many the first request let the model change (its first working set). */
  firstRecall: { found: number; of: number };
}

/** The files the first request lets the model change, as its system prompt names them. */
export function firstWorkingSet(systemPrompt: string): string[] {
  const named = /Only these files may change: (.*?)\. Keep the change minimal\./.exec(systemPrompt)?.[1];
  return named && named !== '(none)' ? named.split(', ') : [];
}

type Counted = Pick<ModelTaskResult, 'calls' | 'tokens' | 'firstRequestBytes' | 'maxRequestBytes'> & { firstSystem: string };

/** A provider that counts the calls and tokens going through it. */
export function countingModel(inner: ModelProvider): { model: ModelProvider; take(): Counted } {
  let calls = 0;
  let prompt = 0;
  let completion = 0;
  let first = 0;
  let max = 0;
  let firstSystem = '';
  return {
    model: {
      model: inner.model,
      ...(inner.maxOutputTokens !== undefined ? { maxOutputTokens: inner.maxOutputTokens } : {}),
      complete: async (request) => {
        calls += 1;
        const bytes = Buffer.byteLength(JSON.stringify({ messages: request.messages, tools: request.tools }));
        if (calls === 1) {
          first = bytes;
          firstSystem = request.messages[0]?.content ?? '';
        }
        max = Math.max(max, bytes);
        const response = await inner.complete(request);
        prompt += response.usage?.promptTokens ?? 0;
        completion += response.usage?.completionTokens ?? 0;
        return response;
      },
    },
    take: () => {
      const out = { calls, tokens: { prompt, completion }, firstRequestBytes: first, maxRequestBytes: max, firstSystem };
      calls = prompt = completion = first = max = 0;
      firstSystem = '';
      return out;
    },
  };
}

/** The candidate's changed files and their content (undefined for a deletion), from a run's `--json` output. */
function candidateFiles(json: Record<string, any>): Map<string, string | undefined> {
  const out = new Map<string, string | undefined>();
  const key = json.artifacts?.['pr-candidate.json'];
  if (typeof key !== 'string' || !existsSync(key)) return out;
  const candidate = JSON.parse(readFileSync(key, 'utf8')) as { files: { path: string; blobSha?: string }[] };
  for (const f of candidate.files) {
    out.set(f.path, f.blobSha ? readFileSync(join(json.runDir, 'candidate', 'changes', f.blobSha), 'utf8') : undefined);
  }
  return out;
}

/** Why the result of `task` is wrong; empty when it is right. */
export function checkResult(task: ModelEvalTask, status: string, files: Map<string, string | undefined>, syntax: TreeSyntaxService): string[] {
  const failures: string[] = [];
  if (status !== 'COMPLETED') failures.push(`the run ended ${status}`);
  const changed = [...files.keys()].sort();
  const missing = task.changes.filter((p) => !files.has(p));
  const extra = changed.filter((p) => !task.changes.includes(p));
  if (missing.length > 0) failures.push(`not changed: ${missing.join(', ')}`);
  if (extra.length > 0) failures.push(`changed but should not be: ${extra.join(', ')}`);
  for (const [path, content] of files) {
    if (!task.changes.includes(path)) continue;
    if (content === undefined) {
      failures.push(`${path} was deleted`);
      continue;
    }
    const wrong = task.check(path, content);
    if (wrong) failures.push(`${path}: ${wrong}`);
    const problems = syntax.parseProblems(path, content);
    if (problems.length > 0) failures.push(`${path} does not parse: line ${problems[0].line}: ${problems[0].message}`);
  }
  return failures;
}

/** One task end to end: its repository committed in a fresh working copy, `draftsman run` in-process, the candidate checked. */
export async function runModelTask(
  task: ModelEvalTask,
  root: string,
  counted: ReturnType<typeof countingModel>,
  syntax: TreeSyntaxService,
): Promise<ModelTaskResult> {
  const dir = join(root, task.id);
  const repo = join(dir, 'repo');
  mkdirSync(repo, { recursive: true });
  makeWorkingCopy(repo, task.files);
  counted.take();
  const run = await cli(['run', repo, '--task', task.task, '--out', join(dir, 'state'), '--json', '--run-id', `model-${task.id}`], {
    model: counted.model,
    now: CLI_NOW,
  });
  const { firstSystem, ...usage } = counted.take();
  const working = new Set(firstWorkingSet(firstSystem));
  const json = run.json ?? {};
  const status = typeof json.status === 'string' ? json.status : `exit ${run.code}`;
  const files = candidateFiles(json);
  const failures = checkResult(task, status, files, syntax);
  return {
    id: task.id,
    pass: failures.length === 0,
    status,
    reason: typeof json.reason === 'string' ? json.reason : undefined,
    failures,
    changed: [...files.keys()].sort(),
    ...usage,
    firstRecall: { found: task.changes.filter((p) => working.has(p)).length, of: task.changes.length },
  };
}

/** Every task (or those in `only`), one after the other, against `model`. */
export async function runModelEval(
  model: ModelProvider,
  options: { only?: readonly string[]; keep?: boolean } = {},
): Promise<{ results: ModelTaskResult[]; root: string }> {
  const unknown = (options.only ?? []).filter((id) => !MODEL_EVAL_TASKS.some((t) => t.id === id));
  if (unknown.length > 0) throw new Error(`unknown task(s): ${unknown.join(', ')}`);
  const tasks = MODEL_EVAL_TASKS.filter((t) => !options.only?.length || options.only.includes(t.id));
  const root = mkdtempSync(join(tmpdir(), 'draftsman-eval-model-'));
  const syntax = await createNodeSyntaxService();
  const counted = countingModel(model);
  try {
    const results: ModelTaskResult[] = [];
    for (const task of tasks) results.push(await runModelTask(task, root, counted, syntax));
    return { results, root };
  } finally {
    if (!options.keep) rmSync(root, { recursive: true, force: true });
  }
}

function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)}K`;
}

/** The results as a plain-text table with totals. */
export function formatModelEval(model: string, results: readonly ModelTaskResult[]): string {
  const lines = [`model ${model}: ${results.filter((r) => r.pass).length}/${results.length} tasks pass`, ''];
  const width = Math.max(4, ...results.map((r) => r.id.length));
  lines.push(`${'task'.padEnd(width)}  result  calls  tokens in/out  first/max request  first recall  status`);
  for (const r of results) {
    const sizes = `${kb(r.firstRequestBytes)}/${kb(r.maxRequestBytes)}`;
    const recall = `${r.firstRecall.found}/${r.firstRecall.of}`;
    lines.push(
      `${r.id.padEnd(width)}  ${(r.pass ? 'pass' : 'FAIL').padEnd(6)}  ${String(r.calls).padStart(5)}  ${`${r.tokens.prompt}/${r.tokens.completion}`.padStart(13)}  ${sizes.padStart(17)}  ${recall.padStart(12)}  ${r.status}${r.reason ? ` (${r.reason})` : ''}`,
    );
    for (const f of r.failures) lines.push(`${' '.repeat(width)}    - ${f}`);
  }
  const sum = (f: (r: ModelTaskResult) => number) => results.reduce((n, r) => n + f(r), 0);
  lines.push('', `total: ${sum((r) => r.calls)} calls, ${sum((r) => r.tokens.prompt)} tokens in, ${sum((r) => r.tokens.completion)} tokens out`);
  lines.push(
    `first working set recall: ${sum((r) => r.firstRecall.found)}/${sum((r) => r.firstRecall.of)} of the fixes' files; ` +
      `first request: largest ${kb(Math.max(0, ...results.map((r) => r.firstRequestBytes)))}`,
  );
  return lines.join('\n');
}

/** The model the CLI would use, from MODEL_* (provider, name, base URL, region, API key; the old DRAFTSMAN_MODEL_* names still work). */
export function modelFromEnv(env: NodeJS.ProcessEnv): ModelProvider {
  const model = cliModelFromEnv(env);
  if (!model) throw new Error('set MODEL_NAME and MODEL_BASE_URL (or MODEL_PROVIDER=bedrock with MODEL_NAME), and MODEL_API_KEY if the endpoint needs one');
  return model;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { json: { type: 'boolean' }, task: { type: 'string', multiple: true }, keep: { type: 'boolean' } } });
  const model = modelFromEnv(process.env);
  const { results, root } = await runModelEval(model, { only: values.task, keep: values.keep });
  process.stdout.write(values.json ? `${JSON.stringify({ model: model.model, results })}\n` : `${formatModelEval(model.model, results)}\n`);
  if (values.keep) process.stderr.write(`kept ${root}\n`);
  process.exitCode = results.every((r) => r.pass) ? 0 : 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 2;
  });
}
