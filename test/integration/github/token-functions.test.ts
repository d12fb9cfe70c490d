import { LambdaClient } from '@aws-sdk/client-lambda';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LambdaTokenBroker } from '../../../src/app/tokens/lambda-token-broker.js';
import { TokenError } from '../../../src/app/tokens/mint-installation-token.js';
import { createTokenHandler } from '../../../src/app/tokens/token-handler.js';
import { TOKEN_SCOPES } from '../../../src/app/tokens/token-scopes.js';
import type { IssuedToken } from '../../../src/core/ports.js';
import { startGitHubStandin, type GitHubStandin } from '../../helpers/github-standin/index.js';
import { testAppKey } from './standin-fixture.js';

const keys = testAppKey();
let standin: GitHubStandin;
let ssm: Server;
let lambda: Server;
const ssmRequests: { target: string; body: { Name?: string; WithDecryption?: boolean } }[] = [];
const invocations: { functionName: string; payload: unknown }[] = [];

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

async function readBody(req: import('node:http').IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString();
}

beforeAll(async () => {
  standin = await startGitHubStandin({
    appId: 31,
    privateKeyPem: keys.privateKeyPem,
    repos: [{ owner: 'acme', name: 'widgets', id: 11, files: { 'a.txt': 'a\n' } }],
  });
  // SSM's JSON protocol, on loopback: GetParameter answers the key for one parameter name.
  ssm = createServer(async (req, res) => {
    const body = JSON.parse(await readBody(req)) as { Name?: string; WithDecryption?: boolean };
    ssmRequests.push({ target: String(req.headers['x-amz-target']), body });
    res.writeHead(body.Name === '/draftsman/app-key' ? 200 : 400, { 'content-type': 'application/x-amz-json-1.1' });
    res.end(
      JSON.stringify(
        body.Name === '/draftsman/app-key'
          ? { Parameter: { Name: body.Name, Type: 'SecureString', Value: keys.privateKeyPem, Version: 1 } }
          : { __type: 'ParameterNotFound', message: 'not found' },
      ),
    );
  });
  // Lambda's Invoke API, on loopback, running the token functions' factory for each role.
  const functions: Record<string, (e: unknown) => Promise<IssuedToken>> = {
    'token-read': createTokenHandler({
      role: 'read',
      appId: 31,
      apiUrl: standin.url,
      clock: { now: () => Date.now() },
      loadPrivateKey: async () => keys.privateKeyPem,
    }),
    'token-write': createTokenHandler({
      role: 'write',
      appId: 31,
      apiUrl: standin.url,
      clock: { now: () => Date.now() },
      loadPrivateKey: async () => keys.privateKeyPem,
    }),
  };
  lambda = createServer(async (req, res) => {
    const name = decodeURIComponent(/^\/2015-03-31\/functions\/([^/]+)\/invocations/.exec(req.url ?? '')?.[1] ?? '');
    const payload = JSON.parse(await readBody(req)) as unknown;
    invocations.push({ functionName: name, payload });
    try {
      const out = await functions[name](payload);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(out));
    } catch (error) {
      res.writeHead(200, { 'content-type': 'application/json', 'x-amz-function-error': 'Unhandled' });
      res.end(JSON.stringify({ errorType: (error as Error).name, errorMessage: (error as Error).message, trace: [] }));
    }
  });
  const [ssmUrl] = await Promise.all([listen(ssm), listen(lambda)]);
  vi.stubEnv('GITHUB_APP_ID', '31');
  vi.stubEnv('GITHUB_API_URL', standin.url);
  vi.stubEnv('APP_PRIVATE_KEY_PARAMETER', '/draftsman/app-key');
  vi.stubEnv('AWS_REGION', 'eu-west-1');
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'test');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'test');
  vi.stubEnv('AWS_ENDPOINT_URL_SSM', ssmUrl);
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await Promise.all([standin.stop(), new Promise((r) => ssm.close(r)), new Promise((r) => lambda.close(r))]);
});

describe('token-read and token-write handlers', () => {
  it('read the key from SSM (decrypted, by name) once per cold start and mint one-repository tokens with fixed scopes', async () => {
    vi.resetModules();
    const read = await import('../../../src/handlers/token-read.js');
    const a = await read.handler({ installationId: 1, repositoryId: 11 });
    const b = await read.handler({ installationId: 1, repositoryId: 11 });
    expect(ssmRequests).toEqual([{ target: 'AmazonSSM.GetParameter', body: { Name: '/draftsman/app-key', WithDecryption: true } }]);
    expect([a.repositoryIds, b.repositoryIds]).toEqual([[11], [11]]);
    expect(a.permissions).toEqual(TOKEN_SCOPES.read);

    const write = await import('../../../src/handlers/token-write.js');
    const w = await write.handler({ installationId: 1, repositoryId: 11 });
    expect(w.permissions).toEqual({ ...TOKEN_SCOPES.write, metadata: 'read' });
    expect(ssmRequests).toHaveLength(2);
    await expect(write.handler({ installationId: 1, repositoryId: 11, role: 'read' })).rejects.toMatchObject({ reason: 'ROLE_NOT_ALLOWED' });
  });
});

describe('LambdaTokenBroker over the Lambda Invoke API', () => {
  const client = () =>
    new LambdaClient({
      endpoint: lambda ? `http://127.0.0.1:${(lambda.address() as AddressInfo).port}` : '',
      region: 'eu-west-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });

  it('invokes its one function with only the installation and repository, and refuses the other role', async () => {
    const broker = new LambdaTokenBroker({ client: client(), functionName: 'token-read', role: 'read' });
    const issued = await broker.token({ installationId: 1, repositoryId: 11, role: 'read' });
    expect(issued).toMatchObject({ repositoryIds: [11], permissions: TOKEN_SCOPES.read });
    expect(invocations.at(-1)).toEqual({ functionName: 'token-read', payload: { installationId: 1, repositoryId: 11 } });
    const before = invocations.length;
    await expect(broker.token({ installationId: 1, repositoryId: 11, role: 'write' })).rejects.toMatchObject({ reason: 'ROLE_NOT_ALLOWED' });
    expect(invocations.length).toBe(before);
  });

  it('turns a function error into TOKEN_FUNCTION_FAILED with the error type', async () => {
    const broker = new LambdaTokenBroker({ client: client(), functionName: 'token-write', role: 'write' });
    const error = await broker.token({ installationId: 1, repositoryId: 999, role: 'write' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenError);
    expect(error).toMatchObject({ reason: 'TOKEN_FUNCTION_FAILED', data: { functionName: 'token-write', errorType: 'TokenError' } });
  });
});
