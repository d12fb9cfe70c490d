import type { LambdaClient } from '@aws-sdk/client-lambda';
import { S3Client } from '@aws-sdk/client-s3';
import type { AppConfig } from '../config.js';
import { createGitHubApi } from '../github/github-api.js';
import type { JsonLogger } from '../logger.js';
import { LambdaTokenBroker } from '../tokens/lambda-token-broker.js';
import { S3ArtifactStore } from './s3-artifact-store.js';

/**
 * What the trusted functions that start or steer runs outside a webhook (campaign,
 * schedule-fire, schedule-sync) are composed of: token-read's read role, GitHub through it, the
 * clock, the App's bot login and API root, and (unless `store: false`) the bucket.
 */
export function readRoleDeps(config: AppConfig & { TOKEN_READ_FUNCTION: string }, lambda: LambdaClient, logger: JsonLogger) {
  return {
    tokens: new LambdaTokenBroker({ client: lambda, functionName: config.TOKEN_READ_FUNCTION, role: 'read' as const }),
    github: (token: string) => {
      logger.redact(token);
      return createGitHubApi({ token, baseUrl: config.GITHUB_API_URL, logger });
    },
    clock: { now: () => Date.now() },
    logger,
    botLogin: `${config.GITHUB_APP_SLUG}[bot]`,
    apiUrl: config.GITHUB_API_URL,
  };
}

/** The bucket as the run-starting functions write it (their own retries: one attempt per call). */
export function artifactBucket(config: AppConfig): S3ArtifactStore {
  return new S3ArtifactStore({
    client: new S3Client({ maxAttempts: 1 }),
    bucket: config.ARTIFACT_BUCKET,
    sse: config.ARTIFACT_KMS_KEY_ID ? { type: 'aws:kms', kmsKeyId: config.ARTIFACT_KMS_KEY_ID } : { type: 'AES256' },
  });
}
