import { getPrivateKey } from '@probot/get-private-key';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { z } from 'zod';
import { AgentError } from '../../core/errors.js';
import { AppConfig } from '../config.js';

export const SERVE_REASONS = ['SERVE_CONFIG_INVALID', 'SERVE_PRIVATE_KEY_MISSING'] as const;
export type ServeReason = (typeof SERVE_REASONS)[number];

/** `draftsman serve` cannot start as configured. `data` names variables, never their values. */
export class ServeError extends AgentError<ServeReason> {}

/** Probot's default webhook path, so an App registered for a Probot app needs no change. */
export const DEFAULT_WEBHOOK_PATH = '/api/github/webhooks';

/**
 * The variables `draftsman serve` reads, named as Probot names them (APP_ID, WEBHOOK_SECRET,
 * PRIVATE_KEY / PRIVATE_KEY_PATH, GHE_HOST, WEBHOOK_PROXY_URL, PORT, HOST, WEBHOOK_PATH), plus
 * the worker's optional model settings under the names the Lambda configuration uses.
 */
export const ServeEnv = z.object({
  APP_ID: z.coerce.number().int().positive(),
  WEBHOOK_SECRET: z.string().min(8),
  GITHUB_APP_SLUG: AppConfig.shape.GITHUB_APP_SLUG,
  /** Wins over GHE_HOST; the API root, e.g. https://github.example.com/api/v3. */
  GITHUB_API_URL: z.url().optional(),
  GHE_HOST: z.string().min(1).optional(),
  GHE_PROTOCOL: z.enum(['https', 'http']).default('https'),
  WEBHOOK_PROXY_URL: z.url().optional(),
  WEBHOOK_PATH: z.string().startsWith('/').default(DEFAULT_WEBHOOK_PATH),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  MODEL_PROVIDER: AppConfig.shape.MODEL_PROVIDER,
  MODEL_BASE_URL: AppConfig.shape.MODEL_BASE_URL,
  MODEL_NAME: AppConfig.shape.MODEL_NAME,
  MODEL_REGION: AppConfig.shape.MODEL_REGION,
  /** The key itself: in one process there is no parameter store to hold it. */
  MODEL_API_KEY: z.string().min(1).optional(),
  MODEL_PRICES: AppConfig.shape.MODEL_PRICES,
  /** Completion tokens asked for per model call (checked with the other model settings); default per provider. */
  MODEL_MAX_OUTPUT_TOKENS: z.string().optional(),
  LOG_LEVEL: AppConfig.shape.LOG_LEVEL,
  DRAFTSMAN_WASM_DIR: z.string().min(1).optional(),
  /** Toolchain directories outside /usr the verification sandbox mounts read-only (colon-separated). */
  DRAFTSMAN_VERIFY_TOOLCHAINS: z.string().min(1).optional(),
  /** The bubblewrap executable of the verification sandbox (default `bwrap` on the system PATH). */
  DRAFTSMAN_BWRAP: z.string().min(1).optional(),
});
export type ServeEnv = z.infer<typeof ServeEnv>;

/** Everything `serve` needs, resolved: the private key read, the API URL decided. */
export interface ServeSettings extends Omit<ServeEnv, 'GHE_HOST' | 'GHE_PROTOCOL' | 'GITHUB_API_URL'> {
  apiUrl: string;
  privateKey: string;
}

/**
 * `.env` in `cwd` (when present) under the process environment: a variable already set wins,
 * as with the dotenv loading Probot does.
 */
export function loadDotEnv(env: Record<string, string | undefined>, file: string): Record<string, string | undefined> {
  if (!existsSync(file)) return { ...env };
  const fromFile = parseEnv(readFileSync(file, 'utf8')) as Record<string, string>;
  return { ...fromFile, ...Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined)) };
}

/** Reads and checks the settings; the private key the way Probot finds it (@probot/get-private-key). */
export function readServeSettings(env: Record<string, string | undefined>, cwd: string): ServeSettings {
  const parsed = ServeEnv.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ServeError('SERVE_CONFIG_INVALID', `invalid configuration: ${problems.join('; ')}`, {
      variables: parsed.error.issues.map((i) => i.path.join('.')),
    });
  }
  let privateKey: string | null;
  try {
    const keyPath = env.PRIVATE_KEY_PATH ? resolve(cwd, env.PRIVATE_KEY_PATH) : undefined;
    privateKey = getPrivateKey({ env: { PRIVATE_KEY: env.PRIVATE_KEY, PRIVATE_KEY_PATH: keyPath }, cwd });
  } catch (error) {
    throw new ServeError('SERVE_PRIVATE_KEY_MISSING', 'The App private key could not be read (PRIVATE_KEY or PRIVATE_KEY_PATH)', {}, { cause: error });
  }
  if (!privateKey)
    throw new ServeError('SERVE_PRIVATE_KEY_MISSING', 'No App private key: set PRIVATE_KEY or PRIVATE_KEY_PATH, or put the .pem file in the working directory');
  const { GHE_HOST, GHE_PROTOCOL, GITHUB_API_URL, ...rest } = parsed.data;
  const apiUrl = GITHUB_API_URL ?? (GHE_HOST ? `${GHE_PROTOCOL}://${GHE_HOST}/api/v3` : 'https://api.github.com');
  return { ...rest, apiUrl: apiUrl.replace(/\/+$/, ''), privateKey };
}
