import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Loopback stand-ins for the three AWS APIs the packaged handlers call besides S3, each a real
 * HTTP server speaking the wire protocol the AWS SDK v3 client speaks, so a bundle reaches them
 * through `AWS_ENDPOINT_URL_<SERVICE>` exactly as it reaches AWS:
 *
 * - SSM `GetParameter` (AWS JSON 1.1, `X-Amz-Target: AmazonSSM.GetParameter`)
 * - STS `AssumeRole` (AWS Query: form-encoded request, XML answer)
 * - Lambda `Invoke` (REST JSON: `POST /2015-03-31/functions/<name>/invocations`); a synchronous
 *   invoke runs the named function and answers its result (or `X-Amz-Function-Error` with the
 *   error), an `Event` invoke is accepted with 202 and queued for the test to run.
 */

export interface Endpoint {
  url: string;
  stop(): Promise<void>;
}

async function listen(handler: (req: IncomingMessage, body: Buffer, res: ServerResponse) => Promise<void>): Promise<Endpoint> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      handler(req, Buffer.concat(chunks), res).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(error instanceof Error ? error.message : String(error));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Every AWS API call must be SigV4-signed; an unsigned one is a configuration fault in the bundle. */
function signedBy(req: IncomingMessage): string | undefined {
  return /^AWS4-HMAC-SHA256 Credential=([^/]+)\//.exec(req.headers.authorization ?? '')?.[1];
}

export interface SsmCall {
  name: string;
  withDecryption: boolean;
  accessKeyId: string | undefined;
}

/** SSM Parameter Store with SecureString parameters `parameters` (name -> value). */
export async function startSsmStandin(parameters: Record<string, string>): Promise<Endpoint & { calls: SsmCall[] }> {
  const calls: SsmCall[] = [];
  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
    res.end(JSON.stringify(body));
  };
  const endpoint = await listen(async (req, body, res) => {
    const accessKeyId = signedBy(req);
    if (!accessKeyId) return json(res, 400, { __type: 'MissingAuthenticationTokenException', message: 'Missing Authentication Token' });
    if (req.method !== 'POST' || req.headers['x-amz-target'] !== 'AmazonSSM.GetParameter') {
      return json(res, 400, { __type: 'UnknownOperationException', message: `unsupported target ${String(req.headers['x-amz-target'])}` });
    }
    const input = JSON.parse(body.toString('utf8')) as { Name?: string; WithDecryption?: boolean };
    const name = input.Name ?? '';
    calls.push({ name, withDecryption: input.WithDecryption === true, accessKeyId });
    const value = parameters[name];
    if (value === undefined) return json(res, 400, { __type: 'ParameterNotFound', message: `Parameter ${name} not found.` });
    // A SecureString read without decryption answers the ciphertext, as SSM does.
    const shown = input.WithDecryption ? value : Buffer.from(`kms:${name}`).toString('base64');
    json(res, 200, {
      Parameter: {
        Name: name,
        Type: 'SecureString',
        Value: shown,
        Version: 1,
        LastModifiedDate: 1_767_225_600,
        ARN: `arn:aws:ssm:us-east-1:123456789012:parameter${name}`,
        DataType: 'text',
      },
    });
  });
  return { ...endpoint, calls };
}

export interface AssumeRoleCall {
  roleArn: string;
  sessionName: string;
  durationSeconds: number;
  policy: unknown;
  tags: Record<string, string>;
}

/**
 * STS `AssumeRole`, answering `credentials` (the keys the S3 stand-in accepts) with a fresh
 * session token per call. Records the session policy and tags run-session asked for.
 */
export async function startStsStandin(options: {
  credentials: { accessKeyId: string; secretAccessKey: string };
  now: () => number;
}): Promise<Endpoint & { calls: AssumeRoleCall[] }> {
  const calls: AssumeRoleCall[] = [];
  const xml = (res: ServerResponse, status: number, text: string) => {
    res.writeHead(status, { 'content-type': 'text/xml' });
    res.end(`<?xml version="1.0" encoding="UTF-8"?>\n${text}`);
  };
  const endpoint = await listen(async (req, body, res) => {
    const form = new URLSearchParams(body.toString('utf8'));
    if (!signedBy(req))
      return xml(
        res,
        403,
        '<ErrorResponse><Error><Type>Sender</Type><Code>MissingAuthenticationToken</Code><Message>Request is missing Authentication Token</Message></Error></ErrorResponse>',
      );
    if (form.get('Action') !== 'AssumeRole') {
      return xml(
        res,
        400,
        `<ErrorResponse><Error><Type>Sender</Type><Code>InvalidAction</Code><Message>unsupported action ${String(form.get('Action'))}</Message></Error></ErrorResponse>`,
      );
    }
    const tags: Record<string, string> = {};
    for (let i = 1; form.has(`Tags.member.${i}.Key`); i++) tags[form.get(`Tags.member.${i}.Key`)!] = form.get(`Tags.member.${i}.Value`) ?? '';
    const durationSeconds = Number(form.get('DurationSeconds') ?? 3600);
    const policy = form.get('Policy');
    const call: AssumeRoleCall = {
      roleArn: form.get('RoleArn') ?? '',
      sessionName: form.get('RoleSessionName') ?? '',
      durationSeconds,
      policy: policy ? JSON.parse(policy) : undefined,
      tags,
    };
    calls.push(call);
    const expiration = new Date(options.now() + durationSeconds * 1000).toISOString();
    const roleName = call.roleArn.split('/').pop() ?? 'role';
    xml(
      res,
      200,
      `<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleResult>` +
        `<Credentials><AccessKeyId>${options.credentials.accessKeyId}</AccessKeyId><SecretAccessKey>${options.credentials.secretAccessKey}</SecretAccessKey>` +
        `<SessionToken>standin-session-token-${calls.length}</SessionToken><Expiration>${expiration}</Expiration></Credentials>` +
        `<AssumedRoleUser><Arn>arn:aws:sts::123456789012:assumed-role/${roleName}/${call.sessionName}</Arn><AssumedRoleId>AROASTANDIN:${call.sessionName}</AssumedRoleId></AssumedRoleUser>` +
        `<PackedPolicySize>10</PackedPolicySize></AssumeRoleResult><ResponseMetadata><RequestId>sts-${calls.length}</RequestId></ResponseMetadata></AssumeRoleResponse>`,
    );
  });
  return { ...endpoint, calls };
}

/** A GetFunctionConfiguration answer (the `FunctionConfiguration` shape of Lambda's model). */
export function functionConfiguration(name: string, variables: Record<string, string>): Record<string, unknown> {
  return {
    FunctionName: name,
    FunctionArn: `arn:aws:lambda:us-east-1:123456789012:function:${name}`,
    Runtime: 'nodejs20.x',
    Handler: 'index.handler',
    MemorySize: 256,
    Timeout: 15,
    LastModified: '2026-12-01T00:00:00.000+0000',
    Version: '$LATEST',
    State: 'Active',
    Environment: { Variables: variables },
  };
}

/** GetFunctionConfiguration: the function's settings, its environment among them. */
function answerConfiguration(
  name: string,
  environments: Record<string, Record<string, string>>,
  res: ServerResponse,
  error: (status: number, type: string, message: string) => void,
): void {
  const variables = environments[name];
  if (!variables) return error(404, 'ResourceNotFoundException', `Function not found: arn:aws:lambda:us-east-1:123456789012:function:${name}`);
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(functionConfiguration(name, variables)));
}

/** What a function's process answers to one invocation. */
export type InvokeOutcome = { ok: true; result: unknown } | { ok: false; errorType: string; errorMessage: string };

export interface LambdaInvocation {
  functionName: string;
  type: 'RequestResponse' | 'Event';
  payload: unknown;
  accessKeyId: string | undefined;
  /** The caller's session token (which credentials, hence which function, made the call). */
  sessionToken: string | undefined;
}

/**
 * The Lambda `Invoke` API in front of `functions` (function name -> how to run it). Synchronous
 * invocations run at once; `Event` invocations are only queued (`queued`), as Lambda's async
 * queue holds them, until the test runs them.
 */
export async function startLambdaStandin(
  functions: Record<string, (payload: unknown) => Promise<InvokeOutcome>>,
  options: { environments?: Record<string, Record<string, string>> } = {},
): Promise<Endpoint & { calls: LambdaInvocation[]; queued: LambdaInvocation[] }> {
  const calls: LambdaInvocation[] = [];
  const queued: LambdaInvocation[] = [];
  const route = /^POST \/2015-03-31\/functions\/([^/]+)\/invocations$/;
  const configurationRoute = /^GET \/2015-03-31\/functions\/([^/]+)\/configuration$/;
  const endpoint = await listen(async (req, body, res) => {
    const error = (status: number, type: string, message: string) => {
      res.writeHead(status, { 'content-type': 'application/json', 'x-amzn-errortype': type });
      res.end(JSON.stringify({ Type: 'User', message }));
    };
    const accessKeyId = signedBy(req);
    if (!accessKeyId) return error(403, 'MissingAuthenticationTokenException', 'Missing Authentication Token');
    const path = `${req.method} ${new URL(req.url ?? '/', 'http://x').pathname}`;
    const configuration = configurationRoute.exec(path);
    if (configuration) return answerConfiguration(decodeURIComponent(configuration[1]), options.environments ?? {}, res, error);
    const match = route.exec(path);
    if (!match) return error(404, 'UnknownOperationException', `no route for ${req.method} ${req.url}`);
    // FunctionName may be a name or an ARN (`...:function:<name>[:qualifier]`).
    const requested = decodeURIComponent(match[1]);
    const functionName = requested.startsWith('arn:') ? (requested.split(':')[6] ?? '') : requested;
    const run = functions[functionName];
    if (!run) return error(404, 'ResourceNotFoundException', `Function not found: ${requested}`);
    const typeHeader = String(req.headers['x-amz-invocation-type'] ?? 'RequestResponse');
    if (typeHeader !== 'RequestResponse' && typeHeader !== 'Event')
      return error(400, 'InvalidParameterValueException', `unsupported invocation type ${typeHeader}`);
    let payload: unknown;
    try {
      payload = body.length > 0 ? JSON.parse(body.toString('utf8')) : {};
    } catch {
      return error(400, 'InvalidRequestContentException', 'Could not parse request body into json');
    }
    const invocation: LambdaInvocation = {
      functionName,
      type: typeHeader,
      payload,
      accessKeyId,
      sessionToken: req.headers['x-amz-security-token'] as string | undefined,
    };
    calls.push(invocation);
    if (typeHeader === 'Event') {
      queued.push(invocation);
      res.writeHead(202, { 'x-amzn-requestid': `invoke-${calls.length}` });
      return void res.end();
    }
    const outcome = await run(payload);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'x-amz-executed-version': '$LATEST',
      'x-amzn-requestid': `invoke-${calls.length}`,
    };
    if (!outcome.ok) headers['x-amz-function-error'] = 'Unhandled';
    res.writeHead(200, headers);
    res.end(JSON.stringify(outcome.ok ? (outcome.result ?? null) : { errorType: outcome.errorType, errorMessage: outcome.errorMessage }));
  });
  return { ...endpoint, calls, queued };
}
