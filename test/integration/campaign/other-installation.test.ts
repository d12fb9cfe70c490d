import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CampaignItem } from '../../../src/core/campaign/campaign-record.js';
import { PULL_READ_MAX_AGE_MS } from '../../../src/core/campaign/pace.js';
import { trackingMarker } from '../../../src/core/campaign/tracking-comment.js';
import { HARNESS_APP_ID, HARNESS_INSTALLATION_ID } from '../../helpers/app-harness.js';
import { ADMIN, startFleet, targetSeed, type Fleet } from './campaign-fleet.js';

/**
 * A campaign whose targets are in another installation of the App (docs/campaigns.md, "Which
 * installation"): the home is `acme/orders` in the harness's installation; `globex/billing` and
 * `globex/locked` are in a second installation (the campaign's sender is admin on the first,
 * reader on the second), and `initech/uninstalled` is a repository the App is not installed on.
 * The target in the second installation runs and publishes with that installation's tokens only;
 * the sender's permission there decides; the repository without the App is reported.
 */
const OTHER = 8;
const HOME_TARGET = 'acme/ok-01';
const BILLING = 'globex/billing';
const LOCKED = 'globex/locked';
const UNINSTALLED = 'initech/uninstalled';
const PRIVATE = 'globex/private';
let f: Fleet;

const itemsPrefix = () => f.started[0].key.replace(/campaign\.json$/, 'items/');
const item = async (repository: string) => CampaignItem.parse(await f.h.json(`${itemsPrefix()}${repository}.json`));
/** The installation each call's token was minted for (`app` for the App's JWT, none when unauthenticated). */
const installationOf = (tokenId: string | null): number | 'app' | undefined => {
  if (tokenId === `app-jwt:${HARNESS_APP_ID}`) return 'app';
  return f.h.standin.state.tokens().find((t) => t.id === tokenId)?.installationId;
};
const callsOn = (repository: string, from = 0) => f.h.standin.calls.slice(from).filter((c) => c.path.startsWith(`/repos/${repository}/`));
const isWrite = (method: string) => method !== 'GET' && method !== 'HEAD';

beforeAll(async () => {
  const elsewhere = (name: string, kind: 'ok' | 'readonly' | 'disabled', id: number, installationId: number) => ({
    ...targetSeed(`acme/${name.split('/')[1]}`, kind, id),
    owner: name.split('/')[0],
    installationId,
  });
  f = await startFleet(1, {
    concurrency: 2,
    startsPerMinute: 10,
    kinds: ['ok'],
    repositories: ['  list:', ...[HOME_TARGET, BILLING, LOCKED, UNINSTALLED, PRIVATE].map((r) => `    - ${r}`)],
    installations: [{ id: OTHER, account: 'globex' }],
    // initech/uninstalled names an installation the App does not have: GitHub answers 404 for it.
    // globex/private: a private repository the sender has no access to, whose policy disables the agent.
    seeds: [
      elsewhere(BILLING, 'ok', 6001, OTHER),
      elsewhere(LOCKED, 'readonly', 6002, OTHER),
      elsewhere(UNINSTALLED, 'ok', 6003, 99),
      { ...elsewhere(PRIVATE, 'disabled', 6004, OTHER), private: true, collaborators: {} },
    ],
  });
  expect((await f.h.deliver('issues', f.h.payloads.labeled(1, { label: 'agent:campaign', sender: ADMIN }))).statusCode).toBe(202);
  await f.execute();
}, 180_000);

afterAll(async () => f?.h.stop());

describe('a campaign over targets in another installation of the App', () => {
  it('runs the target of the second installation and publishes its pull request with that installation’s tokens only', async () => {
    expect((await item(HOME_TARGET)).installationId).toBe(HARNESS_INSTALLATION_ID);
    const billing = await item(BILLING);
    expect(billing).toMatchObject({ state: 'changed', installationId: OTHER, repositoryId: 6001 });
    const request = await f.h.json(`runs/${BILLING}/${billing.runId}/request.json`);
    expect(request).toMatchObject({ source: { installationId: OTHER, repositoryId: 6001 }, trigger: { kind: 'campaign', sender: ADMIN } });
    expect([...f.h.standin.repo(BILLING).pulls.values()].map((p) => p.number)).toEqual([billing.pullRequest!.number]);

    // token-read found the repository's own installation with the App's JWT.
    const lookup = f.h.standin.calls.filter((c) => c.path === `/repos/${BILLING}/installation`);
    expect(lookup.map((c) => [c.method, c.status, installationOf(c.tokenId)])).toEqual([['GET', 200, 'app']]);

    // Every call on the target carried a token of its own installation, never the home's; the
    // publication's writes (the pull request among them) went with that installation's write token.
    const calls = callsOn(BILLING).filter((c) => !c.path.endsWith('/installation'));
    expect(new Set(calls.map((c) => installationOf(c.tokenId)))).toEqual(new Set([OTHER]));
    const opened = calls.filter((c) => c.method === 'POST' && c.path === `/repos/${BILLING}/pulls`);
    expect(opened).toHaveLength(1);
    expect(opened[0].tokenPermissions).toMatchObject({ pull_requests: 'write' });
    expect(calls.filter((c) => isWrite(c.method)).length).toBeGreaterThan(3);
    // And no token of the second installation was used on the home's repositories.
    const home = f.h.standin.calls.filter((c) => c.path.startsWith('/repos/acme/'));
    expect(home.some((c) => installationOf(c.tokenId) === OTHER)).toBe(false);
  });

  it('declines a target of the second installation where the sender lacks the permission its policy asks for', async () => {
    const locked = await item(LOCKED);
    expect(locked).toMatchObject({ state: 'declined', installationId: OTHER });
    expect(locked.reason).toBe('SENDER_PERMISSION: @ada has read, the policy asks for write');
    expect(f.h.standin.repo(LOCKED).issues.size).toBe(0);
    // The permission was read there, with the second installation's token.
    const permission = callsOn(LOCKED).filter((c) => c.path === `/repos/${LOCKED}/collaborators/${ADMIN}/permission`);
    expect(permission.length).toBeGreaterThan(0);
    for (const c of permission) expect(installationOf(c.tokenId)).toBe(OTHER);
    expect(callsOn(LOCKED).filter((c) => isWrite(c.method))).toEqual([]);
  });

  it('tells a sender without access to a repository of the second installation nothing of its policy', async () => {
    expect(await item(PRIVATE)).toMatchObject({ state: 'declined', reason: 'SENDER_PERMISSION: @ada has none there', installationId: OTHER });
    expect(callsOn(PRIVATE).filter((c) => c.path.includes('/contents/'))).toEqual([]);
    expect(callsOn(PRIVATE).filter((c) => isWrite(c.method))).toEqual([]);
  });

  it('reports a repository the App is not installed on as APP_NOT_INSTALLED, reading nothing of it', async () => {
    expect(await item(UNINSTALLED)).toMatchObject({ state: 'declined', reason: 'APP_NOT_INSTALLED' });
    const lookup = f.h.standin.calls.filter((c) => c.path === `/repos/${UNINSTALLED}/installation`);
    expect(lookup.map((c) => c.status)).toEqual([404]);
    expect(callsOn(UNINSTALLED).filter((c) => !c.path.endsWith('/installation'))).toEqual([]);
    const tracking = f.h.comments(1).find((c) => c.body.includes(trackingMarker(f.started[0].campaignId)))!;
    expect(tracking.body).toContain(`| ${UNINSTALLED} | declined |`);
  });

  it('reads the pull request’s CI and review, rebases and closes it with the second installation’s tokens', async () => {
    const billing = await item(BILLING);
    const published = await f.h.json(`runs/${BILLING}/${billing.runId}/publish.json`);
    f.h.standin.addCheckSuite(BILLING, { headSha: published.publishedCommitSha, runs: [{ name: 'build', conclusion: 'success' }] });
    f.h.clock.advance(PULL_READ_MAX_AGE_MS);
    const before = f.h.standin.calls.length;
    await f.handler({ action: 'finish', key: f.started[0].key });
    const tracking = f.h.comments(1).find((c) => c.body.includes(trackingMarker(f.started[0].campaignId)))!;
    expect(tracking.body).toMatch(/^\| globex\/billing \| changed \| \[#\d+\]\([^)]+\) \| pass \| none \|/m);
    const reads = callsOn(BILLING, before);
    expect(reads.length).toBeGreaterThan(0);
    for (const c of reads) expect(installationOf(c.tokenId)).toBe(OTHER);

    await f.h.deliver('issue_comment', f.h.payloads.comment(1, '/agent campaign rebase', { sender: ADMIN }));
    await f.h.drain();
    expect(f.h.comments(1).at(-1)!.body).toMatch(/\| globex\/billing \| \[#\d+\]\([^)]+\) \| up to date \|/);

    const closing = f.h.standin.calls.length;
    await f.h.deliver('issue_comment', f.h.payloads.comment(1, '/agent campaign close moved on', { sender: ADMIN }));
    await f.h.drain();
    expect(f.h.standin.repo(BILLING).pulls.get(billing.pullRequest!.number)!.state).toBe('closed');
    const writes = callsOn(BILLING, closing).filter((c) => isWrite(c.method));
    expect(writes.map((c) => c.method).sort()).toEqual(['DELETE', 'PATCH', 'POST']);
    for (const c of writes) expect([installationOf(c.tokenId), c.tokenPermissions?.pull_requests]).toEqual([OTHER, 'write']);
  }, 120_000);
});
