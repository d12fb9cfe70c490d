import { InvokeCommand, type InvokeCommandOutput } from '@aws-sdk/client-lambda';
import { z } from 'zod';
import type { IssuedToken, TokenBroker, TokenRole } from '../../core/ports.js';
import { TokenError } from './token-error.js';

/** The subset of LambdaClient the broker uses. */
export interface LambdaLike {
  send(command: InvokeCommand): Promise<InvokeCommandOutput>;
}

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
    if (request.role !== this.options.role) {
      throw new TokenError('ROLE_NOT_ALLOWED', `This broker mints ${this.options.role} tokens only`, { requested: request.role, allowed: this.options.role });
    }
    let out: InvokeCommandOutput;
    try {
      out = await this.options.client.send(
        new InvokeCommand({
          FunctionName: this.options.functionName,
          InvocationType: 'RequestResponse',
          Payload: Buffer.from(JSON.stringify({ installationId: request.installationId, repositoryId: request.repositoryId })),
        }),
      );
    } catch (error) {
      throw new TokenError('TOKEN_FUNCTION_FAILED', 'The token function could not be invoked', { functionName: this.options.functionName }, { cause: error });
    }
    const text = out.Payload ? Buffer.from(out.Payload).toString('utf8') : '';
    if (out.FunctionError) {
      // Lambda's error payload is {errorType, errorMessage, trace}; our errors never carry secrets.
      let detail: { errorType?: string; errorMessage?: string } = {};
      try {
        detail = JSON.parse(text) as typeof detail;
      } catch {
        detail = {};
      }
      throw new TokenError('TOKEN_FUNCTION_FAILED', 'The token function failed', {
        functionName: this.options.functionName,
        errorType: detail.errorType,
        errorMessage: detail.errorMessage,
      });
    }
    let payload: unknown;
    try {
      payload = JSON.parse(text);
    } catch {
      payload = undefined;
    }
    const parsed = IssuedTokenSchema.safeParse(payload);
    if (!parsed.success) throw new TokenError('TOKEN_FUNCTION_FAILED', 'The token function returned an unexpected payload', { functionName: this.options.functionName });
    if (parsed.data.repositoryIds.length !== 1 || parsed.data.repositoryIds[0] !== request.repositoryId) {
      throw new TokenError('TOKEN_SCOPE_MISMATCH', 'The token function returned a token for another repository', { repositoryIds: parsed.data.repositoryIds });
    }
    return parsed.data;
  }
}
