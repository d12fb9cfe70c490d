import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createCommentOnce, createOnce } from '../../../src/app/github/create-once.js';
import { createGitHubApi, type GitHubApi } from '../../../src/app/github/github-api.js';
import { GitHubApiError } from '../../../src/app/github/github-api-error.js';
import { InProcessTokenBroker } from '../../../src/app/tokens/in-process-token-broker.js';
import { STANDIN_GITHUB_POLICY, startGitHubStandin, type GitHubStandin } from '../../helpers/github-standin/index.js';
import { fixedClock, testAppKey } from './standin-fixture.js';

/**
 * createOnce and createCommentOnce (src/app/github/create-once.ts) against the stand-in: a POST
 * GitHub carried out but whose answer was lost is found, not repeated; one GitHub did not carry
 * out is sent again; a refusal is never repeated; a marker in someone else's comment counts for
 * nothing.
 */
const APP_ID = 905;
const keys = testAppKey();
const clock = fixedClock();
const BOT = 'draftsman[bot]';
const COMMENTS = /^\/repos\/acme\/orders\/issues\/\d+\/comments$/;
const isCommentPost = (r: { method: string; path: string }) => r.method === 'POST' && COMMENTS.test(r.path);

let standin: GitHubStandin;
let api: GitHubApi;

beforeAll(async () => {
  standin = await startGitHubStandin({
    appId: APP_ID,
    privateKeyPem: keys.privateKeyPem,
    clock,
    users: ['maya'],
    repos: [
      {
        owner: 'acme',
        name: 'orders',
        id: 412,
        files: { 'README.md': '# orders\n' },
        issues: [1, 2, 3, 4, 5].map((number) => ({ number, title: `issue ${number}`, user: 'maya' })),
      },
    ],
  });
  const broker = new InProcessTokenBroker({
    role: 'write',
    appId: APP_ID,
    apiUrl: standin.url,
    clock,
    loadPrivateKey: async () => keys.privateKeyPem,
    policy: STANDIN_GITHUB_POLICY,
  });
  const token = (await broker.token({ installationId: standin.repo('acme/orders').installationId, repositoryId: 412, role: 'write' })).token;
  api = createGitHubApi({ token, baseUrl: standin.url, policy: STANDIN_GITHUB_POLICY });
}, 30_000);

afterAll(async () => standin?.stop());
afterEach(() => standin.faults.clear());

const commentsOn = (issue: number) => [...standin.repo('acme/orders').comments.values()].filter((c) => c.issueNumber === issue);
const postsOn = (issue: number) => standin.calls.filter((c) => c.method === 'POST' && c.path === `/repos/acme/orders/issues/${issue}/comments`);
const comment = (issue: number, marker: string) => ({ owner: 'acme', repo: 'orders', issue, body: `${marker}\nhello`, marker, botLogin: BOT });

describe('createCommentOnce', () => {
  it('finds the comment GitHub created when the answer was lost, and posts once', async () => {
    standin.faults.inject({ kind: 'lost-answer', count: 1, match: isCommentPost });
    const created = await createCommentOnce(api, comment(1, '<!-- t:lost -->'));
    expect(commentsOn(1)).toHaveLength(1);
    expect(created.id).toBe(commentsOn(1)[0].id);
    expect(postsOn(1)).toHaveLength(1);
  });

  it('posts again when GitHub did not carry out the first POST', async () => {
    standin.faults.inject({ kind: '502', count: 2, match: isCommentPost });
    await createCommentOnce(api, comment(2, '<!-- t:502 -->'));
    expect(commentsOn(2)).toHaveLength(1);
    expect(postsOn(2)).toHaveLength(3);
  });

  it("does not take someone else's comment with the marker for its own", async () => {
    const repo = standin.repo('acme/orders');
    const maya = standin.state.users.get('maya')!;
    repo.comments.set(880_001, { id: 880_001, issueNumber: 3, body: '<!-- t:forged -->', user: maya, createdAt: clock.now(), updatedAt: clock.now() });
    standin.faults.inject({ kind: '502', count: 1, match: isCommentPost });
    await createCommentOnce(api, comment(3, '<!-- t:forged -->'));
    expect(commentsOn(3).filter((c) => c.user.login === BOT)).toHaveLength(1);
  });

  it('gives up after the policy’s retries when nothing was created, with the last failure', async () => {
    standin.faults.inject({ kind: '502', count: 100, match: isCommentPost });
    await expect(createCommentOnce(api, comment(4, '<!-- t:down -->'))).rejects.toMatchObject({ status: 502 });
    expect(commentsOn(4)).toHaveLength(0);
    // The first try and three more (DEFAULT_GITHUB_RETRY_POLICY.retries), none by the retry plugin.
    expect(postsOn(4)).toHaveLength(4);
  });

  it('refuses a body without its marker', async () => {
    await expect(createCommentOnce(api, { ...comment(5, '<!-- t:x -->'), body: 'no marker' })).rejects.toThrow('marker');
  });
});

describe('createOnce', () => {
  it('never repeats a refusal or a rate limit, and never looks them up', async () => {
    let finds = 0;
    const refusal = Object.assign(new Error('Validation Failed'), { status: 422 });
    await expect(createOnce(api, { create: () => Promise.reject(refusal), find: async () => (finds++, 'x') })).rejects.toBe(refusal);
    const limited = new GitHubApiError('GITHUB_RATE_LIMITED', 'limited', { status: 403, retryAfterSeconds: 600 });
    await expect(createOnce(api, { create: () => Promise.reject(limited), find: async () => (finds++, 'x') })).rejects.toBe(limited);
    expect(finds).toBe(0);
  });

  it('treats a network failure as a possibly lost answer', async () => {
    let tries = 0;
    const found = await createOnce(api, {
      // What undici throws for a reset connection: the reset is its cause.
      create: () => (tries++, Promise.reject(new TypeError('fetch failed', { cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }) }))),
      find: async () => (tries >= 2 ? 'found' : undefined),
    });
    expect({ found, tries }).toEqual({ found: 'found', tries: 2 });
  });
});
