import { withLogScope } from '../logger.js';

/** The part of the Lambda context the log scope reads. */
export interface LambdaContextLike {
  awsRequestId?: string;
}

/**
 * Wrap a Lambda handler so that every line logged during an invocation carries `awsRequestId`
 * and `coldStart` (true on the first invocation of this container only). Built once per module,
 * at cold start, like the handler it wraps.
 */
export function withInvocationLogging<E, C extends LambdaContextLike | undefined, R>(
  handler: (event: E, context: C) => Promise<R>,
): (event: E, context: C) => Promise<R> {
  let coldStart = true;
  return (event, context) => {
    const bindings = { awsRequestId: context?.awsRequestId, coldStart };
    coldStart = false;
    return withLogScope(bindings, () => handler(event, context));
  };
}
