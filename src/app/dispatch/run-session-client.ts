import type { ArtifactStore, IssuedToken, TokenBroker, TokenRole } from '../../core/ports.js';
import { TokenError } from '../tokens/token-error.js';
import { RunSessionError, type WorkerInvocation } from './dispatch-record.js';
import { RunSessionResponse, type RunCredentials } from './create-run-session-handler.js';

/** What the worker works with: a store reaching its run only, and its run's read token. */
export interface RunSession {
  store: ArtifactStore;
  tokens: TokenBroker;
}

/** The worker's port: trade the dispatcher's `{key, capability}` for a run session. */
export type RunSessionOpener = (invocation: WorkerInvocation) => Promise<RunSession>;

export interface RunSessionOpenerOptions {
  /** Calls run-session (production: a synchronous Lambda invoke) and returns its payload. */
  invoke: (invocation: WorkerInvocation) => Promise<unknown>;
  /** The artifact store for the vended credentials. */
  storeFor: (credentials: RunCredentials) => ArtifactStore;
  /** Told every secret the session carries, before anything can log it. */
  redact?: (value: string) => void;
}

export function runSessionOpener(options: RunSessionOpenerOptions): RunSessionOpener {
  return async (invocation) => {
    const parsed = RunSessionResponse.safeParse(await options.invoke(invocation));
    if (!parsed.success) throw new RunSessionError('SESSION_RESPONSE_INVALID', 'run-session returned an unexpected payload', { key: invocation.key });
    const session = parsed.data;
    for (const secret of [session.credentials.secretAccessKey, session.credentials.sessionToken, session.token.token]) options.redact?.(secret);
    return { store: options.storeFor(session.credentials), tokens: new VendedTokenBroker(session) };
  };
}

/**
 * The token run-session vended, handed out only for the repository and installation it was
 * minted for and only as a worker token (contents read-only, no issues): the worker cannot ask
 * for anything else.
 */
export class VendedTokenBroker implements TokenBroker {
  constructor(private readonly session: Pick<RunSessionResponse, 'installationId' | 'repositoryId' | 'token'>) {}

  async token(request: { installationId: number; repositoryId: number; role: TokenRole }): Promise<IssuedToken> {
    if (request.role !== 'worker')
      throw new TokenError('ROLE_NOT_ALLOWED', 'A worker session holds a worker (read-only) token only', { requested: request.role, allowed: 'worker' });
    if (request.installationId !== this.session.installationId || request.repositoryId !== this.session.repositoryId) {
      throw new TokenError('TOKEN_SCOPE_MISMATCH', "The session's token is for its run's repository only", {
        repositoryId: request.repositoryId,
        installationId: request.installationId,
      });
    }
    return this.session.token;
  }
}
