import { z } from 'zod';
import { PriceTableJson } from '../core/budget/cost.js';
import { ModelProviderName } from './model/model-settings.js';

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
  /** SSM SecureString parameter holding the model API key (read by the worker only). */
  MODEL_API_KEY_PARAMETER: z.string().optional(),
  /** Model prices, JSON `{"<model id>": {"inputPerMTokUsd": n, "outputPerMTokUsd": n}}`: cost in reports, and the policy's cost cap. */
  MODEL_PRICES: PriceTableJson.optional(),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
});
export type AppConfig = z.infer<typeof AppConfig>;

export function readConfig(env: Record<string, string | undefined>): AppConfig {
  const parsed = AppConfig.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`invalid configuration: ${problems}`);
  }
  return parsed.data;
}
