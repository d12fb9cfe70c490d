import type { HttpClient } from 'isomorphic-git';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpRepoSource } from '../../../src/app/git/http-repo-source.js';
import { scopeCredentials } from '../../../src/app/git/scoped-credentials.js';
import { IngestionError } from '../../../src/core/errors.js';
import { makeBareRepo } from '../../fixtures/make-repo.js';
import { startGitHttpServer, type GitHttpServer } from '../../helpers/git-http-server.js';
import { ingest, removeRoot, tempRoot } from './ingestion-harness.js';

/** Where the git token may travel: only when challenged, only to the URL's origin, never over plain http off loopback. */
const TOKEN = 'ghs_CREDENTIAL0123456789abcdefTOKEN';
let root: string;
let server: GitHttpServer;
let other: GitHttpServer;
let sha: string;

beforeAll(async () => {
  root = tempRoot('http-credentials');
  sha = makeBareRepo(`${root}/app.git`, { 'README.md': '# app\n' }).commit;
  server = await startGitHttpServer({ root, tokens: [TOKEN] });
  other = await startGitHttpServer({ root });
});

afterAll(async () => {
  await server?.stop();
  await other?.stop();
  removeRoot(root);
});

describe('git credentials over HTTP', () => {
  it('sends no Authorization header until the server answers 401', async () => {
    server.requests.length = 0;
    const { run } = await ingest(new HttpRepoSource({ url: `${server.url}/app.git`, token: async () => TOKEN }), { ref: sha });
    expect((await run).baseRef.baseCommitSha).toBe(sha);
    const firstWithAuth = server.requests.findIndex((r) => r.authPresent);
    expect(firstWithAuth).toBeGreaterThan(0);
    expect(server.requests[0]).toMatchObject({ authPresent: false, status: 401 });
    // Every credentialed request follows a challenge of the same request.
    for (const [i, r] of server.requests.entries())
      if (r.authPresent) expect(server.requests[i - 1]).toMatchObject({ path: r.path, authPresent: false, status: 401 });
  });

  it('a redirect to another origin gets no credentials', async () => {
    server.requests.length = 0;
    other.requests.length = 0;
    server.onRequest = (record, res) => {
      res.writeHead(307, { location: `${other.url}${record.path}${record.query ? `?${record.query}` : ''}` }).end();
      return true;
    };
    try {
      const { run } = await ingest(new HttpRepoSource({ url: `${server.url}/app.git`, token: async () => TOKEN }));
      await run.catch(() => undefined);
    } finally {
      server.onRequest = undefined;
    }
    expect(server.requests.some((r) => r.authPresent)).toBe(true);
    expect(other.requests.length).toBeGreaterThan(0);
    expect(other.requests.filter((r) => r.authPresent)).toEqual([]);
  });

  it('the redirect is followed by the wrapper, whatever the client does: same origin keeps credentials, others lose them', async () => {
    const seen: { url: string; authorization?: string; followRedirects?: boolean }[] = [];
    const hops: Record<string, string> = {
      'https://git.test/a': 'https://git.test/b',
      'https://git.test/b': 'https://elsewhere.test/c',
      'https://elsewhere.test/c': 'http://git.test:8080/d',
    };
    const client: HttpClient = {
      request: async (request) => {
        const options = (request as { fetchOptions?: { followRedirects?: boolean } }).fetchOptions;
        seen.push({ url: request.url, authorization: request.headers?.Authorization, followRedirects: options?.followRedirects });
        const location = hops[request.url];
        return {
          url: request.url,
          method: request.method,
          statusCode: location ? 302 : 200,
          statusMessage: '',
          headers: (location ? { location } : {}) as Record<string, string>,
          body: (async function* () {})(),
        };
      },
    };
    await scopeCredentials(client, 'https://git.test/a').request({ url: 'https://git.test/a', method: 'GET', headers: { Authorization: 'Basic secret' } });
    expect(seen).toEqual([
      { url: 'https://git.test/a', authorization: 'Basic secret', followRedirects: false },
      { url: 'https://git.test/b', authorization: 'Basic secret', followRedirects: false },
      { url: 'https://elsewhere.test/c', followRedirects: false },
      { url: 'http://git.test:8080/d', followRedirects: false },
    ]);
  });

  it('refuses a token for plain http to a non-loopback host before any request', async () => {
    let requests = 0;
    const http: HttpClient = {
      request: async () => {
        requests += 1;
        throw new Error('no request may be made');
      },
    };
    const source = new HttpRepoSource({ url: 'http://git.example.invalid/o/app.git', token: async () => TOKEN, http });
    const refused = await source.resolveRef('main').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(IngestionError);
    expect((refused as IngestionError).reason).toBe('CLONE_AUTH_FAILED');
    expect((refused as IngestionError).data).toMatchObject({ insecureTransport: true });
    const { run } = await ingest(source, { ref: sha });
    expect(await run.catch((e: unknown) => (e as IngestionError).reason)).toBe('CLONE_AUTH_FAILED');
    expect(requests).toBe(0);
    expect(JSON.stringify(refused)).not.toContain(TOKEN);
  });
});
