import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MAX_WEBHOOK_BYTES } from '../webhook/receive-webhook.js';

export type WebhookEventHandler = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

/**
 * A plain HTTP request as the API Gateway HTTP API (payload v2) event the webhook function
 * receives: the body travels as base64 of the exact bytes, so the signature is checked over
 * what GitHub sent, by the same code as in the deployment.
 */
export async function toApiGatewayEvent(req: IncomingMessage, path: string, requestId: string, now: number): Promise<APIGatewayProxyEventV2 | 'too-large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.byteLength;
    if (size > MAX_WEBHOOK_BYTES) return 'too-large';
    chunks.push(chunk);
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(',') : value;
  const method = req.method ?? 'POST';
  return {
    version: '2.0',
    routeKey: `${method} ${path}`,
    rawPath: path,
    rawQueryString: '',
    headers,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'local',
      http: { method, path, protocol: `HTTP/${req.httpVersion}`, sourceIp: req.socket.remoteAddress ?? '', userAgent: headers['user-agent'] ?? '' },
      requestId,
      routeKey: `${method} ${path}`,
      stage: '$default',
      time: new Date(now).toISOString(),
      timeEpoch: now,
    },
    body: Buffer.concat(chunks).toString('base64'),
    isBase64Encoded: true,
  };
}

/** Writes the webhook function's answer to the HTTP response. */
export function writeResult(res: ServerResponse, result: APIGatewayProxyStructuredResultV2): void {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  res.writeHead(result.statusCode ?? 200, headers);
  res.end(result.body ?? '');
}

export function writeJson(res: ServerResponse, statusCode: number, body: unknown): void {
  res.writeHead(statusCode, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
