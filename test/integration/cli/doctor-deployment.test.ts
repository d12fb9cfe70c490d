import * as lambdaModel from '@aws-sdk/client-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deploymentFunctions } from '../../../src/app/serve/doctor-deployment.js';
import { readServerlessYml } from '../../helpers/bundle/build-lambda-bundles.js';
import { functionConfiguration, startLambdaStandin, startSsmStandin, type Endpoint } from '../../helpers/bundle/aws-standins.js';
import { checkShape } from '../../helpers/aws-model/model-check.js';
import { DEFAULT_INSTALLATION_PERMISSIONS, startGitHubStandin, type GitHubStandin } from '../../helpers/github-standin/index.js';
import { startS3Server, type S3TestServer } from '../../helpers/s3-server.js';
import { answer, startScriptedModelServer, type ScriptedModelServer } from '../../helpers/scripted-model-server.js';
import { fixedClock, testAppKey } from '../github/standin-fixture.js';
import { CLI_NOW, cli } from './cli-harness.js';

/**
 * `draftsman doctor --stage NAME` over a deployment: the functions' configuration read through
 * the Lambda API, the App key, webhook secret and model key read from SSM, each against its
 * loopback stand-in, GitHub's stand-in and the scripted model. Every check is seen failing on a
 * broken deployment, with its fix, and passing on a sound one.
 */
const keys = testAppKey();
const APP_ID = 41;
const MODEL_KEY = 'sk-deployed-model-key-0123456789';
const S3_CREDENTIALS = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' };

describe('draftsman doctor --stage', () => {
  let sound: GitHubStandin;
  let broken: GitHubStandin;
  let model: ScriptedModelServer;
  let s3: S3TestServer;
  let ssm: Endpoint;
  let lambda: Endpoint;

  /** One deployment's three functions, as serverless.yml configures them. */
  const functions = (
    stage: string,
    github: GitHubStandin,
    bucket: string,
    overrides: Record<string, Record<string, string>> = {},
  ): Record<string, Record<string, string>> => {
    const names = deploymentFunctions({ service: 'draftsman', stage });
    return {
      [names.webhook]: {
        ARTIFACT_BUCKET: bucket,
        GITHUB_APP_ID: String(APP_ID),
        GITHUB_APP_SLUG: 'draftsman',
        GITHUB_API_URL: github.url,
        WEBHOOK_SECRET_PARAMETER: `/draftsman/${stage}/webhook-secret`,
        LOG_LEVEL: 'info',
        ...overrides.webhook,
      },
      [names.tokenRead]: { GITHUB_APP_ID: String(APP_ID), APP_PRIVATE_KEY_PARAMETER: `/draftsman/${stage}/app-private-key` },
      [names.modelCall]: {
        ARTIFACT_BUCKET: bucket,
        MODEL_BASE_URL: model.baseUrl,
        MODEL_NAME: 'scripted',
        MODEL_API_KEY_PARAMETER: `/draftsman/${stage}/model-api-key`,
        ...overrides.modelCall,
      },
    };
  };

  beforeAll(async () => {
    const common = { appId: APP_ID, privateKeyPem: keys.privateKeyPem, clock: fixedClock(CLI_NOW), repos: [] };
    const { contents: _contents, ...withoutContents } = DEFAULT_INSTALLATION_PERMISSIONS;
    sound = await startGitHubStandin({ ...common, webhookUrl: 'https://abc123.execute-api.us-east-1.amazonaws.com/api/github/webhooks' });
    broken = await startGitHubStandin({ ...common, appPermissions: withoutContents, webhookUrl: 'https://abc123.execute-api.us-east-1.amazonaws.com/webhook' });
    model = await startScriptedModelServer({ script: () => answer('OK'), apiKey: MODEL_KEY });
    s3 = await startS3Server({ bucket: 'draftsman-prod-artifacts' });
    ssm = await startSsmStandin({
      '/draftsman/prod/app-private-key': keys.privateKeyPem,
      '/draftsman/prod/webhook-secret': 'a-deployed-webhook-secret',
      '/draftsman/prod/model-api-key': MODEL_KEY,
      '/draftsman/broken/webhook-secret': 'short',
      '/draftsman/broken/model-api-key': 'sk-a-revoked-key-0123456789',
      '/draftsman/badconfig/app-private-key': keys.privateKeyPem,
      '/draftsman/drift/app-private-key': keys.privateKeyPem,
      '/draftsman/drift/webhook-secret': 'a-deployed-webhook-secret',
      '/draftsman/drift/model-api-key': MODEL_KEY,
    });
    lambda = await startLambdaStandin(
      {},
      {
        environments: {
          ...functions('prod', sound, s3.bucket),
          ...functions('broken', broken, 'no-such-bucket'),
          ...functions('badconfig', sound, s3.bucket, { webhook: { GITHUB_APP_ID: 'forty-one' } }),
          ...functions('drift', broken, s3.bucket),
        },
      },
    );
  }, 60_000);

  afterAll(async () => {
    await sound?.stop();
    await broken?.stop();
    await model?.close();
    await s3?.stop();
    await ssm?.stop();
    await lambda?.stop();
  });

  const env = () => ({ ...S3_CREDENTIALS, AWS_ENDPOINT_URL_LAMBDA: lambda.url, AWS_ENDPOINT_URL_SSM: ssm.url, AWS_ENDPOINT_URL_S3: s3.endpoint });

  it("names the functions as serverless.yml does, and answers GetFunctionConfiguration in the shape of Lambda's model", () => {
    const manifest = readServerlessYml() as unknown as {
      custom: { prefix: string; names: Record<string, string> };
      functions: Record<string, { name?: string }>;
    };
    expect(manifest.custom.prefix).toBe('${self:service}-${sls:stage}');
    const names = deploymentFunctions({ service: '${self:service}', stage: '${sls:stage}' });
    expect(manifest.functions.webhook!.name).toBeUndefined(); // serverless's default: <service>-<stage>-webhook
    expect(names.webhook).toBe('${self:service}-${sls:stage}-webhook');
    expect(manifest.custom.names.tokenRead).toBe(names.tokenRead.replace('${self:service}-${sls:stage}', '${self:custom.prefix}'));
    expect(manifest.custom.names.modelCall).toBe(names.modelCall.replace('${self:service}-${sls:stage}', '${self:custom.prefix}'));
    // GetFunctionConfiguration answers a FunctionConfiguration (Lambda's model names no separate output).
    expect(checkShape((lambdaModel as unknown as Record<string, unknown>).FunctionConfiguration$, functionConfiguration('f', { A: 'b' }))).toEqual([]);
  });

  it('a sound deployment: every check passes, and --json says so', async () => {
    const out = await cli(['doctor', '--stage', 'prod', '--json'], { env: env() });

    expect(out.code).toBe(0);
    expect(out.json!.checks.map((c: { name: string; ok: boolean }) => `${c.name}:${c.ok}`)).toEqual([
      'deployment:true',
      'app private key:true',
      'app credentials:true',
      'webhook:true',
      'permissions:true',
      'webhook secret:true',
      'model:true',
      'bucket:true',
    ]);
    const text = await cli(['doctor', '--stage', 'prod', '--webhook-url', 'https://abc123.execute-api.us-east-1.amazonaws.com/api/github/webhooks'], {
      env: env(),
    });
    expect(text.stdout).toContain('✓ deployment: draftsman-prod-webhook, draftsman-prod-tokenRead and draftsman-prod-modelCall in us-east-1');
    expect(text.stdout).toContain('✓ model: scripted answered');
    expect(text.stdout).toContain('all 8 checks passed');
  });

  it('a broken deployment: the App key, webhook path, permissions, webhook secret, model key and bucket each fail with their fix', async () => {
    const out = await cli(['doctor', '--stage', 'broken'], { env: env() });

    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(
      /✗ app private key: \/draftsman\/broken\/app-private-key cannot be read: ParameterNotFound.*\n {2}fix: put the App's private key \(.pem\) there as a SecureString/,
    );
    expect(out.stdout).toContain('✗ webhook secret: /draftsman/broken/webhook-secret holds fewer than 8 characters');
    expect(out.stdout).toMatch(/✗ model: MODEL_AUTH_FAILED: .*HTTP 401.*\n {2}fix: /);
    expect(out.stdout).toMatch(/✗ bucket: no-such-bucket cannot be listed/);
    expect(out.stdout).not.toContain('sk-a-revoked-key');

    const config = await cli(['doctor', '--stage', 'badconfig'], { env: env() });
    expect(config.code).toBe(1);
    expect(config.stdout).toMatch(/✗ deployment: invalid configuration: GITHUB_APP_ID: .*\n {2}fix: deploy again with the parameter it names/);
  });

  it("GitHub's side of a deployment: the webhook path or URL and the permissions fail with their fix", async () => {
    const drift = await cli(['doctor', '--stage', 'drift'], { env: env() });
    expect(drift.code).toBe(1);
    expect(drift.stdout).toContain('✓ app credentials: the App draftsman');
    expect(drift.stdout).toContain(
      "✗ webhook: GitHub delivers to the path /webhook, the stack answers at /api/github/webhooks\n  fix: set the App's webhook URL to https://<the stack's HttpApiUrl>/api/github/webhooks",
    );
    expect(drift.stdout).toMatch(/✗ permissions: the App lacks contents: write \(has none\)/);
    expect(drift.stdout).toContain('2 of 8 checks failed');

    const url = await cli(['doctor', '--stage', 'prod', '--webhook-url', 'https://abc123.execute-api.us-east-1.amazonaws.com/webhook'], { env: env() });
    expect(url.stdout).toContain(
      '✗ webhook: GitHub delivers to https://abc123.execute-api.us-east-1.amazonaws.com/api/github/webhooks, not to https://abc123.execute-api.us-east-1.amazonaws.com/webhook',
    );
  });

  it('a stage that does not exist, and credentials AWS refuses, fail with their fix', async () => {
    const missing = await cli(['doctor', '--stage', 'staging'], { env: env() });
    expect(missing.code).toBe(1);
    expect(missing.stdout).toMatch(
      /✗ deployment: draftsman-staging-webhook cannot be read in us-east-1: ResourceNotFoundException.*\n {2}fix: check --stage and --service/,
    );
    expect(missing.stdout).toContain("(the other checks need the functions' configuration first)");

    const usage = await cli(['doctor', '--stage', 'prod', '--dir', 'x'], { env: env() });
    expect(usage.code).toBe(2);
  });
});
