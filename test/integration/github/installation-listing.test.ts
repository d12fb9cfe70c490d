import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listInstallationRepositories } from '../../../src/app/tokens/list-installation.js';
import { STANDIN_GITHUB_POLICY, startGitHubStandin, type GitHubStandin } from '../../helpers/github-standin/index.js';
import { fixedClock, testAppKey } from './standin-fixture.js';

/**
 * token-read's listing of an installation's repositories (a campaign's `repositories.select`,
 * docs/campaigns.md, "Which repositories"): a metadata-only token, 100 a page, bounded, and
 * only metadata in the answer.
 */
const clock = fixedClock();
const keys = testAppKey();
const APP_ID = 4242;
const COUNT = 205;
let standin: GitHubStandin;

beforeAll(async () => {
  standin = await startGitHubStandin({
    appId: APP_ID,
    privateKeyPem: keys.privateKeyPem,
    clock,
    installations: [
      { id: 1, account: 'acme' },
      { id: 2, account: 'other' },
    ],
    repos: [
      ...Array.from({ length: COUNT }, (_, i) => ({
        owner: 'acme',
        name: `r${String(i).padStart(3, '0')}`,
        id: 100 + i,
        topics: i === 7 ? ['java'] : [],
        language: i === 7 ? 'Java' : null,
        archived: i === 8,
        fork: i === 9,
      })),
      { owner: 'other', name: 'elsewhere', id: 9999, installationId: 2 },
    ],
  });
}, 120_000);

afterAll(async () => standin?.stop());

const options = { appId: APP_ID, apiUrl: '', privateKey: keys.privateKeyPem, clock, policy: STANDIN_GITHUB_POLICY };

describe('listInstallationRepositories', () => {
  it('lists every repository of the installation, page by page, with a metadata-only token that never leaves', async () => {
    const before = standin.calls.length;
    const listing = await listInstallationRepositories({ ...options, apiUrl: standin.url }, { installationId: 1, list: 'repositories' });
    expect(listing.truncated).toBe(false);
    expect(listing.repositories).toHaveLength(COUNT);
    expect(listing.repositories.map((r) => r.fullName)).not.toContain('other/elsewhere');
    expect(listing.repositories[7]).toMatchObject({ fullName: 'acme/r007', id: 107, defaultBranch: 'main', topics: ['java'], language: 'Java' });
    expect(listing.repositories.filter((r) => r.archived).map((r) => r.fullName)).toEqual(['acme/r008']);
    expect(listing.repositories.filter((r) => r.fork).map((r) => r.fullName)).toEqual(['acme/r009']);

    const pages = standin.calls.slice(before).filter((c) => c.path === '/installation/repositories');
    expect(pages.map((c) => c.query)).toEqual(['?per_page=100&page=1', '?per_page=100&page=2', '?per_page=100&page=3']);
    for (const c of pages) expect(c.tokenPermissions).toEqual({ metadata: 'read' });
    const text = JSON.stringify(listing);
    for (const token of standin.state.tokenValues()) expect(text).not.toContain(token);
  });

  it('stops at its bound and says the listing is truncated', async () => {
    const listing = await listInstallationRepositories({ ...options, apiUrl: standin.url, maxRepositories: 150 }, { installationId: 1, list: 'repositories' });
    expect(listing.truncated).toBe(true);
    expect(listing.repositories).toHaveLength(150);
  });
});
