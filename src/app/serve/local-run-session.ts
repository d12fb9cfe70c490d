import type { ArtifactStore, TokenBroker } from '../../core/ports.js';
import { parseRunTrigger } from '../../core/runs/run-key.js';
import { readTrustedRequest } from '../dispatch/create-dispatcher-handler.js';
import { RunSessionError } from '../dispatch/dispatch-record.js';
import { VendedTokenBroker, type RunSessionOpener } from '../dispatch/run-session-client.js';

/**
 * The worker's run session in one process. The deployment's capability and run-scoped S3
 * credentials have nothing to separate here (one process holds the whole store and the App
 * key); what stays is what decides the run: a trigger key whose webhook-written request.json
 * names the same repository, and a read token for that repository only, handed out through
 * the same VendedTokenBroker the Lambda worker gets.
 */
export function localRunSession(deps: { store: ArtifactStore; readTokens: TokenBroker }): RunSessionOpener {
  return async (invocation) => {
    const trigger = parseRunTrigger(invocation.key);
    if (!trigger) throw new RunSessionError('TRIGGER_KEY_INVALID', 'The key is not a run trigger key', { key: invocation.key.slice(0, 300) });
    const request = await readTrustedRequest(deps.store, trigger);
    if (!request || request.source.kind !== 'github') throw new RunSessionError('RUN_REQUEST_MISSING', 'The run has no request.json', { key: invocation.key });
    const { installationId, repositoryId } = request.source;
    const token = await deps.readTokens.token({ installationId, repositoryId, role: 'worker' });
    return { store: deps.store, tokens: new VendedTokenBroker({ installationId, repositoryId, token }) };
  };
}
