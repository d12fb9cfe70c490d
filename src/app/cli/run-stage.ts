import { parsePriceTable } from '../../core/budget/cost.js';
import { runPipeline, type PipelineResult } from '../../core/pipeline/run-pipeline.js';
import type { ModelProvider } from '../../core/ports.js';
import { createMemoryFs } from '../local/memfs-adapter.js';
import { createNodeSyntaxService } from '../local/node-grammar-loader.js';
import { createSandboxVerifier, toolchainDirs } from '../local/sandbox-verifier.js';
import { youngGenerationDuringIngestion } from '../runtime/young-generation.js';
import { createModelProvider } from '../model/create-model-provider.js';
import { gitIdentityOf, type CliIo } from './cli-io.js';
import type { CliRun } from './begin-run.js';
import type { TerminalReporter } from './terminal-reporter.js';

/**
 * One attempt of the pipeline, as far as the command goes, with progress on the terminal.
 * Ctrl-C (or a cancel marker in the run directory) cancels between phases.
 */
export async function runStage(run: CliRun, io: CliIo, reporter: TerminalReporter): Promise<PipelineResult> {
  const { args, store, keys, attempt } = run;
  reporter.start(`${args.command} ${args.identity.owner}/${args.identity.repo} run ${run.runId} attempt ${attempt.attempt}`);
  const cancelled = { value: false };
  const onSigint = () => {
    cancelled.value = true;
  };
  process.once('SIGINT', onSigint);
  try {
    return await runPipeline(
      {
        store,
        source: run.source,
        fs: createMemoryFs(),
        clock: io.clock,
        logger: run.logger,
        syntax: () => createNodeSyntaxService({ wasmDir: io.env.DRAFTSMAN_WASM_DIR }),
        ciStatus: { read: async () => ({ state: 'unavailable', checks: [] }) },
        verifier: createSandboxVerifier({ toolchains: toolchainDirs(io.env.DRAFTSMAN_VERIFY_TOOLCHAINS), bwrap: io.env.DRAFTSMAN_BWRAP }),
        model: io.model ?? modelFromEnv(io.env),
        prices: parsePriceTable(io.env.DRAFTSMAN_MODEL_PRICES, 'DRAFTSMAN_MODEL_PRICES'),
        reporter,
        ingestionMemory: youngGenerationDuringIngestion,
        identity: gitIdentityOf(io.env),
        isCancelled: async () => cancelled.value || Boolean(await store.get(keys.cancel)),
      },
      {
        keys,
        owner: args.identity.owner,
        repo: args.identity.repo,
        attempt,
        policy: args.policy ? { text: args.policy.text, file: args.policy.file } : 'from-base',
        stopAfter: args.command,
        taskId: (task) => `sha256:${task.digest}`,
      },
    );
  } finally {
    process.removeListener('SIGINT', onSigint);
  }
}

/** The model the CLI uses, from the DRAFTSMAN_MODEL_* variables; undefined when none is configured. */
export function modelFromEnv(env: CliIo['env']): ModelProvider | undefined {
  return createModelProvider({
    provider: env.DRAFTSMAN_MODEL_PROVIDER,
    model: env.DRAFTSMAN_MODEL,
    baseUrl: env.DRAFTSMAN_MODEL_BASE_URL,
    region: env.DRAFTSMAN_MODEL_REGION,
    apiKey: env.DRAFTSMAN_MODEL_API_KEY,
    maxOutputTokens: env.DRAFTSMAN_MODEL_MAX_OUTPUT_TOKENS,
  });
}
