import { InvokeCommand } from '@aws-sdk/client-lambda';
import { AssumeRoleCommand, type AssumeRoleCommandOutput } from '@aws-sdk/client-sts';
import { invokeJson, type LambdaLike } from '../aws/invoke-json.js';
import { RunSessionError, type WorkerInvocation } from './dispatch-record.js';
import type { RunCredentials, RunCredentialsIssuer } from './create-run-session-handler.js';

/** The dispatcher's way to start the worker: an asynchronous invoke (the worker's retry and dead-letter settings apply). */
export function lambdaWorkerInvoker(client: LambdaLike, functionName: string): (invocation: WorkerInvocation) => Promise<void> {
  return async (invocation) => {
    const out = await client.send(new InvokeCommand({ FunctionName: functionName, InvocationType: 'Event', Payload: Buffer.from(JSON.stringify(invocation)) }));
    if (out.StatusCode !== 202)
      throw new RunSessionError('SESSION_FUNCTION_FAILED', 'The worker invocation was not accepted', { functionName, statusCode: out.StatusCode });
  };
}

/** The worker's way to reach run-session: a synchronous invoke returning the session. */
export function lambdaRunSessionInvoker(client: LambdaLike, functionName: string): (invocation: WorkerInvocation) => Promise<unknown> {
  return (invocation) =>
    invokeJson(client, functionName, invocation, (failure) =>
      failure.kind === 'not-invoked'
        ? new RunSessionError('SESSION_FUNCTION_FAILED', 'run-session could not be invoked', { functionName }, { cause: failure.cause })
        : failure.kind === 'function-error'
          ? new RunSessionError('SESSION_FUNCTION_FAILED', 'run-session refused or failed', {
              functionName,
              errorType: failure.errorType,
              errorMessage: failure.errorMessage,
            })
          : new RunSessionError('SESSION_RESPONSE_INVALID', 'run-session returned no JSON', { functionName }),
    );
}

export interface StsLike {
  send(command: AssumeRoleCommand): Promise<AssumeRoleCommandOutput>;
}

/** RunWorkerRole credentials through `sts:AssumeRole`, with the run's session policy and tags. */
export class StsRunCredentialsIssuer implements RunCredentialsIssuer {
  constructor(private readonly options: { client: StsLike; roleArn: string }) {}

  async issue(input: Parameters<RunCredentialsIssuer['issue']>[0]): Promise<RunCredentials> {
    const out = await this.options.client.send(
      new AssumeRoleCommand({
        RoleArn: this.options.roleArn,
        RoleSessionName: input.sessionName,
        DurationSeconds: input.durationSeconds,
        Policy: input.policy ? JSON.stringify(input.policy) : undefined,
        Tags: input.tags,
      }),
    );
    const c = out.Credentials;
    if (!c?.AccessKeyId || !c.SecretAccessKey || !c.SessionToken || !c.Expiration)
      throw new RunSessionError('SESSION_FUNCTION_FAILED', 'STS returned no credentials', {});
    return { accessKeyId: c.AccessKeyId, secretAccessKey: c.SecretAccessKey, sessionToken: c.SessionToken, expiration: c.Expiration.toISOString() };
  }
}
