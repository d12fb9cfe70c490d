import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as sqs from '@aws-sdk/client-sqs';
import { checkShape, operationShapes, type SdkModel } from './aws-model/model-check.js';

/**
 * Amazon SQS on loopback: the JSON 1.0 protocol the real `@aws-sdk/client-sqs` speaks
 * (`X-Amz-Target: AmazonSQS.<Operation>`), SendMessage, ReceiveMessage and DeleteMessage on
 * standard queues. Every request and every response is checked against the SDK's own model
 * shapes (aws-model/model-check.ts, given the SQS client's schemas); a mismatch is
 * recorded in `violations` and answered 400. A received message stays invisible until it is
 * deleted (no visibility timeout: the consumer deletes what it handled). MD5 digests are computed
 * as SQS does, so the SDK's body checksum holds.
 */
export interface SqsStandin {
  /** The endpoint (`AWS_ENDPOINT_URL_SQS`, or the client's `endpoint`). */
  url: string;
  /** A queue URL of this stand-in for `name` (every name is a queue). */
  queueUrl(name: string): string;
  /** Requests and responses that did not match the SDK's model. */
  violations: string[];
  /** Messages sent so far, per queue URL, oldest first (bodies). */
  sent(queueUrl: string): string[];
  /** Messages waiting (visible) in a queue. */
  visible(queueUrl: string): number;
  close(): Promise<void>;
}

interface StoredMessage {
  id: string;
  body: string;
  receipt?: string;
}

const ACCOUNT = '123456789012';

export async function startSqsStandin(): Promise<SqsStandin> {
  const queues = new Map<string, StoredMessage[]>();
  const history = new Map<string, string[]>();
  const violations: string[] = [];
  let n = 0;
  const queue = (url: string) => {
    const name = new URL(url).pathname;
    if (!queues.has(name)) queues.set(name, []);
    return queues.get(name)!;
  };
  const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

  const operations: Record<string, (input: Record<string, unknown>) => Record<string, unknown>> = {
    SendMessage(input) {
      const id = `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
      const body = String(input.MessageBody);
      queue(String(input.QueueUrl)).push({ id, body });
      const name = new URL(String(input.QueueUrl)).pathname;
      history.set(name, [...(history.get(name) ?? []), body]);
      return { MessageId: id, MD5OfMessageBody: md5(body) };
    },
    ReceiveMessage(input) {
      const max = Number(input.MaxNumberOfMessages ?? 1);
      const taken = queue(String(input.QueueUrl))
        .filter((m) => m.receipt === undefined)
        .slice(0, max);
      for (const m of taken) m.receipt = `receipt-${m.id}-${++n}`;
      return taken.length === 0 ? {} : { Messages: taken.map((m) => ({ MessageId: m.id, ReceiptHandle: m.receipt, MD5OfBody: md5(m.body), Body: m.body })) };
    },
    DeleteMessage(input) {
      const list = queue(String(input.QueueUrl));
      const i = list.findIndex((m) => m.receipt === input.ReceiptHandle);
      if (i >= 0) list.splice(i, 1);
      return {};
    },
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const target = String(req.headers['x-amz-target'] ?? '');
      const operation = target.startsWith('AmazonSQS.') ? target.slice('AmazonSQS.'.length) : '';
      const answer = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' });
        res.end(JSON.stringify(body));
      };
      const handler = operations[operation];
      if (
        req.method !== 'POST' ||
        !handler ||
        req.headers['content-type'] !== 'application/x-amz-json-1.0' ||
        !String(req.headers.authorization ?? '').startsWith('AWS4-HMAC-SHA256')
      ) {
        violations.push(`unexpected request ${req.method} ${target} ${String(req.headers['content-type'])}`);
        return answer(400, { __type: 'com.amazonaws.sqs#InvalidAddress', message: 'unsupported request' });
      }
      const shapes = operationShapes(sqs as SdkModel, operation);
      const input = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      const inputErrors = checkShape(shapes.input, input);
      if (inputErrors.length > 0) {
        violations.push(...inputErrors.map((e) => `${operation} request ${e}`));
        return answer(400, { __type: 'com.amazonaws.sqs#InvalidParameterValue', message: inputErrors.join('; ') });
      }
      const output = handler(input);
      violations.push(...checkShape(shapes.output, output).map((e) => `${operation} response ${e}`));
      answer(200, output);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    queueUrl: (name) => `${url}/${ACCOUNT}/${name}`,
    violations,
    sent: (queueUrl) => [...(history.get(new URL(queueUrl).pathname) ?? [])],
    visible: (queueUrl) => queue(queueUrl).filter((m) => m.receipt === undefined).length,
    close: () => new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
}
