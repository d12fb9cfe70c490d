import { CodeBuildClient } from '@aws-sdk/client-codebuild';
import { S3Client } from '@aws-sdk/client-s3';
import { STSClient } from '@aws-sdk/client-sts';
import type { Context } from 'aws-lambda';
import { withInvocationLogging } from '../app/aws/lambda-logging.js';
import { S3ArtifactStore } from '../app/aws/s3-artifact-store.js';
import { readConfig } from '../app/config.js';
import { StsRunCredentialsIssuer } from '../app/dispatch/aws-adapters.js';
import { JsonLogger } from '../app/logger.js';
import { codeBuildService } from '../app/verifier/codebuild-client.js';
import { createVerifierHandler, type VerifierOutcome } from '../app/verifier/create-verifier-handler.js';
import { s3ObjectSize } from '../app/verifier/s3-size.js';

/**
 * verifier: `attempts/<n>/verify/<digest>/build-request.json` (EventBridge) -> the archive copied to
 * `verify/<digest>/source.zip` -> StartBuild with a VerifyBuildRole session scoped to the run and
 * the digest; "CodeBuild Build State Change" -> `verify/<digest>/result.json`, which resumes the
 * worker through the dispatcher (docs/architecture.md, "Verification").
 */
const config = readConfig(process.env);
if (!config.VERIFY_PROJECT) throw new Error('invalid configuration: VERIFY_PROJECT is required by the verifier');
if (!config.VERIFY_BUILD_ROLE_ARN) throw new Error('invalid configuration: VERIFY_BUILD_ROLE_ARN is required by the verifier');
const logger = new JsonLogger({ level: config.LOG_LEVEL, bindings: { fn: 'verifier' } });
const s3 = new S3Client({ maxAttempts: 1 });

const handle = createVerifierHandler({
  store: new S3ArtifactStore({
    client: s3,
    bucket: config.ARTIFACT_BUCKET,
    sse: config.ARTIFACT_KMS_KEY_ID ? { type: 'aws:kms', kmsKeyId: config.ARTIFACT_KMS_KEY_ID } : { type: 'AES256' },
  }),
  sizeOf: s3ObjectSize(s3, config.ARTIFACT_BUCKET),
  clock: { now: () => Date.now() },
  logger,
  builds: codeBuildService(new CodeBuildClient({})),
  credentials: new StsRunCredentialsIssuer({ client: new STSClient({}), roleArn: config.VERIFY_BUILD_ROLE_ARN }),
  bucket: config.ARTIFACT_BUCKET,
  projects: { isolated: config.VERIFY_PROJECT, withNetwork: config.VERIFY_PROJECT_NETWORK },
  image: config.VERIFY_IMAGE,
});

export const handler = withInvocationLogging((event: unknown, _context: Context): Promise<VerifierOutcome[]> => handle(event));
