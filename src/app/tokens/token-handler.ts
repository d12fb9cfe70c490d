import { createPrivateKey, type KeyObject } from 'node:crypto';
import { GetParameterCommand, type GetParameterCommandOutput } from '@aws-sdk/client-ssm';
import { z } from 'zod';
import type { Clock, IssuedToken, Logger, TokenRole } from '../../core/ports.js';
import type { GitHubRetryPolicy } from '../github/github-api.js';
import { mintInstallationToken, TokenError } from './mint-installation-token.js';
import { scopesFor, servesRole } from './token-scopes.js';

/** The event token-read and token-write accept: one installation, one repository, nothing else. */
export const TokenRequestEvent = z
  .object({
    installationId: z.number().int().positive(),
    repositoryId: z.number().int().positive(),
    /** A narrower role than the function's own (token-read mints `worker` tokens for run-session, `notice` tokens for the intake). */
    role: z.enum(['read', 'worker', 'write', 'notice']).optional(),
  })
  .strict();
export type TokenRequestEvent = z.infer<typeof TokenRequestEvent>;

/** Environment of the token functions: the key's parameter NAME, never the key. */
export const TokenHandlerEnv = z.object({
  GITHUB_APP_ID: z.string().regex(/^\d+$/),
  GITHUB_API_URL: z.url().default('https://api.github.com'),
  APP_PRIVATE_KEY_PARAMETER: z.string().min(1),
});
export type TokenHandlerEnv = z.infer<typeof TokenHandlerEnv>;

export interface TokenHandlerOptions {
  role: TokenRole;
  /** Returns the App private key PEM. Called once; the result is cached for the container's life. */
  loadPrivateKey: () => Promise<string>;
  appId: string | number;
  apiUrl: string;
  clock: Clock;
  fetch?: typeof globalThis.fetch;
  policy?: Partial<GitHubRetryPolicy>;
  logger?: Logger;
}

/**
 * The body of token-read and token-write: validates the event, loads the key once (a failed
 * load is retried on the next call, not cached), and mints a token for exactly the event's
 * repository with the role's fixed scopes. The role is fixed when the handler is built.
 */
export function createTokenHandler(options: TokenHandlerOptions): (event: unknown) => Promise<IssuedToken> {
  let key: Promise<KeyObject> | undefined;
  const loadKey = (): Promise<KeyObject> => {
    key ??= options.loadPrivateKey().then(
      (pem) => createPrivateKey(pem),
      (error: unknown) => {
        throw new TokenError('PRIVATE_KEY_UNAVAILABLE', 'The App private key could not be loaded', {}, { cause: error });
      },
    );
    key.catch(() => {
      key = undefined;
    });
    return key;
  };

  return async (event: unknown): Promise<IssuedToken> => {
    const parsed = TokenRequestEvent.safeParse(event);
    if (!parsed.success) {
      throw new TokenError('INVALID_TOKEN_REQUEST', 'A token request needs exactly installationId and repositoryId', {
        issues: parsed.error.issues.map((i) => ({ path: i.path.join('.'), code: i.code })),
      });
    }
    const role = parsed.data.role ?? options.role;
    if (!servesRole(options.role, role)) {
      throw new TokenError('ROLE_NOT_ALLOWED', `This function mints ${options.role} tokens, or narrower ones`, { requested: role, allowed: options.role });
    }
    let privateKey: KeyObject;
    try {
      privateKey = await loadKey();
    } catch (error) {
      if (error instanceof TokenError) throw error;
      throw new TokenError('PRIVATE_KEY_UNAVAILABLE', 'The App private key is not a valid PEM key', {}, { cause: error });
    }
    return mintInstallationToken({
      apiUrl: options.apiUrl,
      appId: options.appId,
      privateKey,
      installationId: parsed.data.installationId,
      repositoryId: parsed.data.repositoryId,
      permissions: scopesFor(role),
      clock: options.clock,
      fetch: options.fetch,
      policy: options.policy,
      logger: options.logger,
    });
  };
}

/** The subset of SSMClient the key loader uses. */
export interface SsmLike {
  send(command: GetParameterCommand): Promise<GetParameterCommandOutput>;
}

/** Loads the App key from an SSM SecureString parameter (decrypted with the function's KMS grant). */
export function ssmPrivateKeyLoader(ssm: SsmLike, parameterName: string): () => Promise<string> {
  return async () => {
    const out = await ssm.send(new GetParameterCommand({ Name: parameterName, WithDecryption: true }));
    const value = out.Parameter?.Value;
    if (!value) throw new TokenError('PRIVATE_KEY_UNAVAILABLE', 'The App private key parameter is empty', { parameterName });
    return value;
  };
}
