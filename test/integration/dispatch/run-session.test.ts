import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3ArtifactStore } from '../../../src/app/aws/s3-artifact-store.js';
import { createDispatcherHandler } from '../../../src/app/dispatch/create-dispatcher-handler.js';
import { createRunSessionHandler, type RunCredentialsIssuer } from '../../../src/app/dispatch/create-run-session-handler.js';
import { capabilityDigest, type WorkerInvocation } from '../../../src/app/dispatch/dispatch-record.js';
import { VendedTokenBroker } from '../../../src/app/dispatch/run-session-client.js';
import { CapturingLogger } from '../../../src/app/logger.js';
import { InProcessTokenBroker } from '../../../src/app/tokens/in-process-token-broker.js';
import { writeArtifact } from '../../../src/core/artifacts/artifact-io.js';
import { runKeys } from '../../../src/core/artifacts/keys.js';
import { RunRequest } from '../../../src/core/runs/run-request.js';
import { STANDIN_GITHUB_POLICY, startGitHubStandin, type GitHubStandin } from '../../helpers/github-standin/index.js';
import { startS3Server, type S3TestServer } from '../../helpers/s3-server.js';

/**
 * The dispatcher and run-session against s3rver and the GitHub stand-in: a capability buys a
 * session for exactly the key it was dispatched for, and the token run-session vends is for the
 * repository the webhook-written request names (the stand-in records every token's
 * installation and repositories), whatever the caller asks.
 */
const START = Date.parse('2026-02-03T04:05:06.000Z');
const X = { owner: 'acme', repo: 'orders', runId: 'abcdefghijkl', repositoryId: 4242, installationId: 7 };
const Y = { owner: 'evil', repo: 'target', runId: 'zyxwvutsrqpo', repositoryId: 999, installationId: 8 };

let s3: S3TestServer;
let standin: GitHubStandin;
let store: S3ArtifactStore;
let now = START;
const clock = { now: () => now };
const issued: Parameters<RunCredentialsIssuer['issue']>[0][] = [];
let bytes = 0;
const invocations: WorkerInvocation[] = [];
let dispatch: ReturnType<typeof createDispatcherHandler>;
let session: ReturnType<typeof createRunSessionHandler>;

function request(run: typeof X, issue = 3): RunRequest {
  return RunRequest.parse({
    schemaVersion: 1,
    runId: run.runId,
    owner: run.owner,
    repo: run.repo,
    source: {
      kind: 'github',
      repositoryId: run.repositoryId,
      installationId: run.installationId,
      cloneUrl: `https://github.com/${run.owner}/${run.repo}.git`,
      apiUrl: 'https://api.github.com',
    },
    trigger: { kind: 'label', key: `label-${issue}-1-2026-02-03T04:05:06Z` },
    issue: { number: issue, title: 'Task', body: 'Do it', updatedAt: '2026-02-03T04:05:06Z' },
    agentBranch: `agent/i${issue}/r${run.runId}`,
    createdAt: '2026-02-03T04:05:06.000Z',
  });
}

const s3Event = (key: string) => ({ Records: [{ eventName: 'ObjectCreated:Put', s3: { object: { key } } }] });

/** Dispatch `key` and return the capability the worker was given. */
async function dispatched(key: string): Promise<string> {
  const before = invocations.length;
  const [outcome] = await dispatch(s3Event(key));
  expect(outcome).toMatchObject({ dispatched: true });
  expect(invocations).toHaveLength(before + 1);
  return invocations[before].capability;
}

beforeAll(async () => {
  s3 = await startS3Server();
  const privateKeyPem = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  }).privateKey;
  standin = await startGitHubStandin({
    appId: 31,
    privateKeyPem,
    clock,
    installations: [
      { id: X.installationId, account: X.owner },
      { id: Y.installationId, account: Y.owner },
    ],
    repos: [
      { owner: X.owner, name: X.repo, id: X.repositoryId, installationId: X.installationId, files: { 'README.md': 'x\n' } },
      { owner: Y.owner, name: Y.repo, id: Y.repositoryId, installationId: Y.installationId, files: { 'README.md': 'y\n' } },
    ],
  });
  store = new S3ArtifactStore({ client: s3.client, bucket: s3.bucket, sleep: async () => {} });
  await writeArtifact(store, runKeys(X.owner, X.repo, X.runId).request, RunRequest, request(X));
  await writeArtifact(store, runKeys(Y.owner, Y.repo, Y.runId).request, RunRequest, request(Y));
  const logger = new CapturingLogger({ clock });
  dispatch = createDispatcherHandler({
    store,
    clock,
    logger,
    random: (size) => Buffer.alloc(size, ++bytes),
    invokeWorker: async (invocation) => void invocations.push(invocation),
  });
  session = createRunSessionHandler({
    store,
    clock,
    logger,
    bucket: s3.bucket,
    credentials: {
      async issue(input) {
        issued.push(input);
        return { accessKeyId: `ASIA${issued.length}`, secretAccessKey: 'secret', sessionToken: 'session', expiration: new Date(now + 1_200_000).toISOString() };
      },
    },
    tokens: new InProcessTokenBroker({
      role: 'read',
      appId: 31,
      apiUrl: standin.url,
      clock,
      loadPrivateKey: async () => privateKeyPem,
      policy: STANDIN_GITHUB_POLICY,
    }),
  });
}, 60_000);

afterAll(async () => {
  await standin?.stop();
  await s3?.stop();
});

describe('dispatcher', () => {
  it('records only the digest of a fresh capability, under the run it dispatches', async () => {
    const key = runKeys(X.owner, X.repo, X.runId).request;
    const capability = await dispatched(key);
    expect(capability).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const objects = (await s3.objects()).filter((o) => o.key.includes('/dispatch/'));
    expect(objects.map((o) => o.key)).toEqual([`runs/acme/orders/abcdefghijkl/dispatch/${capabilityDigest(capability)}.json`]);
    expect(Buffer.from(objects[0].body).toString('utf8')).not.toContain(capability);
  });

  it('dispatches nothing for keys that are not exactly a trigger key', async () => {
    const before = invocations.length;
    for (const key of [
      'runs/acme/orders/attempts/request.json',
      'runs/acme/orders/abcdefghijkl/attempts/1/request.json',
      'runs/acme/orders/abcdefghijkl/attempts/02/request.json',
      'runs/acme/orders/abcdefghijkl/candidate/request.json',
      'runs/acme/orders/x/abcdefghijkl/request.json',
      'runs/ac*me/orders/abcdefghijkl/request.json',
      'runs/acme/orders/ABCDEFGHIJKL/request.json',
      'runs/acme/orders/abcdefghijkl/attempts/2/continue-0.json',
    ]) {
      expect(await dispatch(s3Event(key))).toEqual([{ key, dispatched: false, reason: 'not a trigger key' }]);
    }
    // A well-formed key of a run the webhook never started.
    expect(await dispatch(s3Event('runs/acme/orders/aaaaaaaaaaaa/request.json'))).toEqual([
      { key: 'runs/acme/orders/aaaaaaaaaaaa/request.json', dispatched: false, reason: 'no request.json' },
    ]);
    expect(invocations).toHaveLength(before);
  });
});

describe('run-session', () => {
  it('vends credentials for the dispatched run and a read token for the repository the request names', async () => {
    const key = runKeys(X.owner, X.repo, X.runId).attempt(1).continue(1);
    const capability = await dispatched(key);
    const response = await session({ key, capability });
    expect(response).toMatchObject({ owner: 'acme', repo: 'orders', runId: X.runId, attempt: 1, continuation: 1, installationId: 7, repositoryId: 4242 });
    const minted = standin.state.tokens().at(-1)!;
    expect(minted).toMatchObject({ installationId: 7, repositoryIds: [4242], permissions: expect.objectContaining({ contents: 'read' }) });
    expect(minted.permissions.contents).toBe('read');
    expect(standin.state.tokenValues().at(-1)).toBe(response.token.token);
    const input = issued.at(-1)!;
    expect(input.tags).toEqual([
      { Key: 'owner', Value: 'acme' },
      { Key: 'repo', Value: 'orders' },
      { Key: 'runId', Value: X.runId },
      { Key: 'issue', Value: '3' },
    ]);
    const resources = JSON.stringify(input.policy);
    expect(resources).toContain(`arn:aws:s3:::${s3.bucket}/runs/acme/orders/${X.runId}/*`);
    expect(resources).not.toContain('runs/*');
  });

  it('refuses a wrong capability, one of another run, one of another key of the same run, and malformed requests; no token is minted', async () => {
    const xKey = runKeys(X.owner, X.repo, X.runId).request;
    const yKey = runKeys(Y.owner, Y.repo, Y.runId).request;
    const xCapability = await dispatched(xKey);
    const yCapability = await dispatched(yKey);
    const tokens = standin.state.tokens().length;
    const sessions = issued.length;
    const refused = async (event: unknown, reason: string) => expect(session(event)).rejects.toMatchObject({ reason });
    await refused({ key: xKey, capability: 'A'.repeat(43) }, 'CAPABILITY_INVALID');
    await refused({ key: xKey, capability: yCapability }, 'CAPABILITY_INVALID');
    await refused({ key: runKeys(X.owner, X.repo, X.runId).attempt(2).request, capability: xCapability }, 'CAPABILITY_INVALID');
    await refused({ key: 'runs/acme/orders/attempts/request.json', capability: xCapability }, 'TRIGGER_KEY_INVALID');
    await refused({ key: `runs/acme/orders/${X.runId}/../${X.runId}/request.json`, capability: xCapability }, 'TRIGGER_KEY_INVALID');
    await refused({ key: xKey, capability: xCapability, repositoryId: Y.repositoryId }, 'CAPABILITY_INVALID');
    await refused({ key: xKey }, 'CAPABILITY_INVALID');
    expect(standin.state.tokens()).toHaveLength(tokens);
    expect(issued).toHaveLength(sessions);
    // The right pair still works, and for X's repository only.
    expect(await session({ key: xKey, capability: xCapability })).toMatchObject({ repositoryId: X.repositoryId, installationId: X.installationId });
    expect(await session({ key: yKey, capability: yCapability })).toMatchObject({ repositoryId: Y.repositoryId, installationId: Y.installationId });
  });

  it('refuses an expired capability', async () => {
    const key = runKeys(X.owner, X.repo, X.runId).request;
    const capability = await dispatched(key);
    now += 3 * 3600_000;
    try {
      await expect(session({ key, capability })).rejects.toMatchObject({ reason: 'CAPABILITY_EXPIRED' });
    } finally {
      now = START;
    }
  });

  it('hands the worker its token for its repository only, and never as a write token', async () => {
    const key = runKeys(X.owner, X.repo, X.runId).request;
    const response = await session({ key, capability: await dispatched(key) });
    const broker = new VendedTokenBroker(response);
    await expect(broker.token({ installationId: 7, repositoryId: 4242, role: 'worker' })).resolves.toEqual(response.token);
    await expect(broker.token({ installationId: 8, repositoryId: 999, role: 'worker' })).rejects.toMatchObject({ reason: 'TOKEN_SCOPE_MISMATCH' });
    await expect(broker.token({ installationId: 7, repositoryId: 4242, role: 'read' })).rejects.toMatchObject({ reason: 'ROLE_NOT_ALLOWED' });
    await expect(broker.token({ installationId: 7, repositoryId: 4242, role: 'write' })).rejects.toMatchObject({ reason: 'ROLE_NOT_ALLOWED' });
  });
});
