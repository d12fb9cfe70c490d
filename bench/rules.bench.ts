/**
 * `agent.rules` evaluation per tool call (docs/policy-reference.md, "Rules that can say no"):
 * twenty rules of every shape (tool classes, path globs, an added-lines pattern on the RE2
 * engine, change rules that a tool call skips), checked before each call of a realistic mix
 * (reads, searches, edits adding 200 lines, deletes). Each call is timed on its own; the rules
 * are compiled once per policy, as in a run. Runnable alone:
 *   node --import tsx bench/rules.bench.ts [--calls 20000]
 */
import { cpus, loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { toolCallFirings } from '../src/core/phases/tool-classes.js';
import { AgentRules } from '../src/core/policy/agent-rules.js';
import type { BenchRecord } from './bench-record.js';

/** Twenty rules: the shapes a policy holds, most of which a given call does not fire. */
export function benchRules(): ReturnType<typeof AgentRules.parse> {
  const raw: unknown[] = [];
  for (let i = 0; i < 6; i++) raw.push({ on: 'tool', tools: ['read', 'search'], paths: [`secrets-${i}/**`, `**/*.key${i}`], action: 'deny', reason: `r${i}` });
  for (let i = 0; i < 4; i++)
    raw.push({ on: 'tool', tools: ['write'], paths: [`services/s${i}/**`], addedLines: `(eval|exec)\\(\\s*user${i}`, action: 'deny', reason: `w${i}` });
  for (let i = 0; i < 3; i++) raw.push({ on: 'tool', tools: ['delete'], paths: [`db/migrations-${i}/`], action: 'deny', reason: `d${i}` });
  for (let i = 0; i < 2; i++) raw.push({ on: 'tool', addedLines: `(AKIA|ghp_)[A-Za-z0-9]{16,}${i}`, action: 'deny', reason: `k${i}` });
  for (let i = 0; i < 5; i++) raw.push({ on: 'change', paths: [`infra/env-${i}/**`], action: 'require-approval', reason: `c${i}` });
  return AgentRules.parse(raw);
}

const EDIT = Array.from({ length: 200 }, (_, i) => `  const value${i} = compute(input${i}, options); // line ${i}`).join('\n');
const CALLS: [string, Record<string, unknown>][] = [
  ['file_read', { path: 'services/s1/src/main/java/com/acme/Order.java' }],
  ['code_search', { query: 'exchangeToken', paths: ['services/s1', 'services/s2', 'lib'] }],
  ['file_edit', { path: 'services/s2/src/app.ts', oldText: 'x', newText: EDIT }],
  ['file_write', { path: 'services/s3/src/big.ts', content: EDIT }],
  ['file_delete', { path: 'db/migrations-1/V12__drop.sql' }],
  ['repo_map_find_definition', { name: 'OrderService' }],
  ['file_read', { path: 'secrets-3/prod.key3' }],
];

const round = (n: number): number => Math.round(n * 1000) / 1000;

/**
 * Each call timed on its own, by the wall clock and by this process's CPU time: the machine may
 * be shared, and a descheduled call says nothing about the rules, so the goal reads the CPU time.
 */
export async function runRulesBench(options: { calls?: number } = {}): Promise<BenchRecord[]> {
  const rules = benchRules();
  const calls = options.calls ?? 20_000;
  // Warm up: compile the rules (once per policy) and let the JIT settle.
  for (let i = 0; i < 500; i++) toolCallFirings(rules, ...CALLS[i % CALLS.length]);
  const wall: number[] = [];
  const cpu: number[] = [];
  let fired = 0;
  for (let i = 0; i < calls; i++) {
    const [tool, args] = CALLS[i % CALLS.length];
    const cpuStart = process.cpuUsage();
    const start = performance.now();
    fired += toolCallFirings(rules, tool, args).length;
    wall.push(performance.now() - start);
    const used = process.cpuUsage(cpuStart);
    cpu.push((used.user + used.system) / 1000);
  }
  const at = (times: number[], q: number) => [...times].sort((x, y) => x - y)[Math.min(times.length - 1, Math.floor(q * times.length))];
  const note = `${rules.length} rules, ${calls} calls of ${CALLS.length} kinds (edits add 200 lines), ${fired} firings; load ${loadavg()[0].toFixed(1)} on ${cpus().length} cores`;
  return [
    { name: 'rules.toolCall.cpu.p99', size: rules.length, value: round(at(cpu, 0.99)), unit: 'ms', note },
    { name: 'rules.toolCall.wall.p50', size: rules.length, value: round(at(wall, 0.5)), unit: 'ms', note },
    { name: 'rules.toolCall.wall.p99', size: rules.length, value: round(at(wall, 0.99)), unit: 'ms', note },
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const i = process.argv.indexOf('--calls');
  const records = await runRulesBench(i > 0 ? { calls: Number(process.argv[i + 1]) } : {});
  for (const r of records) console.log(`${r.name}: ${r.value} ${r.unit} (${r.note})`);
}
