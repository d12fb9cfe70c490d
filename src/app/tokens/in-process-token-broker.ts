import type { IssuedToken, TokenBroker, TokenRole } from '../../core/ports.js';
import { TokenError } from './mint-installation-token.js';
import { createTokenHandler, type TokenHandlerOptions } from './token-handler.js';
import { servesRole } from './token-scopes.js';

/**
 * A TokenBroker that runs the token functions' code in-process (CLI against a GitHub-like API,
 * tests against the stand-in). Same scopes and checks as the Lambda path; one role per instance.
 */
export class InProcessTokenBroker implements TokenBroker {
  private readonly handler: (event: unknown) => Promise<IssuedToken>;

  constructor(private readonly options: TokenHandlerOptions) {
    this.handler = createTokenHandler(options);
  }

  async token(request: { installationId: number; repositoryId: number; role: TokenRole }): Promise<IssuedToken> {
    if (!servesRole(this.options.role, request.role)) {
      throw new TokenError('ROLE_NOT_ALLOWED', `This broker mints ${this.options.role} tokens only`, { requested: request.role, allowed: this.options.role });
    }
    return this.handler(
      request.role === this.options.role
        ? { installationId: request.installationId, repositoryId: request.repositoryId }
        : { installationId: request.installationId, repositoryId: request.repositoryId, role: request.role },
    );
  }
}
