import type { LambdaLike } from '../../src/app/aws/invoke-json.js';

/** A Lambda client that runs `handler` on the JSON payload, as a synchronous invocation would (a throw is a FunctionError). */
export function lambdaOf(handler: (event: unknown) => Promise<unknown>): LambdaLike {
  return {
    send: async (command) => {
      const event = JSON.parse(Buffer.from(command.input.Payload as Uint8Array).toString('utf8'));
      try {
        return { $metadata: {}, Payload: Buffer.from(JSON.stringify(await handler(event))) } as never;
      } catch (error) {
        return {
          $metadata: {},
          FunctionError: 'Unhandled',
          Payload: Buffer.from(JSON.stringify({ errorType: 'Error', errorMessage: String(error) })),
        } as never;
      }
    },
  };
}
