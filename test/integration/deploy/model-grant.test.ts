import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORKER_PROCESS_ENVIRONMENT } from '../../../src/app/runtime/worker-environment.js';
import { applyConditions, conditionEvaluator } from '../../helpers/cfn-conditions.js';
import { evaluate, type Statement } from '../../helpers/iam-policy.js';

/**
 * The worker's model parameters as osls resolves them (`osls print`, offline, no bundling):
 * with `modelProvider=bedrock` the worker's role may call bedrock:InvokeModel on the configured
 * foundation model and nothing else, and no key parameter is read; the package test covers the
 * deployment without a model (no Bedrock grant at all).
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const OSLS = join(ROOT, 'node_modules', 'osls', 'bin', 'serverless.js');
const REGION = 'eu-west-1';
const ACCOUNT = '123456789012';
const MODEL = 'anthropic.claude-3-5-haiku-20241022-v1:0';
const modelArn = (id: string, region = REGION) => `arn:aws:bedrock:${region}::foundation-model/${id}`;

type Json = any; // CloudFormation is untyped JSON

let home: string;
let config: Json;

async function print(params: string[]): Promise<Json> {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    SLS_TELEMETRY_DISABLED: '1',
    SLS_NOTIFICATIONS_MODE: 'off',
    AWS_EC2_METADATA_DISABLED: 'true',
    CI: '1',
  };
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [OSLS, 'print', '--stage', 'prod', '--region', REGION, '--format', 'json', '--param=githubAppId=12345', ...params.map((p) => `--param=${p}`)],
    {
      cwd: ROOT,
      env,
      maxBuffer: 16 * 1024 * 1024,
      timeout: 170_000,
    },
  );
  return JSON.parse(stdout);
}

/** `${AWS::Partition}`, `${AWS::Region}`, `${AWS::AccountId}` as the stack renders them. */
function sub(value: Json): Json {
  if (typeof value === 'string' || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(sub);
  if ('Fn::Sub' in value)
    return String(value['Fn::Sub']).replaceAll('${AWS::Partition}', 'aws').replaceAll('${AWS::Region}', REGION).replaceAll('${AWS::AccountId}', ACCOUNT);
  if ('Fn::GetAtt' in value) return `GETATT:${(value['Fn::GetAtt'] as string[]).join('.')}`;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, sub(v)]));
}

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'draftsman-osls-home-'));
  config = await print(['modelProvider=bedrock', `modelName=${MODEL}`]);
}, 180_000);

afterAll(() => {
  if (home) rmSync(home, { recursive: true, force: true });
});

describe('a deployment with the Bedrock provider', () => {
  const condition = () => conditionEvaluator(config.resources.Conditions);
  const modelCallStatements = (): Statement[] =>
    sub(applyConditions(config.resources.Resources.ModelCallRole.Properties, condition())).Policies.flatMap((p: Json) => p.PolicyDocument.Statement);

  it('grants model-call bedrock:InvokeModel on the configured model only', () => {
    const worker = modelCallStatements();
    const grants = worker.filter((s) => [s.Action].flat().some((a) => String(a).startsWith('bedrock:')));
    expect(grants).toEqual([{ Sid: 'InvokeConfiguredModel', Effect: 'Allow', Action: 'bedrock:InvokeModel', Resource: modelArn(MODEL) }]);
    expect(evaluate([worker], { action: 'bedrock:InvokeModel', resource: modelArn(MODEL) })).toBe('allow');
    expect(evaluate([worker], { action: 'bedrock:InvokeModel', resource: modelArn('anthropic.claude-opus-4-20250514-v1:0') })).toBe('implicit-deny');
    expect(evaluate([worker], { action: 'bedrock:InvokeModel', resource: modelArn(MODEL, 'us-east-1') })).toBe('implicit-deny');
    expect(evaluate([worker], { action: 'bedrock:InvokeModelWithResponseStream', resource: modelArn(MODEL) })).toBe('implicit-deny');
  });

  it('grants it to no other role', () => {
    const roles = Object.entries(config.resources.Resources as Record<string, Json>).filter(([, r]) => r.Type === 'AWS::IAM::Role');
    const holders = roles.filter(([, r]) => JSON.stringify(applyConditions(r.Properties, condition())).includes('bedrock:')).map(([id]) => id);
    expect(holders).toEqual(['ModelCallRole']);
  });

  it('starts the worker with the process environment its memory was measured with', () => {
    expect(applyConditions(config.functions.worker.environment, condition())).toMatchObject(WORKER_PROCESS_ENVIRONMENT);
  });

  it('configures model-call for Bedrock without a key parameter to read, and the worker to invoke it', () => {
    const env = applyConditions(config.functions.modelCall.environment, condition());
    expect(env).toMatchObject({ MODEL_PROVIDER: 'bedrock', MODEL_NAME: MODEL });
    expect(env).not.toHaveProperty('MODEL_API_KEY_PARAMETER');
    expect(env).not.toHaveProperty('MODEL_BASE_URL');
    const worker = applyConditions(config.functions.worker.environment, condition());
    expect(worker).toMatchObject({ MODEL_CALL_FUNCTION: 'draftsman-prod-modelCall', MODEL_NAME: MODEL });
    expect(worker).not.toHaveProperty('MODEL_PROVIDER');
  });
});
