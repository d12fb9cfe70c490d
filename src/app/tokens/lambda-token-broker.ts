import { z } from 'zod';
import type { IssuedToken, TokenBroker, TokenRole } from '../../core/ports.js';
import { invokeJson, type LambdaLike } from '../aws/invoke-json.js';
import { TokenError } from './token-error.js';
import { servesRole } from './token-scopes.js';

export type { LambdaLike } from '../aws/invoke-json.js';

export const IssuedTokenSchema = z.object({
  token: z.string().min(1),
  expiresAt: z.string(),
  permissions: z.record(z.string(), z.string()),
  repositoryIds: z.array(z.number().int()),
});

export interface LambdaTokenBrokerOptions {
  client: LambdaLike;
  /** Name or ARN of token-read or token-write, from configuration. */
  functionName: string;
  /** The one role this broker serves; IAM lets its function invoke only the matching token function. */
  role: TokenRole;
}

/**
 * A TokenBroker that invokes token-read or token-write synchronously. One instance serves one
 * role, so the worker's broker (role `read`) refuses a `write` request before any call is made.
 */
export class LambdaTokenBroker implements TokenBroker {
  constructor(private readonly options: LambdaTokenBrokerOptions) {}

  async token(request: { installationId: number; repositoryId: number; role: TokenRole }): Promise<IssuedToken> {
    if (!servesRole(this.options.role, request.role)) {
      throw new TokenError('ROLE_NOT_ALLOWED', `This broker mints ${this.options.role} tokens only`, { requested: request.role, allowed: this.options.role });
    }
    const { functionName } = this.options;
    const payload = await invokeJson(
      this.options.client,
      functionName,
      request.role === this.options.role
        ? { installationId: request.installationId, repositoryId: request.repositoryId }
        : { installationId: request.installationId, repositoryId: request.repositoryId, role: request.role },
      (failure) =>
        failure.kind === 'not-invoked'
          ? new TokenError('TOKEN_FUNCTION_FAILED', 'The token function could not be invoked', { functionName }, { cause: failure.cause })
          : failure.kind === 'function-error'
            ? new TokenError('TOKEN_FUNCTION_FAILED', 'The token function failed', {
                functionName,
                errorType: failure.errorType,
                errorMessage: failure.errorMessage,
              })
            : new TokenError('TOKEN_FUNCTION_FAILED', 'The token function returned an unexpected payload', { functionName }),
    );
    const parsed = IssuedTokenSchema.safeParse(payload);
    if (!parsed.success)
      throw new TokenError('TOKEN_FUNCTION_FAILED', 'The token function returned an unexpected payload', { functionName: this.options.functionName });
    if (parsed.data.repositoryIds.length !== 1 || parsed.data.repositoryIds[0] !== request.repositoryId) {
      throw new TokenError('TOKEN_SCOPE_MISMATCH', 'The token function returned a token for another repository', { repositoryIds: parsed.data.repositoryIds });
    }
    return parsed.data;
  }
}
