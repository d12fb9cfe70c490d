import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_EVENTS, APP_PERMISSIONS } from '../../src/app/github/app-grants.js';
import { GRANTS_MARKER } from '../../src/app/webhook/installation-grants.js';
import { HARNESS_INSTALLATION_ID, HARNESS_REPOSITORY_ID, startAppHarness, type AppHarness } from '../helpers/app-harness.js';

/**
 * An installation that lacks a permission or an event app.yml asks for is told to its admin
 * once, in one issue of a repository it names: opened, updated when the gap changes, closed
 * when nothing is missing, never duplicated; a log line when it cannot be told. The webhook
 * answers without a GitHub call; the intake does the work.
 */
describe('installation grants against app.yml, through the App', () => {
  let h: AppHarness;
  beforeAll(async () => {
    h = await startAppHarness({ issues: [] });
  }, 300_000);
  afterAll(async () => h?.stop());

  const repository = { id: HARNESS_REPOSITORY_ID, node_id: 'R_harness', name: 'orders', full_name: 'acme/orders', private: true };
  const installation = (grants: { permissions: Record<string, string>; events: readonly string[] }, id = HARNESS_INSTALLATION_ID) => ({
    id,
    html_url: `https://github.com/organizations/acme/settings/installations/${id}`,
    account: { login: 'acme', id: 1, type: 'Organization' },
    permissions: grants.permissions,
    events: [...grants.events],
  });
  const without = (permission: string | undefined, event: string | undefined) => ({
    permissions: Object.fromEntries(Object.entries(APP_PERMISSIONS).filter(([name]) => name !== permission)),
    events: APP_EVENTS.filter((e) => e !== event),
  });
  const grantsIssues = () => [...h.standin.repo(h.fullName).issues.values()].filter((i) => i.body?.includes(GRANTS_MARKER));
  const writes = () => h.standin.calls.filter((c) => c.method !== 'GET' && !c.path.includes('/access_tokens')).length;

  it('a new installation without actions:read and push: one issue names both; the webhook made no GitHub call', async () => {
    const res = await h.deliver('installation', {
      action: 'created',
      installation: installation(without('actions', 'push')),
      repositories: [repository],
      sender: { login: 'owner' },
    });

    expect(res.statusCode).toBe(202);
    expect(res.callsBeforeAnswer).toBe(0);
    const [issue, ...more] = grantsIssues();
    expect(more).toEqual([]);
    expect(issue).toMatchObject({ state: 'open', title: 'draftsman is missing permissions or events it needs', user: { login: h.botLogin } });
    expect(issue.body).toContain('- `actions`: read (granted: none)');
    expect(issue.body).toContain('- `push`');
    expect(issue.body).toContain('https://github.com/organizations/acme/settings/installations/7');
    // A token that needs nothing the installation may lack but issues:write.
    const create = h.standin.calls.find((c) => c.method === 'POST' && c.path === '/repos/acme/orders/issues');
    expect(create?.tokenPermissions).toEqual({ issues: 'write', metadata: 'read' });
  });

  it('the same gap again (a repository added): told once, no second issue and no GitHub write', async () => {
    const before = writes();
    await h.deliver('installation_repositories', {
      action: 'added',
      installation: installation(without('actions', 'push')),
      repositories_added: [{ ...repository, id: 99, full_name: 'acme/other', name: 'other' }],
      repositories_removed: [],
    });

    expect(grantsIssues()).toHaveLength(1);
    expect(writes()).toBe(before);
  });

  it('the owner accepts actions:read: the same issue now names only push; then everything: it is closed', async () => {
    await h.deliver('installation', { action: 'new_permissions_accepted', installation: installation(without(undefined, 'push')), repositories: [repository] });

    const [issue] = grantsIssues();
    expect(grantsIssues()).toHaveLength(1);
    expect(issue.state).toBe('open');
    expect(issue.body).not.toContain('`actions`');
    expect(issue.body).toContain('- `push`');

    await h.deliver('installation', {
      action: 'new_permissions_accepted',
      installation: installation(without(undefined, undefined)),
      repositories: [repository],
    });
    expect(grantsIssues()).toMatchObject([{ number: issue.number, state: 'closed' }]);
  });

  it('an installation without issues:write cannot be told in an issue: a log line names what it lacks', async () => {
    await h.deliver('installation', { action: 'created', installation: installation(without('issues', undefined), 8), repositories: [repository] });

    const line = h.logs.entries().find((e) => e.msg === 'cannot tell the admin what the installation lacks: it does not grant issues: write');
    expect(line).toMatchObject({ installation: 8 });
    expect(h.logs.entries().find((e) => e.msg === 'installation lacks what the App asks for' && e.installation === 8)).toMatchObject({
      permissions: ['issues:write'],
    });
    expect(grantsIssues()).toHaveLength(1);
  });
});
