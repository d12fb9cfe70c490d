/**
 * Repository map and target search benchmarks. Runnable alone:
 *   node --import tsx bench/repomap.bench.ts
 * The synthetic trees are served by an in-memory Workspace (blob ids are real git blob SHAs),
 * so the numbers measure the map and the search, not the object store.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildRepoMap } from '../src/core/repomap/build-repo-map.js';
import { FileContents } from '../src/core/repomap/file-contents.js';
import { defaultPathRules } from '../src/core/paths/path-rules.js';
import { loadOrBuildRepoMap } from '../src/core/repomap/repo-map-cache.js';
import { youngGenerationDuringIngestion } from '../src/app/runtime/young-generation.js';
import { keywordSearch } from '../src/core/targets/keyword-search.js';
import type { ArtifactStore } from '../src/core/ports.js';
import type { FileMode, Workspace, WorkspaceEntry } from '../src/core/workspace/workspace.js';
import type { BenchRecord } from './bench-record.js';
import { createNodeSyntaxService } from '../src/app/local/node-grammar-loader.js';
import { groundProse } from '../src/core/pipeline/ground-prose.js';
import { SymbolIndex } from '../src/core/repomap/symbol-index.js';
import { selectTargets } from '../src/core/targets/select-targets.js';
import { parseTask } from '../src/core/task/parse-task.js';
import { editablePaths } from '../src/core/pipeline/pipeline-env.js';
import { scopePathRules } from '../src/core/paths/write-rules.js';
import type { RepoMap } from '../src/core/repomap/repo-map-schema.js';

export type { BenchRecord };

const encoder = new TextEncoder();
const blobSha = (content: string): string => {
  const bytes = encoder.encode(content);
  return createHash('sha1').update(`blob ${bytes.length}\u0000`).update(bytes).digest('hex');
};

/** A synthetic multi-module tree: Maven modules of Java files, a pnpm workspace, vendored node_modules. */
export function syntheticTree(files: number): Record<string, string> {
  const out: Record<string, string> = {
    'pom.xml': '<project><groupId>g</groupId><artifactId>root</artifactId><packaging>pom</packaging></project>',
    'package.json': '{"name":"root","private":true,"workspaces":["web/*"]}',
    '.github/CODEOWNERS': '* @all\n/svc-1/ @team1\n',
  };
  let i = 0;
  let count = Object.keys(out).length;
  const put = (path: string, content: string): void => {
    if (!(path in out)) count++;
    out[path] = content;
  };
  while (count < files) {
    const mod = `svc-${Math.floor(i / 400)}`;
    if (i % 400 === 0)
      put(
        `${mod}/pom.xml`,
        `<project><groupId>g</groupId><artifactId>${mod}</artifactId><dependencies><dependency><groupId>g</groupId><artifactId>svc-0</artifactId></dependency></dependencies></project>`,
      );
    const kind = i % 10;
    if (kind < 6)
      put(
        `${mod}/src/main/java/com/acme/p${i % 7}/C${i}.java`,
        `package com.acme;\n\npublic class C${i} {\n  int v${i}() { return ${i}; }\n  void call() { helper${i % 13}(); }\n}\n`,
      );
    else if (kind < 8) put(`${mod}/src/test/java/com/acme/p${i % 7}/C${i}Test.java`, `class C${i}Test { void t() {} }\n`);
    else if (kind === 8) put(`web/app${i % 5}/src/f${i}.ts`, `export const f${i} = ${i};\nimport { x } from './g${i}';\n`);
    else put(`node_modules/dep${i % 50}/lib/m${i}.js`, `module.exports = ${i};\n`);
    i++;
  }
  out['svc-0/src/main/java/com/acme/LegacyAuthClient.java'] = 'public class LegacyAuthClient { public String exchangeToken(String c) { return c; } }\n';
  return out;
}

/** An in-memory Workspace over a path -> content map (read-only). */
function memoryWorkspace(files: Record<string, string>): Workspace {
  const paths = Object.keys(files).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const entries = new Map<string, WorkspaceEntry>(paths.map((p) => [p, { path: p, mode: '100644' as FileMode, oid: blobSha(files[p]), changed: false }]));
  const read = async (p: string): Promise<Uint8Array> => encoder.encode(files[p]);
  return {
    fs: undefined as never,
    gitdir: '/none',
    baseCommitSha: 'a'.repeat(40),
    baseTreeSha: 'b'.repeat(40),
    paths: () => paths,
    entry: (p) => entries.get(p),
    baseEntry: (p) => (entries.has(p) ? { path: p, mode: '100644', oid: entries.get(p)!.oid! } : undefined),
    read,
    readText: async (p) => files[p],
    readBase: read,
    write: async () => {
      throw new Error('read-only');
    },
    delete: async () => {
      throw new Error('read-only');
    },
    changes: () => [],
    reset: () => undefined,
  };
}

function memoryStore(): ArtifactStore {
  const data = new Map<string, Uint8Array>();
  return {
    get: async (k) => (data.has(k) ? { body: data.get(k)!, etag: 'e' } : undefined),
    put: async (k, b) => (data.set(k, typeof b === 'string' ? encoder.encode(b) : b), 'e'),
    putIfAbsent: async () => false,
    putIfMatch: async () => false,
    delete: async (k) => void data.delete(k),
    list: async () => [...data.keys()],
  };
}

function ripgrepPath(): string | undefined {
  if (existsSync('/usr/bin/rg')) return '/usr/bin/rg';
  const vscode = join(process.cwd(), 'node_modules/@vscode/ripgrep/bin/rg');
  return existsSync(vscode) ? vscode : undefined;
}

const ms = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e6;

export async function runRepoMapBench(): Promise<BenchRecord[]> {
  const records: BenchRecord[] = [];
  // The map is built (or read from the cache) after ingestion, where the pipeline has let the
  // young generation grow again (PipelineDeps.ingestionMemory); this child starts as the CLI and
  // the worker do, with it kept (CHILD_NODE_ARGS).
  youngGenerationDuringIngestion.leave();
  const rules = defaultPathRules();
  for (const size of (process.env.REPOMAP_BENCH_SIZES ?? '10000,100000').split(',').map(Number)) {
    const files = syntheticTree(size);
    const workspace = memoryWorkspace(files);
    global.gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    let peak = heapBefore;
    const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 5);
    const start = process.hrtime.bigint();
    const map = await buildRepoMap({ workspace, owner: 'bench', repo: `r${size}`, rules, policyDigest: 'p' });
    const elapsed = ms(start);
    clearInterval(timer);
    peak = Math.max(peak, process.memoryUsage().heapUsed);
    records.push({
      name: 'repomap.build.noSymbols',
      size,
      value: Math.round(elapsed),
      unit: 'ms',
      baseline: 10_000 * (size / 100_000),
      ratio: round(elapsed / (10_000 * (size / 100_000))),
      note: `${map.modules.length} modules, goal < 10 s at 100k`,
    });
    records.push({ name: 'repomap.build.filesPerSecond', size, value: Math.round(size / (elapsed / 1000)), unit: 'files/s' });
    records.push({
      name: 'repomap.build.peakHeap',
      size,
      value: Math.round(peak / 1024 / 1024),
      unit: 'MB',
      note: 'heapUsed sampled every 5 ms; includes the synthetic tree itself; goal <= 1536 MB',
    });

    const store = memoryStore();
    const key = { owner: 'bench', repo: `r${size}`, commit: workspace.baseCommitSha, scannerVersion: map.identity.scannerVersion, policyDigest: 'p' };
    await store.put(`maps/bench/r${size}/${key.commit}/${key.scannerVersion}-p.json`, JSON.stringify(map));
    const hitStart = process.hrtime.bigint();
    const hit = await loadOrBuildRepoMap({ store, key, build: async () => map });
    const hitMs = ms(hitStart);
    records.push({
      name: 'repomap.cache.hit',
      size,
      value: round(hitMs),
      unit: 'ms',
      baseline: 200,
      ratio: round(hitMs / 200),
      note: hit.cacheHit ? 'key lookup + parse + schema check' : 'MISS (unexpected)',
    });
    if (size <= 10_000) records.push(...(await groundingRecords(workspace, map, size)));
    if (size <= 10_000) records.push(await selectionRecord(workspace, map, size));
  }

  // Keyword search vs ripgrep over the same 10k-file tree.
  const size = 10_000;
  const files = syntheticTree(size);
  const workspace = memoryWorkspace(files);
  const searchable = workspace.paths().filter((p) => !p.startsWith('node_modules/'));
  const terms = ['LegacyAuthClient', 'exchangeToken'];
  const s = process.hrtime.bigint();
  const { hits } = await keywordSearch(new FileContents(workspace), searchable, terms);
  const ours = ms(s);
  const rg = ripgrepPath();
  if (!rg) {
    records.push({ name: 'targets.keywordSearch', size, value: round(ours), unit: 'ms', note: 'ripgrep unavailable' });
  } else {
    const dir = mkdtempSync(join(tmpdir(), 'repomap-bench-'));
    try {
      for (const [p, c] of Object.entries(files)) {
        mkdirSync(dirname(join(dir, p)), { recursive: true });
        writeFileSync(join(dir, p), c);
      }
      const args = ['-n', '--no-ignore', '--glob', '!node_modules', '-e', 'LegacyAuthClient', '-e', 'exchangeToken', dir];
      execFileSync(rg, args); // warm the page cache
      let best = Infinity;
      for (let r = 0; r < 3; r++) {
        const t = process.hrtime.bigint();
        execFileSync(rg, args);
        best = Math.min(best, ms(t));
      }
      records.push({
        name: 'targets.keywordSearch',
        size,
        value: round(ours),
        unit: 'ms',
        baseline: round(best),
        ratio: round(ours / best),
        note: `${hits.size} files hit; in-memory workspace vs rg over a warm temp dir; goal ratio <= 2`,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return records;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const records = await runRepoMapBench();
  for (const r of records) console.log(JSON.stringify(r));
}

/** A bug report as people write them: a named API, a quoted message, a stack trace, prose. */
function bugReport(): { title: string; body: string } {
  return {
    title: '`LegacyAuthClient.exchangeToken` returns the raw code',
    body: [
      'Calling exchangeToken with an expired code returns the code itself instead of failing with "token exchange failed: invalid grant".',
      '',
      '```',
      'java.lang.IllegalStateException: token exchange failed: invalid grant',
      '\tat com.acme.LegacyAuthClient.exchangeToken(LegacyAuthClient.java:1)',
      '\tat com.acme.p3.C123.call(C123.java:5)',
      '\tat com.acme.p4.C4.call(C4.java:5)',
      '```',
      '',
      'Expected: the helper that validates the grant rejects it; `--strict` makes no difference.',
    ].join('\n'),
  };
}

/**
 * Target selection for a free-text bug report on the generated repository, the map built: the
 * median of 5 selections from cold contents (each run reads the files anew), syntax tags included.
 */
async function selectionRecord(workspace: Workspace, map: RepoMap, size: number): Promise<BenchRecord> {
  const syntax = await createNodeSyntaxService();
  const rules = defaultPathRules();
  const report = bugReport();
  const task = parseTask({ title: report.title, body: report.body, source: 'cli' });
  const times: number[] = [];
  let selected = 0;
  for (let r = 0; r < 5; r++) {
    const contents = new FileContents(workspace);
    const start = process.hrtime.bigint();
    const sel = await selectTargets({ workspace, task, map, rules, contents, syntax, symbols: new SymbolIndex(syntax, contents) });
    times.push(ms(start));
    selected = sel.selectedFiles.length;
  }
  const value = median(times);
  return {
    name: 'targets.select.bugReport',
    size,
    value: round(value),
    unit: 'ms',
    baseline: 2000,
    ratio: round(value / 2000),
    note: `${selected} file(s) selected, ${task.searchTerms.length} search terms; files read cold; goal <= 2 s`,
  };
}

/**
 * What reading an issue's prose and grounding it adds to a run on the same repository (the map is
 * built already): a Dependabot title naming a package no manifest declares (refused from the map
 * alone), and a rename, which the recipe engine dry-runs over every Java file. The figure is
 * grounding alone from cold contents (median of 7), the most it can add; discovery with and without
 * it (runs interleaved) is in the note: target selection reads the same files next, and a grounded
 * step spares it the keyword search.
 */
async function groundingRecords(workspace: Workspace, map: RepoMap, size: number): Promise<BenchRecord[]> {
  const syntax = await createNodeSyntaxService();
  const rules = scopePathRules(defaultPathRules());
  const editable = editablePaths(workspace, rules);
  const out: BenchRecord[] = [];
  for (const [name, title] of [
    ['prose.ground.bump', 'Bump lodash from 4.17.20 to 4.17.21'],
    ['prose.ground.rename', 'Rename `LegacyAuthClient` to `AuthClient`'],
  ] as const) {
    const task = parseTask({ title, body: '', source: 'cli' });
    const discover = async (ground: boolean): Promise<{ total: number; grounding: number; steps: number }> => {
      const contents = new FileContents(workspace);
      const start = process.hrtime.bigint();
      const inferred = ground
        ? await groundProse({ title, body: '' }, { map, editable, read: (p) => contents.text(p), isLockfile: rules.isLockfile, syntax }, { mode: 'run' })
        : undefined;
      const grounding = ms(start);
      const steps = inferred?.steps ?? [];
      await selectTargets({
        workspace,
        task: steps.length > 0 ? { ...task, steps, kind: 'specific' } : task,
        map,
        rules,
        contents,
        syntax,
        symbols: new SymbolIndex(syntax, contents),
      });
      return { total: ms(start), grounding, steps: steps.length };
    };
    await discover(true); // warm the code paths once
    const without: number[] = [];
    const withIt: number[] = [];
    const alone: number[] = [];
    let steps = 0;
    for (let r = 0; r < 7; r++) {
      without.push((await discover(false)).total);
      const run = await discover(true);
      withIt.push(run.total);
      alone.push(run.grounding);
      steps = run.steps;
    }
    const grounding = median(alone);
    out.push({
      name,
      size,
      value: round(grounding),
      unit: 'ms',
      baseline: 50,
      ratio: round(grounding / 50),
      note:
        `${steps} step(s) grounded, files read cold; discovery ${round(median(without))} ms without grounding, ` +
        `${round(median(withIt))} ms with it; goal: under 50 ms added`,
    });
  }
  return out;
}
