import { afterAll, beforeAll } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { LocalRepoSource } from '../../../src/app/git/local-repo-source.js';
import { LocalArtifactStore } from '../../../src/app/local/local-artifact-store.js';
import { createMemoryFs } from '../../../src/app/local/memfs-adapter.js';
import { createNodeSyntaxService } from '../../../src/app/local/node-grammar-loader.js';
import { runKeys, type RunKeys } from '../../../src/core/artifacts/keys.js';
import { runPipeline, type PipelineDeps, type PipelineRequest, type PipelineResult } from '../../../src/core/pipeline/run-pipeline.js';
import type { ArtifactStore, Clock, Logger, ModelProvider } from '../../../src/core/ports.js';
import type { RepoSource } from '../../../src/core/ingestion/repo-source.js';
import { beginAttempt, loadAttempt, type AttemptStart } from '../../../src/core/runs/attempts.js';
import type { RunRequest } from '../../../src/core/runs/run-request.js';
import type { TreeSyntaxService } from '../../../src/core/syntax/create-syntax-service.js';
import { mavenMultiModuleRepo } from '../../fixtures/realistic-repos.js';
import { makeBareRepo } from '../../fixtures/make-repo.js';

/** Every test of the pipeline runs at this instant: nothing time-derived may differ between runs. */
export const FIXED_NOW = Date.parse('2026-02-03T04:05:06.000Z');
export const fixedClock: Clock = { now: () => FIXED_NOW };

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** The policy of the migration runs: the demo's (workflows forbidden, build commands for CI). */
import { DEMO_POLICY as MIGRATION_POLICY } from '../../fixtures/migration-task.js';
export { MIGRATION_POLICY };

/** The issue 5 task (two recipe steps, no `paths`) and exactly the files it changes. */
export { MIGRATION_TASK, MIGRATION_CHANGED_FILES as EXPECTED_CHANGED } from '../../fixtures/migration-task.js';

/** The ledger directory of a run's attempt in the CLI's store: its trail, `trail/<owner>/<repo>/<runId>/<n>/ledger` beside `runs/`. */
export function ledgerDir(runDir: string, attempt: number | string = 1): string {
  return join(runDir.replace(/([/\\])runs([/\\])(?!.*[/\\]runs[/\\])/, '$1trail$2'), String(attempt), 'ledger');
}

export function tempRoot(name: string): string {
  return mkdtempSync(join(tmpdir(), `draftsman-${name}-`));
}

export function removeRoot(root: string | undefined): void {
  if (root) rmSync(root, { recursive: true, force: true });
}

/** A bare repository of the Maven fixture (plus extra files), one commit on `main`. */
export function makeMavenBare(gitdir: string, extra: Record<string, string> = {}): string {
  return makeBareRepo(gitdir, { ...mavenMultiModuleRepo(), '.agent-policy.yaml': MIGRATION_POLICY, ...extra }).commit;
}

let syntaxService: Promise<TreeSyntaxService> | undefined;
/** One syntax service per test file (grammar loading is the slow part). */
export function sharedSyntax(): Promise<TreeSyntaxService> {
  syntaxService ??= createNodeSyntaxService();
  return syntaxService;
}

export interface PipelineRunOptions {
  store: ArtifactStore;
  source: string;
  keys: RunKeys;
  attempt: AttemptStart;
  policy?: string;
  model?: ModelProvider;
  shouldYield?: () => boolean;
  isCancelled?: () => Promise<boolean>;
  syntax?: TreeSyntaxService;
  /** Default: the fixed clock. A resumed invocation runs later in real life. */
  clock?: Clock;
  /** Model prices and the run deadline, as the worker passes them. */
  prices?: PipelineDeps['prices'];
  deadline?: number;
  ingestionMemory?: PipelineDeps['ingestionMemory'];
  /** Wraps the local source of `source` (to watch or break what ingestion asks of it). */
  wrapSource?: (source: RepoSource) => RepoSource;
}

/** One runPipeline call with a FRESH memfs, like a new worker invocation. */
export async function runOnce(options: PipelineRunOptions): Promise<PipelineResult> {
  const deps: PipelineDeps = {
    store: options.store,
    source: (options.wrapSource ?? ((source) => source))(new LocalRepoSource(options.source)),
    fs: createMemoryFs(),
    clock: options.clock ?? fixedClock,
    logger: silentLogger,
    syntax: options.syntax ? () => Promise.resolve(options.syntax as TreeSyntaxService) : sharedSyntax,
    ciStatus: { read: async () => ({ state: 'unavailable', checks: [] }) },
    model: options.model,
    prices: options.prices,
    deadline: options.deadline,
    ingestionMemory: options.ingestionMemory,
    identity: { name: 'draftsman', email: 'draftsman@localhost' },
    isCancelled: options.isCancelled ?? (async () => false),
    shouldYield: options.shouldYield,
  };
  const request: PipelineRequest = {
    keys: options.keys,
    owner: options.keys.prefix.split('/')[1],
    repo: options.keys.prefix.split('/')[2],
    attempt: options.attempt,
    policy: options.policy === undefined ? 'from-base' : { text: options.policy, file: '.agent-policy.yaml' },
    stopAfter: 'run',
    taskId: (task) => `sha256:${task.digest}`,
  };
  return runPipeline(deps, request);
}

/** Attempt 1 of a fresh run over a local source, with the task text as the CLI would pass it. */
export async function startRun(store: ArtifactStore, source: string, runId: string, task: string): Promise<{ keys: RunKeys; attempt: AttemptStart }> {
  const keys = runKeys('local', 'orders', runId);
  const request: RunRequest = {
    schemaVersion: 1,
    runId,
    owner: 'local',
    repo: 'orders',
    source: { kind: 'local', location: source },
    trigger: { kind: 'cli', key: 'cli-run' },
    task: { title: task.split('\n')[0], body: task },
    agentBranch: `agent/local/r${runId}`,
    createdAt: new Date(FIXED_NOW).toISOString(),
  };
  const attempt = await beginAttempt(store, keys, request, { reason: 'cli', approvedGates: [], createdAt: request.createdAt });
  return { keys, attempt };
}

export { loadAttempt, LocalArtifactStore };

/** Every file under `dir`, relative path -> bytes (for byte-identical comparisons). */
export function readTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const full = join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else out[relative(dir, full)] = readFileSync(full).toString('base64');
    }
  };
  walk(dir);
  return out;
}

/**
 * A store that "dies" (every write throws, as after a crash of the worker) from the first write
 * for which `at(key, body)` is true; that write itself does not happen.
 */
export function dyingStore(inner: ArtifactStore, at: (key: string, body: string) => boolean): ArtifactStore & { died: () => boolean } {
  let dead = false;
  const check = (key: string, body?: Uint8Array | string) => {
    const text = body === undefined ? '' : typeof body === 'string' ? body : new TextDecoder().decode(body);
    if (!dead && at(key, text)) dead = true;
    if (dead) throw new Error(`simulated crash before writing ${key}`);
  };
  return {
    died: () => dead,
    get: (key) => inner.get(key),
    list: (prefix) => inner.list(prefix),
    delete: async (key) => {
      check(key);
      return inner.delete(key);
    },
    put: async (key, body, options) => {
      check(key, body);
      return inner.put(key, body, options);
    },
    putIfAbsent: async (key, body, options) => {
      check(key, body);
      return inner.putIfAbsent(key, body, options);
    },
    putIfMatch: async (key, body, etag, options) => {
      check(key, body);
      return inner.putIfMatch(key, body, etag, options);
    },
  };
}

/**
 * The shared setup of the resume tests: a Maven bare repository, a fresh store per scenario,
 * and the reference candidate of an uninterrupted run under `runId`.
 */
export async function resumeFixture(runId: string, task: string) {
  const root = tempRoot('resume');
  const bare = join(root, 'orders.git');
  makeMavenBare(bare);
  const candidateOf = (storeRoot: string): Record<string, string> => readTree(join(storeRoot, 'runs', 'local', 'orders', runId, 'candidate'));
  const fresh = async (name: string) => {
    const dir = join(root, name);
    const store = new LocalArtifactStore(dir);
    return { store, dir, run: await startRun(store, bare, runId, task) };
  };
  const { store, dir, run } = await fresh('reference');
  const result = await runOnce({ store, source: bare, ...run });
  return { root, bare, fresh, candidateOf, reference: { result, candidate: candidateOf(dir) } };
}

/** Register the resume fixture for a test file: built before its tests, removed after them. */
export function useResumeFixture(runId: string, task: string): Awaited<ReturnType<typeof resumeFixture>> {
  const state = {} as Awaited<ReturnType<typeof resumeFixture>>;
  beforeAll(async () => {
    Object.assign(state, await resumeFixture(runId, task));
  }, 60_000);
  afterAll(() => removeRoot(state.root));
  return state;
}
