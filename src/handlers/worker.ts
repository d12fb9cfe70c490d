// First, before any other module allocates (app/runtime/young-generation.ts).
import '../app/runtime/keep-young-generation.js';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { S3Client } from '@aws-sdk/client-s3';
import type { Context } from 'aws-lambda';
import { lambdaRunSessionInvoker } from '../app/dispatch/aws-adapters.js';
import { runSessionOpener } from '../app/dispatch/run-session-client.js';
import { withInvocationLogging } from '../app/aws/lambda-logging.js';
import { S3ArtifactStore } from '../app/aws/s3-artifact-store.js';
import { readConfig } from '../app/config.js';
import { createGitHubApi } from '../app/github/github-api.js';
import { JsonLogger } from '../app/logger.js';
import { createMemoryFs } from '../app/local/memfs-adapter.js';
import { LambdaModelProvider } from '../app/model/model-call.js';
import { createNodeSyntaxService } from '../app/local/node-grammar-loader.js';
import { youngGenerationDuringIngestion } from '../app/runtime/young-generation.js';
import { codeBuildVerifier } from '../app/worker/codebuild-verifier.js';
import { createWorkerHandler } from '../app/worker/create-worker-handler.js';

/**
 * worker: invoked by the dispatcher with `{key, capability}` -> run-session (S3 credentials
 * for this run only, a read token for the run's repository) -> lease -> the pipeline in
 * memory -> the candidate. Its own role has no S3 rights, no secret, and may invoke run-session
 * and model-call only.
 */
const config = readConfig(process.env);
if (!config.RUN_SESSION_FUNCTION) throw new Error('RUN_SESSION_FUNCTION is required');
const logger = new JsonLogger({ level: config.LOG_LEVEL, bindings: { fn: 'worker' } });
let syntax: ReturnType<typeof createNodeSyntaxService> | undefined;
const sse = config.ARTIFACT_KMS_KEY_ID ? { type: 'aws:kms' as const, kmsKeyId: config.ARTIFACT_KMS_KEY_ID } : { type: 'AES256' as const };
const lambda = new LambdaClient({});

const handle = createWorkerHandler({
  session: runSessionOpener({
    invoke: lambdaRunSessionInvoker(lambda, config.RUN_SESSION_FUNCTION),
    storeFor: (credentials) =>
      new S3ArtifactStore({
        client: new S3Client({
          maxAttempts: 1,
          credentials: { accessKeyId: credentials.accessKeyId, secretAccessKey: credentials.secretAccessKey, sessionToken: credentials.sessionToken },
        }),
        bucket: config.ARTIFACT_BUCKET,
        sse,
      }),
    redact: (value) => logger.redact(value),
  }),
  github: (token) => createGitHubApi({ token, baseUrl: config.GITHUB_API_URL, logger }),
  clock: { now: () => Date.now() },
  logger,
  syntax: () => (syntax ??= createNodeSyntaxService({ wasmDir: process.env.DRAFTSMAN_WASM_DIR })),
  newFs: createMemoryFs,
  verifier: codeBuildVerifier,
  // Every model request goes through model-call, which holds the key (or the Bedrock grant): never this process.
  model: config.MODEL_CALL_FUNCTION
    ? new LambdaModelProvider({
        client: lambda,
        functionName: config.MODEL_CALL_FUNCTION,
        model: config.MODEL_NAME ?? 'configured-model',
        maxOutputTokens: config.MODEL_MAX_OUTPUT_TOKENS,
      })
    : undefined,
  prices: config.MODEL_PRICES,
  ingestionMemory: youngGenerationDuringIngestion,
  identity: { name: `${config.GITHUB_APP_SLUG}[bot]`, email: `${config.GITHUB_APP_SLUG}[bot]@users.noreply.github.com` },
});

export const handler = withInvocationLogging((event: unknown, context: Context): Promise<void> => handle(event, context));
