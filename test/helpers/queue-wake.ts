import { DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { sqsWake } from '../../src/app/aws/sqs-wake.js';
import type { DispatchOutcome } from '../../src/app/dispatch/create-dispatcher-handler.js';
import { startSqsStandin, type SqsStandin } from './sqs-standin.js';

/**
 * The run queue's wake-up queue as deployed (infra/run-queue.yml), on the SQS stand-in with the
 * real client: the EventBridge rule that sends a message for every `run.json` written, the
 * sweeper's sender, and Lambda's SQS event source, which receives a batch, hands it to the
 * dispatcher and deletes it once the dispatcher returned.
 */
export interface WakeQueue {
  sqs: SqsStandin;
  url: string;
  /** The sweeper's sender (src/app/aws/sqs-wake.ts). */
  wake: (reason: string) => Promise<void>;
  /** The EventBridge rule's message for a `run.json` written (its input transformer's shape). */
  runRecordWritten(key: string): Promise<void>;
  /**
   * One batch (up to 10 messages) to `dispatcher`, deleted after; undefined when none was
   * visible. A batch whose pass failed is deleted too and its error kept in `failures` (Lambda
   * would retry it, then drop it: the run stays waiting and the sweeper wakes the queue again).
   */
  deliver(dispatcher: (event: SQSEvent) => Promise<DispatchOutcome[]>): Promise<DispatchOutcome[] | undefined>;
  /** Errors of the passes that failed, oldest first. */
  failures: unknown[];
  close(): Promise<void>;
}

/** `runs/<owner>/<repo>/<runId>/run.json`: what the rule's wildcard `runs/*\/*\/*\/run.json` selects. */
export const RUN_RECORD_KEY = /^runs\/[^/]+\/[^/]+\/[^/]+\/run\.json$/;

export async function startWakeQueue(): Promise<WakeQueue> {
  const sqs = await startSqsStandin();
  const client = new SQSClient({ endpoint: sqs.url, region: 'us-east-1', credentials: { accessKeyId: 'SQSSTANDIN', secretAccessKey: 'SQSSTANDIN' } });
  const url = sqs.queueUrl('draftsman-test-run-queue-wake');
  const failures: unknown[] = [];
  return {
    failures,
    sqs,
    url,
    wake: sqsWake(client, url),
    async runRecordWritten(key) {
      await client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: JSON.stringify({ wake: 'run-record', key }) }));
    },
    async deliver(dispatcher) {
      const { Messages: messages = [] } = await client.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10 }));
      if (messages.length === 0) return undefined;
      const event = {
        Records: messages.map((m) => ({
          messageId: m.MessageId!,
          receiptHandle: m.ReceiptHandle!,
          body: m.Body!,
          attributes: {},
          messageAttributes: {},
          md5OfBody: m.MD5OfBody!,
          eventSource: 'aws:sqs',
          eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:draftsman-test-run-queue-wake',
          awsRegion: 'us-east-1',
        })),
      } as unknown as SQSEvent;
      let outcomes: DispatchOutcome[] = [];
      try {
        outcomes = await dispatcher(event);
      } catch (error) {
        failures.push(error);
      }
      for (const m of messages) await client.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: m.ReceiptHandle! }));
      return outcomes;
    },
    async close() {
      client.destroy();
      await sqs.close();
    },
  };
}
