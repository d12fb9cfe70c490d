import { parsePriceTable } from '../../core/budget/cost.js';
import { runPipeline, type PipelineResult } from '../../core/pipeline/run-pipeline.js';
import type { ModelProvider } from '../../core/ports.js';
import { createMemoryFs } from '../local/memfs-adapter.js';
import { createNodeSyntaxService } from '../local/node-grammar-loader.js';
import { createSandboxVerifier, toolchainDirs } from '../local/sandbox-verifier.js';
import { youngGenerationDuringIngestion } from '../runtime/young-generation.js';
import { createModelProvider } from '../model/create-model-provider.js';
import { withSpendAccounting } from '../model/in-process-spend.js';
import { gitIdentityOf, type CliIo } from './cli-io.js';
import type { CliRun } from './begin-run.js';
import type { TerminalReporter } from './terminal-reporter.js';
import { modelEnv } from './model-env.js';

/**
 * One attempt of the pipeline, as far as the command goes, with progress on the terminal.
 * Ctrl-C (or a cancel marker in the run directory) cancels between phases.
 */
export async function runStage(run: CliRun, io: CliIo, reporter: TerminalReporter): Promise<PipelineResult> {
  const { args, store, keys, attempt } = run;
  // The old names still work; each says once what to set instead.
  if (!io.model) for (const warning of modelEnv(io.env).warnings) io.stderr(`draftsman: warning: ${warning}\n`);
  reporter.start(`${args.command} ${args.identity.owner}/${args.identity.repo} run ${run.runId} attempt ${attempt.attempt}`);
  const prices = parsePriceTable(modelEnv(io.env).values.MODEL_PRICES, 'MODEL_PRICES');
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
        model: withSpendAccounting(io.model ?? modelFromEnv(io.env), { store, clock: io.clock, prices }),
        prices,
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

/** The model the CLI uses, from the MODEL_* variables (model-env.ts); undefined when none is configured. */
export function modelFromEnv(env: CliIo['env']): ModelProvider | undefined {
  const { values } = modelEnv(env);
  return createModelProvider({
    provider: values.MODEL_PROVIDER,
    model: values.MODEL_NAME,
    baseUrl: values.MODEL_BASE_URL,
    region: values.MODEL_REGION,
    apiKey: values.MODEL_API_KEY,
    maxOutputTokens: values.MODEL_MAX_OUTPUT_TOKENS,
  });
}
