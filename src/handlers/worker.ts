import { LambdaClient } from '@aws-sdk/client-lambda';
import { S3Client } from '@aws-sdk/client-s3';
import { SSMClient } from '@aws-sdk/client-ssm';
import type { Context, S3Event } from 'aws-lambda';
import { S3ArtifactStore } from '../app/aws/s3-artifact-store.js';
import { readSecureParameter } from '../app/aws/ssm-secret.js';
import { readConfig } from '../app/config.js';
import { createGitHubApi } from '../app/github/github-api.js';
import { LambdaTokenBroker } from '../app/tokens/lambda-token-broker.js';
import { JsonLogger } from '../app/logger.js';
import { createMemoryFs } from '../app/local/memfs-adapter.js';
import { OpenAiChatProvider } from '../app/model/openai-chat-provider.js';
import { createNodeSyntaxService } from '../app/local/node-grammar-loader.js';
import { createWorkerHandler } from '../app/worker/create-worker-handler.js';

/**
 * worker: S3 ObjectCreated for request.json / attempts/<n>/request.json / continue-<k>.json ->
 * lease -> token-read token -> the pipeline in memory -> the candidate. It may invoke
 * token-read only, so it can never obtain a token that writes code.
 */
const config = readConfig(process.env);
if (!config.TOKEN_READ_FUNCTION) throw new Error('TOKEN_READ_FUNCTION is required');
const logger = new JsonLogger({ level: config.LOG_LEVEL, bindings: { fn: 'worker' } });
const modelKey = config.MODEL_API_KEY_PARAMETER ? await readSecureParameter(new SSMClient({}), config.MODEL_API_KEY_PARAMETER) : undefined;
if (modelKey) logger.redact(modelKey);
let syntax: ReturnType<typeof createNodeSyntaxService> | undefined;

const handle = createWorkerHandler({
  store: new S3ArtifactStore({ client: new S3Client({ maxAttempts: 1 }), bucket: config.ARTIFACT_BUCKET, sse: config.ARTIFACT_KMS_KEY_ID ? { type: 'aws:kms', kmsKeyId: config.ARTIFACT_KMS_KEY_ID } : { type: 'AES256' } }),
  tokens: new LambdaTokenBroker({ client: new LambdaClient({}), functionName: config.TOKEN_READ_FUNCTION, role: 'read' }),
  github: (token) => createGitHubApi({ token, baseUrl: config.GITHUB_API_URL }),
  clock: { now: () => Date.now() },
  logger,
  syntax: () => (syntax ??= createNodeSyntaxService({ wasmDir: process.env.DRAFTSMAN_WASM_DIR })),
  newFs: createMemoryFs,
  model: config.MODEL_BASE_URL && config.MODEL_NAME ? new OpenAiChatProvider({ baseUrl: config.MODEL_BASE_URL, model: config.MODEL_NAME, apiKey: modelKey }) : undefined,
  identity: { name: `${config.GITHUB_APP_SLUG}[bot]`, email: `${config.GITHUB_APP_SLUG}[bot]@users.noreply.github.com` },
});

export const handler = (event: S3Event, context: Context): Promise<void> => handle(event, context);
