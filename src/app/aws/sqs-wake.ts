import { SendMessageCommand, type SendMessageCommandOutput } from '@aws-sdk/client-sqs';

export interface SqsLike {
  send(command: SendMessageCommand): Promise<SendMessageCommandOutput>;
}

/**
 * Wakes the dispatcher's admission pass through the run queue's wake-up queue (serverless.yml
 * `RunQueueWake`). The message carries no authority: the pass decides everything from the
 * store, so a forged or repeated wake-up only costs one pass.
 */
export function sqsWake(client: SqsLike, queueUrl: string): (reason: string) => Promise<void> {
  return async (reason) => {
    await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify({ wake: reason.slice(0, 100) }) }));
  };
}
