import { createNodeSyntaxService } from '../../../../src/app/local/node-grammar-loader.js';
import { runKeys } from '../../../../src/core/artifacts/keys.js';
import type { LlmTool } from '../../../../src/core/engines/llm/index.js';
import { Ledger } from '../../../../src/core/phases/ledger.js';
import type { PhaseContext } from '../../../../src/core/phases/orchestrator.js';
import { AgentPolicy } from '../../../../src/core/policy/agent-policy.js';
import type { PipelineEnv } from '../../../../src/core/pipeline/pipeline-env.js';
import { segmentTools } from '../../../../src/core/pipeline/model-tools/segment-tools.js';
import type { Clock } from '../../../../src/core/ports.js';
import type { TreeSyntaxService } from '../../../../src/core/syntax/create-syntax-service.js';
import type { TaskContract } from '../../../../src/core/task/task-contract.js';
import { createMemoryRepo, type MemoryRepo, type MemoryRepoFile } from '../../../helpers/memory-repo.js';
import { createLocalArtifactStoreForTest } from '../../repomap/store.js';

const clock: Clock = { now: () => Date.parse('2026-02-03T04:05:06.000Z') };

let syntax: Promise<TreeSyntaxService> | undefined;
function sharedSyntax(): Promise<TreeSyntaxService> {
  syntax ??= createNodeSyntaxService();
  return syntax;
}

export interface ToolBench {
  repo: MemoryRepo;
  env: PipelineEnv;
  ledger: Ledger;
  written: Map<string, number>;
  tools: Map<string, LlmTool<any>>;
  /** Run a tool by contract name with arguments validated as the engine does. */
  call(name: string, args: Record<string, unknown>): Promise<string>;
}

/**
 * The segment tools over an in-memory repository: a real workspace, ledger, artifact store and
 * syntax service; the pipeline's other ports are not reached by the tools.
 */
export async function toolBench(
  files: Record<string, MemoryRepoFile>,
  options: { segmentPaths: string[]; policy?: Record<string, unknown>; taskPaths?: string[]; ledger?: Ledger },
): Promise<ToolBench> {
  const repo = await createMemoryRepo(files);
  const store = createLocalArtifactStoreForTest();
  const ledger = options.ledger ?? (await Ledger.open(store, 'ledger/', clock));
  const policy = AgentPolicy.parse({ version: 1, ...(options.policy ?? {}) });
  const env = {
    store,
    clock,
    syntax: await sharedSyntax(),
    keys: runKeys('acme', 'shop', 'run1'),
    attempt: 1,
    request: {},
    policy,
    owner: 'acme',
    repo: 'shop',
  } as unknown as PipelineEnv;
  const task = {
    schemaVersion: 1,
    title: 't',
    objective: 'o',
    mode: 'draft_pr',
    steps: [],
    budgets: {},
    searchTerms: [],
    kind: 'exploratory',
    blockSource: 'none',
    digest: 'd',
    paths: options.taskPaths,
  } as unknown as TaskContract;
  const context = { phase: 'mechanical_change', workspace: repo.workspace, ledger } as unknown as PhaseContext;
  const written = new Map<string, number>();
  const list = segmentTools({ env, context, task, segment: { id: 'seg-1', engine: 'llm', paths: options.segmentPaths }, written });
  const tools = new Map(list.map((t) => [t.spec.name, t]));
  return {
    repo,
    env,
    ledger,
    written,
    tools,
    async call(name, args) {
      const tool = tools.get(name);
      if (!tool) throw new Error(`no tool ${name}`);
      return tool.run(tool.args.parse(args));
    },
  };
}

/** The reason of the typed error a tool call throws. */
export async function reasonOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as { reason?: string }).reason ?? `untyped: ${(error as Error).message}`;
  }
  return 'no error';
}

/** The message of the error a tool call throws. */
export async function messageOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as Error).message;
  }
  return 'no error';
}
