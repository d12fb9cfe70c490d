import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { evaluate, type Decision, type Statement } from '../iam-policy.js';

/**
 * S3 as the deployed stack sees it: in front of the S3 stand-in, every request is authorised
 * for the caller's credentials (found by their session token) against the policies those
 * credentials carry — a function's execution role from infra/roles.yml, or RunWorkerRole plus
 * run-session's session policy and tags for a worker session — and refused with S3's 403
 * AccessDenied when IAM would refuse it. Allowed requests go through unchanged (the Host header
 * is kept, so the signature still matches).
 */

export interface Principal {
  name: string;
  layers: Statement[][];
  tags?: Record<string, string>;
}

export interface S3Authorization {
  principal: string;
  action: string;
  key: string;
  decision: Decision;
}

export async function startIamS3Proxy(options: { target: string; bucket: string; principalOf: (sessionToken: string | undefined) => Principal | undefined }) {
  const log: S3Authorization[] = [];
  const target = new URL(options.target);
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://s3');
    const [, bucket = '', ...rest] = url.pathname.split('/');
    const key = decodeURIComponent(rest.join('/'));
    const listing = key === '' && req.method === 'GET';
    const action = listing
      ? 's3:ListBucket'
      : (({ GET: 's3:GetObject', HEAD: 's3:GetObject', PUT: 's3:PutObject', DELETE: 's3:DeleteObject' } as Record<string, string>)[req.method ?? ''] ??
        `s3:${req.method}`);
    const resource = listing ? `arn:aws:s3:::${bucket}` : `arn:aws:s3:::${bucket}/${key}`;
    const principal = options.principalOf(req.headers['x-amz-security-token'] as string | undefined);
    const context = listing ? { 's3:prefix': url.searchParams.get('prefix') ?? '' } : undefined;
    const decision: Decision = principal ? evaluate(principal.layers, { action, resource, context }, principal.tags ?? {}) : 'implicit-deny';
    log.push({ principal: principal?.name ?? 'unknown', action, key: listing ? `${context?.['s3:prefix']}*` : key, decision });
    if (decision !== 'allow' || bucket !== options.bucket) {
      req.resume();
      res.writeHead(403, { 'content-type': 'application/xml' });
      res.end(
        `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>Access Denied</Message><RequestId>iam-proxy</RequestId></Error>`,
      );
      return;
    }
    const upstream = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', (error) => {
      if (!res.headersSent) res.writeHead(502);
      res.end(error.message);
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    /** Every authorisation decision, oldest first. */
    log,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
