import { InvokeCommand, type InvokeCommandOutput } from '@aws-sdk/client-lambda';

/** The subset of LambdaClient the invokers use. */
export interface LambdaLike {
  send(command: InvokeCommand): Promise<InvokeCommandOutput>;
}

/** Why a synchronous invocation gave no usable answer: the callers turn it into their own coded error. */
export type InvokeFailure =
  { kind: 'not-invoked'; cause: unknown } | { kind: 'function-error'; errorType?: string; errorMessage?: string } | { kind: 'not-json' };

/**
 * Invoke a function synchronously with a JSON payload and parse its JSON answer. Lambda reports
 * a thrown error as `FunctionError` with `{errorType, errorMessage, trace}`; only the first two
 * are kept (our functions' errors never carry secrets). `fail` builds the caller's error.
 */
export async function invokeJson(client: LambdaLike, functionName: string, payload: unknown, fail: (failure: InvokeFailure) => Error): Promise<unknown> {
  let out: InvokeCommandOutput;
  try {
    out = await client.send(
      new InvokeCommand({ FunctionName: functionName, InvocationType: 'RequestResponse', Payload: Buffer.from(JSON.stringify(payload)) }),
    );
  } catch (error) {
    throw fail({ kind: 'not-invoked', cause: error });
  }
  const text = out.Payload ? Buffer.from(out.Payload).toString('utf8') : '';
  if (out.FunctionError) {
    const detail = parseOrUndefined(text) as { errorType?: string; errorMessage?: string } | undefined;
    throw fail({ kind: 'function-error', errorType: detail?.errorType, errorMessage: detail?.errorMessage });
  }
  const answer = parseOrUndefined(text);
  if (answer === undefined) throw fail({ kind: 'not-json' });
  return answer;
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
