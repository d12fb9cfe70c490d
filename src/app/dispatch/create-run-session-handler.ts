import { z } from 'zod';
import { readArtifactIfPresent } from '../../core/artifacts/artifact-io.js';
import type { ArtifactStore, Clock, Logger, TokenBroker } from '../../core/ports.js';
import { IssuedTokenSchema } from '../tokens/lambda-token-broker.js';
import { readTrustedRequest } from './create-dispatcher-handler.js';
import { DispatchRecord, dispatchKey, RunSessionError, WorkerInvocation } from './dispatch-record.js';
import { bindLogScope } from '../logger.js';
import { parseRunTrigger } from './run-key.js';
import { buildSessionPolicy, sessionTags, type PolicyDocument } from './session-policy.js';

/** Temporary S3 credentials of one run's worker session. */
export const RunCredentials = z
  .object({ accessKeyId: z.string().min(1), secretAccessKey: z.string().min(1), sessionToken: z.string().min(1), expiration: z.string() })
  .strict();
export type RunCredentials = z.infer<typeof RunCredentials>;

/** Mints credentials for RunWorkerRole (production: `sts:AssumeRole`). */
export interface RunCredentialsIssuer {
  issue(input: {
    sessionName: string;
    policy: PolicyDocument | undefined;
    tags: { Key: string; Value: string }[];
    durationSeconds: number;
  }): Promise<RunCredentials>;
}

/** What run-session returns to a worker that presented a valid capability. */
export const RunSessionResponse = z
  .object({
    schemaVersion: z.literal(1),
    owner: z.string(),
    repo: z.string(),
    runId: z.string(),
    attempt: z.number().int().positive(),
    continuation: z.number().int().nonnegative(),
    installationId: z.number().int().positive(),
    repositoryId: z.number().int().positive(),
    credentials: RunCredentials,
    token: IssuedTokenSchema,
  })
  .strict();
export type RunSessionResponse = z.infer<typeof RunSessionResponse>;

/** Longer than one worker invocation (900 s), within the one hour STS allows a chained role. */
export const SESSION_DURATION_SECONDS = 1200;

export interface RunSessionDeps {
  /** Reads request.json and dispatch records only. */
  store: ArtifactStore;
  clock: Clock;
  logger: Logger;
  credentials: RunCredentialsIssuer;
  /** token-read: the only token this function can obtain. */
  tokens: TokenBroker;
  bucket: string;
  partition?: string;
}

/**
 * run-session, the token vending machine: a worker presents the `{key, capability}` the
 * dispatcher gave it; when the capability's digest is recorded for exactly that key and has
 * not expired, it gets S3 credentials scoped to that run and a read token for the repository
 * the webhook-written request names. Nothing the caller says chooses a repository, an
 * installation or a prefix: the key only selects which dispatch record must vouch for it.
 */
export function createRunSessionHandler(deps: RunSessionDeps) {
  return async (event: unknown): Promise<RunSessionResponse> => {
    const invocation = WorkerInvocation.safeParse(event);
    if (!invocation.success) throw new RunSessionError('CAPABILITY_INVALID', 'A session request needs exactly a trigger key and a capability');
    const { key, capability } = invocation.data;
    const trigger = parseRunTrigger(key);
    if (!trigger) throw new RunSessionError('TRIGGER_KEY_INVALID', 'The key is not a run trigger key', { key: key.slice(0, 300) });
    bindLogScope({ runId: trigger.runId, repository: `${trigger.owner}/${trigger.repo}` });

    const record = await readArtifactIfPresent(deps.store, dispatchKey(trigger, capability), DispatchRecord);
    if (!record || record.key !== key) throw new RunSessionError('CAPABILITY_INVALID', 'No dispatch of this key vouches for the capability', { key });
    if (Date.parse(record.expiresAt) <= deps.clock.now())
      throw new RunSessionError('CAPABILITY_EXPIRED', 'The capability has expired', { key, expiresAt: record.expiresAt });

    const request = await readTrustedRequest(deps.store, trigger);
    if (!request || request.source.kind !== 'github') throw new RunSessionError('RUN_REQUEST_MISSING', 'The run has no request.json', { key });
    const scope = { owner: request.owner, repo: request.repo, runId: request.runId, issue: request.issue?.number };
    const policy = buildSessionPolicy(scope, deps.bucket, deps.partition);
    if (!policy) deps.logger.warn('session policy too long for STS; the tag-scoped role alone bounds the session', { owner: scope.owner, repo: scope.repo });

    const credentials = await deps.credentials.issue({
      sessionName: `run-${trigger.runId}-${trigger.attempt}-${trigger.continuation}`,
      policy,
      tags: sessionTags(scope),
      durationSeconds: SESSION_DURATION_SECONDS,
    });
    const { installationId, repositoryId } = request.source;
    const token = await deps.tokens.token({ installationId, repositoryId, role: 'worker' });
    deps.logger.info('run session opened', { key, attempt: trigger.attempt, continuation: trigger.continuation, repositoryId, installationId });
    return RunSessionResponse.parse({
      schemaVersion: 1,
      owner: trigger.owner,
      repo: trigger.repo,
      runId: trigger.runId,
      attempt: trigger.attempt,
      continuation: trigger.continuation,
      installationId,
      repositoryId,
      credentials,
      token,
    });
  };
}
