import { GetFunctionConfigurationCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { SSMClient } from '@aws-sdk/client-ssm';
import type { Clock } from '../../core/ports.js';
import { readSecureParameter } from '../aws/ssm-secret.js';
import { modelCallSettings, readConfig, readModelCallConfig } from '../config.js';
import { operatorClientConfig, type OperatorAwsEnv } from '../cli/replay-command.js';
import { checkApp, checkModel, fail, pass, type DoctorCheck } from './doctor-checks.js';
import { DEFAULT_WEBHOOK_PATH } from './serve-settings.js';

/** Which deployment to check: the serverless service and stage (the functions are `<service>-<stage>-<name>`). */
export interface DeploymentTarget {
  service: string;
  stage: string;
  region?: string;
  /** The webhook URL the stack answers at (its HttpApiUrl output and the path), when known. */
  webhookUrl?: string;
}

/** The functions doctor reads the configuration of (serverless.yml, `custom.names` and the default naming). */
export function deploymentFunctions(target: Pick<DeploymentTarget, 'service' | 'stage'>): { webhook: string; tokenRead: string; modelCall: string } {
  const prefix = `${target.service}-${target.stage}`;
  return { webhook: `${prefix}-webhook`, tokenRead: `${prefix}-tokenRead`, modelCall: `${prefix}-modelCall` };
}

const ACCESS_FIX =
  'your AWS credentials need lambda:GetFunctionConfiguration on the functions and ssm:GetParameter (with kms:Decrypt) on the parameters (docs/operations.md)';

/**
 * A deployment's checks, with the operator's AWS credentials: the functions' configuration as
 * they parse it, the App's key, webhook secret and model key in SSM, the App's credentials,
 * webhook URL, permissions and events at GitHub, the model endpoint as model-call builds it, and
 * the bucket. Returns the checks and the bucket's name for the caller's bucket check.
 */
export async function checkDeployment(target: DeploymentTarget, env: OperatorAwsEnv, clock: Clock): Promise<{ checks: DoctorCheck[]; bucket?: string }> {
  const aws = operatorClientConfig(env, { region: target.region });
  const lambda = new LambdaClient({ ...aws, maxAttempts: 1, ...(env.AWS_ENDPOINT_URL_LAMBDA ? { endpoint: env.AWS_ENDPOINT_URL_LAMBDA } : {}) });
  const ssm = new SSMClient({ ...aws, maxAttempts: 1, ...(env.AWS_ENDPOINT_URL_SSM ? { endpoint: env.AWS_ENDPOINT_URL_SSM } : {}) });
  const names = deploymentFunctions(target);
  const environments = await readEnvironments(lambda, names, aws.region);
  if ('failed' in environments) return { checks: [environments.failed] };

  let config;
  let modelConfig;
  try {
    config = readConfig(environments.webhook);
    modelConfig = readModelCallConfig(environments.modelCall);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { checks: [fail('deployment', message, 'deploy again with the parameter it names (docs/deployment.md)')] };
  }
  const checks: DoctorCheck[] = [pass('deployment', `${names.webhook}, ${names.tokenRead} and ${names.modelCall} in ${aws.region}`)];

  const keyParameter = environments.tokenRead.APP_PRIVATE_KEY_PARAMETER;
  const privateKey = await readParameter(ssm, 'app private key', keyParameter, "put the App's private key (.pem) there as a SecureString");
  checks.push(privateKey.check);
  if (privateKey.value !== undefined) {
    const app = { appId: config.GITHUB_APP_ID, privateKey: privateKey.value, apiUrl: config.GITHUB_API_URL, slug: config.GITHUB_APP_SLUG };
    checks.push(...(await checkApp(app, clock, (url) => checkDeployedWebhook(url, target.webhookUrl))));
  }
  const secret = await readParameter(ssm, 'webhook secret', config.WEBHOOK_SECRET_PARAMETER, "put the App's webhook secret there as a SecureString");
  if (secret.value !== undefined && secret.value.length < 8)
    checks.push(
      fail('webhook secret', `${config.WEBHOOK_SECRET_PARAMETER} holds fewer than 8 characters`, "set the App's webhook secret there (and on the App)"),
    );
  else checks.push(secret.check);

  checks.push(await checkDeployedModel(ssm, modelConfig));
  return { checks, bucket: config.ARTIFACT_BUCKET };
}

async function readEnvironments(
  lambda: LambdaClient,
  names: ReturnType<typeof deploymentFunctions>,
  region: string,
): Promise<Record<keyof typeof names, Record<string, string | undefined>> | { failed: DoctorCheck }> {
  const out: Partial<Record<keyof typeof names, Record<string, string | undefined>>> = {};
  for (const [role, name] of Object.entries(names) as [keyof typeof names, string][]) {
    try {
      const configuration = await lambda.send(new GetFunctionConfigurationCommand({ FunctionName: name }));
      out[role] = configuration.Environment?.Variables ?? {};
    } catch (error) {
      const type = (error as { name?: string }).name;
      const found = `${name} cannot be read in ${region}: ${type ? `${type}: ` : ''}${error instanceof Error ? error.message : String(error)}`;
      const fix =
        type === 'ResourceNotFoundException'
          ? 'check --stage and --service (the functions are named <service>-<stage>-<function>) and the region (--region or AWS_REGION)'
          : ACCESS_FIX;
      return { failed: fail('deployment', found, fix) };
    }
  }
  return out as Record<keyof typeof names, Record<string, string | undefined>>;
}

async function readParameter(ssm: SSMClient, name: string, parameter: string | undefined, fix: string): Promise<{ check: DoctorCheck; value?: string }> {
  if (!parameter) return { check: fail(name, 'the deployment names no parameter for it', 'deploy again with the stack as packaged (serverless.yml)') };
  try {
    const value = await readSecureParameter(ssm, parameter);
    return { check: pass(name, `${parameter} is readable`), value };
  } catch (error) {
    const type = (error as { name?: string }).name;
    const found = `${parameter} cannot be read: ${type ? `${type}: ` : ''}${error instanceof Error ? error.message : String(error)}`;
    return { check: fail(name, found, type === 'ParameterNotFound' || /empty/.test(found) ? `${fix} (docs/deployment.md)` : ACCESS_FIX) };
  }
}

/** GitHub must deliver to the stack's webhook route (serverless.yml), at its URL when the operator gives it. */
function checkDeployedWebhook(url: string | undefined, expected: string | undefined): DoctorCheck {
  const name = 'webhook';
  const want = expected ?? `https://<the stack's HttpApiUrl>${DEFAULT_WEBHOOK_PATH}`;
  if (!url) return fail(name, 'the App has no webhook URL', `set the App's webhook URL to ${want}`);
  if (expected !== undefined)
    return url === expected
      ? pass(name, `GitHub delivers to ${url}`)
      : fail(name, `GitHub delivers to ${url}, not to ${expected}`, `set the App's webhook URL to ${expected}`);
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return fail(name, `the App's webhook URL ${url} is not a URL`, `set it to ${want}`);
  }
  return path === DEFAULT_WEBHOOK_PATH
    ? pass(name, `GitHub delivers to ${url}, the path the stack's webhook route answers (--webhook-url compares the whole URL)`)
    : fail(name, `GitHub delivers to the path ${path}, the stack answers at ${DEFAULT_WEBHOOK_PATH}`, `set the App's webhook URL to ${want}`);
}

/** The model exactly as model-call builds it: its configuration and the key its parameter holds. */
async function checkDeployedModel(ssm: SSMClient, config: ReturnType<typeof readModelCallConfig>): Promise<DoctorCheck> {
  let apiKey: string | undefined;
  if (config.MODEL_API_KEY_PARAMETER) {
    const key = await readParameter(ssm, 'model', config.MODEL_API_KEY_PARAMETER, "put the model provider's API key there as a SecureString");
    if (key.value === undefined) return key.check;
    apiKey = key.value;
  }
  return checkModel(modelCallSettings(config, apiKey), 'deploy again with the model parameter it names (docs/deployment.md)');
}
