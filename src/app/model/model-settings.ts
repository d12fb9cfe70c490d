import { z } from 'zod';
import { AgentError } from '../../core/errors.js';

/**
 * The model settings' vocabulary, apart from the providers so that configuration schemas can
 * name it without pulling the providers' SDKs into every function.
 */
export const MODEL_PROVIDERS = ['openai', 'bedrock', 'anthropic'] as const;
export const ModelProviderName = z.enum(MODEL_PROVIDERS);
export type ModelProviderName = z.infer<typeof ModelProviderName>;

export const MODEL_CONFIG_REASONS = ['MODEL_CONFIG_INVALID'] as const;
export type ModelConfigReason = (typeof MODEL_CONFIG_REASONS)[number];

/** The model cannot be built as configured. `data.variables` names settings, never their values. */
export class ModelConfigError extends AgentError<ModelConfigReason> {}

/**
 * The deployment's model, whatever the root reads it from (Lambda environment, `serve`'s
 * environment, the CLI's DRAFTSMAN_MODEL_* variables). Independent of any repository's policy:
 * which model runs, and on whose account, is the operator's choice.
 */
export interface ModelSettings {
  provider?: string;
  /** The model id (Bedrock: a model or inference profile id). */
  model?: string;
  /** OpenAI: required. Anthropic: optional (default the public API). Bedrock: optional endpoint override. */
  baseUrl?: string;
  /** Bedrock only; default the SDK's region chain (AWS_REGION, as Lambda sets it). */
  region?: string;
  /** OpenAI (optional) and Anthropic (required). Never used by Bedrock, which signs with the role's credentials. */
  apiKey?: string;
  /** Completion tokens asked for per call (a whole number); default per provider, see each provider's `maxOutputTokens`. */
  maxOutputTokens?: string;
}

/**
 * Each setting's name where an operator sets it: the variables serve, the CLI and the deployed
 * functions read (the deployment's model-call reads the key from the SSM parameter that
 * MODEL_API_KEY_PARAMETER names). Errors name these, never the values.
 */
export const MODEL_SETTING_VARIABLES: Record<keyof ModelSettings, string> = {
  provider: 'MODEL_PROVIDER',
  model: 'MODEL_NAME',
  baseUrl: 'MODEL_BASE_URL',
  region: 'MODEL_REGION',
  apiKey: 'MODEL_API_KEY',
  maxOutputTokens: 'MODEL_MAX_OUTPUT_TOKENS',
};

/** A setting's variable name, for a settings field (or the name itself when it is no field). */
export function modelSettingVariable(field: string): string {
  return (MODEL_SETTING_VARIABLES as Record<string, string>)[field] ?? field;
}

/** The settings as the factory checks them (blank values already dropped). */
export const ModelSettingsSchema = z.object({
  provider: ModelProviderName.optional(),
  model: z.string().trim().min(1).optional(),
  baseUrl: z.url().optional(),
  region: z
    .string()
    .regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, 'not an AWS region')
    .optional(),
  apiKey: z.string().min(1).optional(),
  maxOutputTokens: z.string().regex(/^\d+$/, 'not a whole number').transform(Number).pipe(z.number().int().positive().max(1_000_000)).optional(),
});
