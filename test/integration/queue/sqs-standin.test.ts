import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeleteMessageCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { sqsWake } from '../../../src/app/aws/sqs-wake.js';
import { startSqsStandin, type SqsStandin } from '../../helpers/sqs-standin.js';

/** The run queue's wake-up sender with the real SQS client, against the stand-in that checks both directions with the SDK's own model. */
describe('the SQS stand-in and the wake-up sender', () => {
  let sqs: SqsStandin;
  let client: SQSClient;
  beforeAll(async () => {
    sqs = await startSqsStandin();
    client = new SQSClient({ endpoint: sqs.url, region: 'us-east-1', credentials: { accessKeyId: 'SQSSTANDIN', secretAccessKey: 'SQSSTANDIN' } });
  });
  afterAll(async () => {
    client.destroy();
    await sqs.close();
  });

  it('sends, receives and deletes through the real client with no model violation', async () => {
    const url = sqs.queueUrl('wake');
    await sqsWake(client, url)('sweep');
    await sqsWake(client, url)('sweep');
    const { Messages = [] } = await client.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10 }));
    expect(Messages.map((m) => JSON.parse(m.Body!))).toEqual([{ wake: 'sweep' }, { wake: 'sweep' }]);
    // Received but not deleted: invisible to the next receive.
    expect((await client.send(new ReceiveMessageCommand({ QueueUrl: url }))).Messages).toBeUndefined();
    for (const m of Messages) await client.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: m.ReceiptHandle! }));
    expect(sqs.visible(url)).toBe(0);
    expect(sqs.sent(url)).toHaveLength(2);
    expect(sqs.violations).toEqual([]);
  });

  it.each([
    [
      'a member the model does not have',
      { QueueUrl: 'http://x/1/q', MessageBody: 'b', Urgent: true },
      /SendMessage request \$\.Urgent: not a member of SendMessageRequest/,
    ],
    ['a required member missing', { QueueUrl: 'http://x/1/q' }, /SendMessage request \$\.MessageBody: required by SendMessageRequest/],
    [
      'a member of the wrong type',
      { QueueUrl: 'http://x/1/q', MessageBody: 'b', DelaySeconds: '5' },
      /SendMessage request \$\.DelaySeconds: "5" is not of type 1/,
    ],
  ])('refuses a request with %s, as the model says', async (_name, body, violation) => {
    const before = sqs.violations.length;
    const res = await fetch(`${sqs.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'AmazonSQS.SendMessage', authorization: 'AWS4-HMAC-SHA256 Credential=x' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(400);
    expect(sqs.violations.slice(before).join('\n')).toMatch(violation);
  });
});
