import { AgentError } from '../../core/errors.js';

export const TOKEN_REASONS = [
  'INVALID_TOKEN_REQUEST',
  'ROLE_NOT_ALLOWED',
  'PRIVATE_KEY_UNAVAILABLE',
  'APP_AUTH_FAILED',
  'INSTALLATION_NOT_FOUND',
  'TOKEN_REQUEST_REJECTED',
  'TOKEN_SCOPE_MISMATCH',
  'RATE_LIMITED',
  'GITHUB_UNAVAILABLE',
  'TOKEN_FUNCTION_FAILED',
] as const;
export type TokenReason = (typeof TOKEN_REASONS)[number];

/**
 * Token vending failed. `data` holds statuses and GitHub's message, never a key or a token.
 * It lives apart from the minting code so that callers of the token functions (worker,
 * publisher, webhook, sweeper) can name it without bundling the App-key handling.
 */
export class TokenError extends AgentError<TokenReason> {}
