import { z } from 'zod';
import { PriceTableJson } from '../core/budget/cost.js';
import { ModelProviderName, type ModelSettings } from './model/model-settings.js';

/**
 * The Lambda functions' configuration, read once at the composition root through one schema.
 * Secrets are never here: only the names of the parameters that hold them.
 */
export const AppConfig = z.object({
  ARTIFACT_BUCKET: z.string().min(1),
  ARTIFACT_KMS_KEY_ID: z.string().optional(),
  GITHUB_APP_ID: z.coerce.number().int().positive(),
  GITHUB_APP_SLUG: z.string().min(1).default('draftsman'),
  GITHUB_API_URL: z.string().url().default('https://api.github.com'),
  /** SSM SecureString parameter holding the webhook secret (read by the webhook only). */
  WEBHOOK_SECRET_PARAMETER: z.string().min(1).optional(),
  TOKEN_READ_FUNCTION: z.string().min(1).optional(),
  TOKEN_WRITE_FUNCTION: z.string().min(1).optional(),
  /** The worker function the dispatcher starts, and the run-session function the worker calls. */
  WORKER_FUNCTION: z.string().min(1).optional(),
  RUN_SESSION_FUNCTION: z.string().min(1).optional(),
  /** Runs that may hold a worker at once (the worker's reserved concurrency): more wait in the run queue. */
  WORKER_CONCURRENCY: z.coerce.number().int().positive().max(1000).optional(),
  /** The run queue's wake-up queue (SQS): the sweeper sends to it, the dispatcher is its consumer. */
  RUN_QUEUE_URL: z.string().url().optional(),
  /** The campaign state machine the intake starts (docs/campaigns.md); unset, campaigns are off. */
  CAMPAIGN_STATE_MACHINE_ARN: z.string().startsWith('arn:').optional(),
  /** The schedule-sync function the intake invokes when the default branch's policy changes or the App is uninstalled; unset, schedules are off. */
  SCHEDULE_SYNC_FUNCTION: z.string().min(1).optional(),
  /** The stack's EventBridge Scheduler group, the schedule-fire function its schedules invoke, and the role the scheduler assumes for it. */
  SCHEDULE_GROUP: z.string().min(1).max(64).optional(),
  SCHEDULE_FIRE_ARN: z.string().startsWith('arn:').optional(),
  SCHEDULER_ROLE_ARN: z.string().startsWith('arn:').optional(),
  /** RunWorkerRole, which run-session assumes for a worker's run-scoped S3 credentials. */
  RUN_WORKER_ROLE_ARN: z.string().startsWith('arn:').optional(),
  /** openai | bedrock | anthropic; unset with MODEL_BASE_URL set means openai. */
  MODEL_PROVIDER: ModelProviderName.optional(),
  /** openai: the endpoint; anthropic: optional API root; bedrock: optional endpoint override. */
  MODEL_BASE_URL: z.string().url().optional(),
  /** The model id (bedrock: a model or inference profile id). */
  MODEL_NAME: z.string().optional(),
  /** bedrock: the region to call when it is not the function's own. */
  MODEL_REGION: z.string().min(1).optional(),
  /** The model-call function the worker invokes for every model request (set when a model is configured). */
  MODEL_CALL_FUNCTION: z.string().min(1).optional(),
  /** SSM SecureString parameter holding the model API key (read by model-call only). */
  MODEL_API_KEY_PARAMETER: z.string().optional(),
  /**
   * Completion tokens asked for per model call (the worker asks model-call for this many); unset,
   * 4,096 (docs/deployment.md, `modelMaxOutputTokens`).
   */
  MODEL_MAX_OUTPUT_TOKENS: z.coerce.number().int().positive().max(1_000_000).optional(),
  /** Model prices, JSON `{"<model id>": {"inputPerMTokUsd": n, "outputPerMTokUsd": n}}`: cost in reports, and the policy's cost cap. */
  MODEL_PRICES: PriceTableJson.optional(),
  /** Most one installation may spend on model calls per calendar month (UTC), in US dollars; model-call holds it. */
  INSTALLATION_MONTHLY_COST_USD: z.coerce.number().positive().max(100_000_000).optional(),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  /** The verifier's CodeBuild project without egress, and the one with network access if configured. */
  VERIFY_PROJECT: z.string().min(1).max(255).optional(),
  VERIFY_PROJECT_NETWORK: z.string().min(1).max(255).optional(),
  /** VerifyBuildRole, which the verifier assumes (tagged with the run and the digest) as a build's only credentials. */
  VERIFY_BUILD_ROLE_ARN: z.string().startsWith('arn:').optional(),
  /** The managed image verification builds run on. */
  VERIFY_IMAGE: z.string().min(1).default('aws/codebuild/standard:7.0'),
});
export type AppConfig = z.infer<typeof AppConfig>;

/** model-call's configuration: the model, its key's parameter name, prices and the installation cap, the bucket of the spend records; nothing of GitHub. */
export const ModelCallConfig = AppConfig.pick({
  ARTIFACT_BUCKET: true,
  ARTIFACT_KMS_KEY_ID: true,
  MODEL_PRICES: true,
  INSTALLATION_MONTHLY_COST_USD: true,
  MODEL_PROVIDER: true,
  MODEL_BASE_URL: true,
  MODEL_NAME: true,
  MODEL_REGION: true,
  MODEL_API_KEY_PARAMETER: true,
  MODEL_MAX_OUTPUT_TOKENS: true,
  LOG_LEVEL: true,
});

export type ModelCallConfig = z.infer<typeof ModelCallConfig>;

/** The model model-call builds: its configuration and the key read from MODEL_API_KEY_PARAMETER. */
export function modelCallSettings(config: ModelCallConfig, apiKey: string | undefined): ModelSettings {
  return {
    provider: config.MODEL_PROVIDER,
    model: config.MODEL_NAME,
    baseUrl: config.MODEL_BASE_URL,
    region: config.MODEL_REGION,
    apiKey,
    maxOutputTokens: config.MODEL_MAX_OUTPUT_TOKENS === undefined ? undefined : String(config.MODEL_MAX_OUTPUT_TOKENS),
  };
}

export function readConfig(env: Record<string, string | undefined>): AppConfig {
  return parseConfig(AppConfig, env);
}

export function readModelCallConfig(env: Record<string, string | undefined>): ModelCallConfig {
  return parseConfig(ModelCallConfig, env);
}

function parseConfig<S extends z.ZodType>(schema: S, env: Record<string, string | undefined>): z.output<S> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`invalid configuration: ${problems}`);
  }
  return parsed.data;
}
