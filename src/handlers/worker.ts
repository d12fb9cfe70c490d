// First, before any other module allocates (app/runtime/young-generation.ts).
import '../app/runtime/keep-young-generation.js';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { S3Client } from '@aws-sdk/client-s3';
import { SSMClient } from '@aws-sdk/client-ssm';
import type { Context } from 'aws-lambda';
import { lambdaRunSessionInvoker } from '../app/dispatch/aws-adapters.js';
import { runSessionOpener } from '../app/dispatch/run-session-client.js';
import { withInvocationLogging } from '../app/aws/lambda-logging.js';
import { S3ArtifactStore } from '../app/aws/s3-artifact-store.js';
import { readSecureParameter } from '../app/aws/ssm-secret.js';
import { readConfig } from '../app/config.js';
import { createGitHubApi } from '../app/github/github-api.js';
import { JsonLogger } from '../app/logger.js';
import { createMemoryFs } from '../app/local/memfs-adapter.js';
import { createModelProvider } from '../app/model/create-model-provider.js';
import { createNodeSyntaxService } from '../app/local/node-grammar-loader.js';
import { youngGenerationDuringIngestion } from '../app/runtime/young-generation.js';
import { createWorkerHandler } from '../app/worker/create-worker-handler.js';

/**
 * worker: invoked by the dispatcher with `{key, capability}` -> run-session (S3 credentials
 * for this run only, a read token for the run's repository) -> lease -> the pipeline in
 * memory -> the candidate. Its own role has no S3 rights and may invoke run-session only.
 */
const config = readConfig(process.env);
if (!config.RUN_SESSION_FUNCTION) throw new Error('RUN_SESSION_FUNCTION is required');
const logger = new JsonLogger({ level: config.LOG_LEVEL, bindings: { fn: 'worker' } });
const modelKey = config.MODEL_API_KEY_PARAMETER ? await readSecureParameter(new SSMClient({}), config.MODEL_API_KEY_PARAMETER) : undefined;
if (modelKey) logger.redact(modelKey);
let syntax: ReturnType<typeof createNodeSyntaxService> | undefined;
const sse = config.ARTIFACT_KMS_KEY_ID ? { type: 'aws:kms' as const, kmsKeyId: config.ARTIFACT_KMS_KEY_ID } : { type: 'AES256' as const };

const handle = createWorkerHandler({
  session: runSessionOpener({
    invoke: lambdaRunSessionInvoker(new LambdaClient({}), config.RUN_SESSION_FUNCTION),
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
  // Bedrock signs with this function's role; the others use the key read above.
  model: createModelProvider({
    provider: config.MODEL_PROVIDER,
    model: config.MODEL_NAME,
    baseUrl: config.MODEL_BASE_URL,
    region: config.MODEL_REGION,
    apiKey: modelKey,
  }),
  prices: config.MODEL_PRICES,
  ingestionMemory: youngGenerationDuringIngestion,
  identity: { name: `${config.GITHUB_APP_SLUG}[bot]`, email: `${config.GITHUB_APP_SLUG}[bot]@users.noreply.github.com` },
});

export const handler = withInvocationLogging((event: unknown, context: Context): Promise<void> => handle(event, context));
