import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lambdaRepositoryResolver } from '../../../src/app/campaign/lambda-repository-resolver.js';
import { lookupRepository, RepositoryLookupEvent } from '../../../src/app/tokens/lookup-repository.js';
import { lambdaOf } from '../../helpers/lambda-of.js';
import { STANDIN_GITHUB_POLICY, startGitHubStandin, type GitHubStandin } from '../../helpers/github-standin/index.js';
import { fixedClock, testAppKey } from './standin-fixture.js';

/**
 * token-read's lookup of a repository by name (a campaign's target, a schedule's repository;
 * docs/campaigns.md, "Which installation"): in the installation asked for, and with
 * `anyInstallation` in the repository's own installation of the App, found with the App's JWT.
 * Only metadata leaves, never a token.
 */
const clock = fixedClock();
const keys = testAppKey();
const APP_ID = 4343;
let standin: GitHubStandin;

beforeAll(async () => {
  standin = await startGitHubStandin({
    appId: APP_ID,
    privateKeyPem: keys.privateKeyPem,
    clock,
    installations: [
      { id: 1, account: 'acme' },
      { id: 2, account: 'other' },
      { id: 4, account: 'paused', suspendedAt: '2025-05-01T00:00:00Z' },
    ],
    repos: [
      { owner: 'acme', name: 'home', id: 100, installationId: 1 },
      { owner: 'other', name: 'elsewhere', id: 200, installationId: 2, defaultBranch: 'trunk' },
      // An installation the App does not have: GitHub says the App is not installed there.
      { owner: 'third', name: 'without', id: 300, installationId: 3 },
      { owner: 'paused', name: 'held', id: 400, installationId: 4 },
    ],
  });
}, 120_000);

afterAll(async () => standin?.stop());

const lookup = (event: RepositoryLookupEvent) =>
  lookupRepository({ appId: APP_ID, apiUrl: standin.url, privateKey: keys.privateKeyPem, clock, policy: STANDIN_GITHUB_POLICY }, event);
const installationCalls = (from: number) => standin.calls.slice(from).filter((c) => c.path.endsWith('/installation'));

describe('lookupRepository', () => {
  it('finds a repository of the installation asked for, without asking for any other', async () => {
    const before = standin.calls.length;
    expect(await lookup({ installationId: 1, lookup: 'acme/home', anyInstallation: true })).toMatchObject({ id: 100, installationId: 1 });
    expect(installationCalls(before)).toEqual([]);
  });

  it('stays in the installation asked for without anyInstallation (a schedule’s lookup)', async () => {
    const before = standin.calls.length;
    expect(await lookup({ installationId: 1, lookup: 'other/elsewhere' })).toBeUndefined();
    expect(installationCalls(before)).toEqual([]);
  });

  it('with anyInstallation, finds the repository in its own installation with the App’s JWT, and answers metadata only', async () => {
    const before = standin.calls.length;
    const found = await lookup({ installationId: 1, lookup: 'other/elsewhere', anyInstallation: true });
    expect(found).toEqual({
      id: 200,
      owner: 'other',
      name: 'elsewhere',
      installationId: 2,
      defaultBranch: 'trunk',
      cloneUrl: `${standin.url}/other/elsewhere.git`,
    });
    expect(installationCalls(before).map((c) => [c.method, c.path, c.status, c.tokenId])).toEqual([
      ['GET', '/repos/other/elsewhere/installation', 200, `app-jwt:${APP_ID}`],
    ]);
    // The repository was read with a metadata-only token of its own installation.
    const reads = standin.calls.slice(before).filter((c) => c.path === '/repos/other/elsewhere');
    expect(reads.map((c) => c.tokenPermissions)).toEqual([{ metadata: 'read' }]);
    const minted = standin.state.tokens().find((t) => t.id === reads[0].tokenId)!;
    expect(minted).toMatchObject({ installationId: 2, repositoryIds: [200] });
    const text = JSON.stringify(found);
    for (const token of standin.state.tokenValues()) expect(text).not.toContain(token);
  });

  it('answers nothing for a repository the App is not installed on, or that does not exist', async () => {
    const before = standin.calls.length;
    expect(await lookup({ installationId: 1, lookup: 'third/without', anyInstallation: true })).toBeUndefined();
    expect(await lookup({ installationId: 1, lookup: 'nobody/nothing', anyInstallation: true })).toBeUndefined();
    expect(installationCalls(before).map((c) => c.status)).toEqual([404, 404]);
  });

  it('answers nothing for a repository whose installation is suspended, and asks it for no token', async () => {
    const before = standin.calls.length;
    expect(await lookup({ installationId: 1, lookup: 'paused/held', anyInstallation: true })).toBeUndefined();
    expect(installationCalls(before).map((c) => c.status)).toEqual([200]);
    expect(standin.calls.slice(before).filter((c) => c.path === '/app/installations/4/access_tokens')).toEqual([]);
  });

  it('token-read tells a lookup from a token request by its fields: anyInstallation is only `true`', () => {
    expect(RepositoryLookupEvent.safeParse({ installationId: 1, lookup: 'a/b', anyInstallation: true }).success).toBe(true);
    expect(RepositoryLookupEvent.safeParse({ installationId: 1, lookup: 'a/b', anyInstallation: false }).success).toBe(false);
    expect(RepositoryLookupEvent.safeParse({ installationId: 1, lookup: 'a/b', repositoryId: 2 }).success).toBe(false);
  });

  it('the deployed resolvers: the campaign function’s asks token-read for any installation, schedule-fire’s does not', async () => {
    const tokenRead = lambdaOf(async (event) => (await lookup(RepositoryLookupEvent.parse(event))) ?? null);
    const campaign = lambdaRepositoryResolver(tokenRead, 'token-read', { anyInstallation: true });
    const schedule = lambdaRepositoryResolver(tokenRead, 'token-read');
    expect(await campaign.resolve('other/elsewhere', 1)).toMatchObject({ id: 200, installationId: 2 });
    expect(await schedule.resolve('other/elsewhere', 1)).toBeUndefined();
    expect(await schedule.resolve('acme/home', 1)).toMatchObject({ id: 100, installationId: 1 });
  });
});
