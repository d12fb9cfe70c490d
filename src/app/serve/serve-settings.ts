import { getPrivateKey } from '@probot/get-private-key';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { z } from 'zod';
import { AgentError } from '../../core/errors.js';
import { AppConfig } from '../config.js';
import type { ModelSettings } from '../model/model-settings.js';

export const SERVE_REASONS = [
  'SERVE_CONFIG_INVALID',
  'SERVE_PRIVATE_KEY_MISSING',
  'SERVE_ENV_FILE_MISSING',
  'SERVE_SETUP_FAILED',
  'SERVE_SANDBOX_UNAVAILABLE',
] as const;
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
  /** Where the setup page gets a new proxy channel when WEBHOOK_PROXY_URL is unset (a redirect to the channel). */
  WEBHOOK_PROXY_NEW_URL: z.url().optional(),
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
  INSTALLATION_MONTHLY_COST_USD: AppConfig.shape.INSTALLATION_MONTHLY_COST_USD,
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

/**
 * Every variable `serve` reads: the schema's, and the two private-key variables read the way
 * Probot reads them. `.env.example` lists each of them (a unit test keeps the two in step).
 */
export const SERVE_VARIABLES: readonly string[] = [...Object.keys(ServeEnv.shape), 'PRIVATE_KEY', 'PRIVATE_KEY_PATH'];

/** What a variable must be, in words, for the variables whose constraint is not obvious from zod's issue. */
const EXPECTED: Partial<Record<string, string>> = {
  APP_ID: 'the App ID from its settings page, a positive whole number',
  WEBHOOK_SECRET: 'the webhook secret of the App, at least 8 characters',
  PORT: 'a port number from 0 to 65535',
  WEBHOOK_PATH: 'a path starting with /',
  MODEL_PRICES: 'a JSON price table {"<model id>": {"inputPerMTokUsd": n, "outputPerMTokUsd": n}}',
};

/** Everything `serve` needs, resolved: the private key read, the API URL decided. */
export interface ServeSettings extends Omit<ServeEnv, 'GHE_HOST' | 'GHE_PROTOCOL' | 'GITHUB_API_URL'> {
  apiUrl: string;
  privateKey: string;
}

/** The variables `serve` starts from, and where they came from (for messages that name the place to fix). */
export interface ServeEnvSource {
  env: Record<string, string | undefined>;
  /** The env file as the person named it (`.env` by default), whether or not it exists. */
  file: string;
  /** Variables whose value came from that file rather than the process environment. */
  fromFile: ReadonlySet<string>;
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

/**
 * The env file (`--env-file`, default `.env`) under the process environment. A file named with
 * `--env-file` must exist; the default one may be absent.
 */
export function loadServeEnv(env: Record<string, string | undefined>, cwd: string, named?: string): ServeEnvSource {
  const file = named ?? '.env';
  const path = resolve(cwd, file);
  if (named !== undefined && !existsSync(path))
    throw new ServeError('SERVE_ENV_FILE_MISSING', `${named} does not exist: --env-file must name an existing file (or leave it out to read .env)`, {
      file: named,
    });
  const merged = loadDotEnv(env, path);
  const fromFile = new Set(Object.keys(merged).filter((k) => env[k] === undefined));
  return { env: merged, file, fromFile };
}

/**
 * True when nothing of an App is configured (no id, secret or key anywhere, no .pem file in
 * `cwd`): `serve` then offers to register one instead of failing.
 */
export function isUnconfigured(env: Record<string, string | undefined>, cwd: string): boolean {
  if (['APP_ID', 'WEBHOOK_SECRET', 'PRIVATE_KEY', 'PRIVATE_KEY_PATH'].some((name) => env[name])) return false;
  try {
    return !getPrivateKey({ env: {}, cwd });
  } catch {
    return false;
  }
}

/** One sentence per problem: the variable, what it must be, and where to set it. */
function describeIssues(issues: z.core.$ZodIssue[], source: Pick<ServeEnvSource, 'file' | 'fromFile'>, env: Record<string, string | undefined>): string {
  const sentences = new Map<string, string>();
  for (const issue of issues) {
    const name = issue.path.map(String).join('.');
    if (sentences.has(name)) continue;
    if (env[name] === undefined || env[name] === '') {
      sentences.set(name, `${name} is missing: set it in ${source.file}`);
      continue;
    }
    const where = source.fromFile.has(name) ? `in ${source.file}` : 'in the environment';
    const expected = EXPECTED[name] ?? expectedFromIssue(issue);
    sentences.set(name, `${name} ${where} is not valid: it must be ${expected}`);
  }
  return [...sentences.values()].join('; ');
}

function expectedFromIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_value') return `one of ${issue.values.map(String).join(', ')}`;
  if (issue.code === 'invalid_format' && issue.format === 'url') return 'a URL (https://...)';
  if (issue.code === 'too_small') return 'longer';
  return 'as .env.example describes it';
}

/** Reads and checks the settings; the private key the way Probot finds it (@probot/get-private-key). */
export function readServeSettings(
  env: Record<string, string | undefined>,
  cwd: string,
  source: Pick<ServeEnvSource, 'file' | 'fromFile'> = { file: '.env', fromFile: new Set() },
): ServeSettings {
  const parsed = ServeEnv.safeParse(env);
  if (!parsed.success) {
    throw new ServeError('SERVE_CONFIG_INVALID', describeIssues(parsed.error.issues, source, env), {
      variables: parsed.error.issues.map((i) => i.path.join('.')),
      file: source.file,
    });
  }
  let privateKey: string | null;
  try {
    const keyPath = env.PRIVATE_KEY_PATH ? resolve(cwd, env.PRIVATE_KEY_PATH) : undefined;
    privateKey = getPrivateKey({ env: { PRIVATE_KEY: env.PRIVATE_KEY, PRIVATE_KEY_PATH: keyPath }, cwd });
  } catch (error) {
    const which = env.PRIVATE_KEY ? 'PRIVATE_KEY' : 'PRIVATE_KEY_PATH';
    throw new ServeError('SERVE_PRIVATE_KEY_MISSING', `${which} does not give a readable private key: check it in ${source.file}`, {}, { cause: error });
  }
  if (!privateKey)
    throw new ServeError(
      'SERVE_PRIVATE_KEY_MISSING',
      `PRIVATE_KEY_PATH is missing: set it (or PRIVATE_KEY) in ${source.file}, or put the App's .pem file in the working directory`,
    );
  const { GHE_HOST, GHE_PROTOCOL, GITHUB_API_URL, ...rest } = parsed.data;
  return { ...rest, apiUrl: githubUrls({ GHE_HOST, GHE_PROTOCOL, GITHUB_API_URL }).api, privateKey };
}

/** GitHub's web and API roots: github.com, or GHE_HOST's; GITHUB_API_URL wins for the API. */
/** The worker's model as serve's settings give it (what serve runs and `doctor` checks). */
export function serveModelSettings(settings: ServeSettings): ModelSettings {
  return {
    provider: settings.MODEL_PROVIDER,
    model: settings.MODEL_NAME,
    baseUrl: settings.MODEL_BASE_URL,
    region: settings.MODEL_REGION,
    apiKey: settings.MODEL_API_KEY,
    maxOutputTokens: settings.MODEL_MAX_OUTPUT_TOKENS,
  };
}

export function githubUrls(env: { GHE_HOST?: string; GHE_PROTOCOL?: string; GITHUB_API_URL?: string }): { web: string; api: string } {
  const web = env.GHE_HOST ? `${env.GHE_PROTOCOL ?? 'https'}://${env.GHE_HOST}` : 'https://github.com';
  const api = env.GITHUB_API_URL ?? (env.GHE_HOST ? `${web}/api/v3` : 'https://api.github.com');
  return { web, api: api.replace(/\/+$/, '') };
}
