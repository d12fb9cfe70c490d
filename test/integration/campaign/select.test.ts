import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CampaignItem } from '../../../src/core/campaign/campaign-record.js';
import type { StandinRepoSeed } from '../../helpers/github-standin/index.js';
import { ADMIN, startFleet, targetSeed, type Fleet, type TargetKind } from './campaign-fleet.js';

/**
 * `repositories.select` evaluated by the campaign function's Plan (docs/campaigns.md, "Which
 * repositories"): token-read's listing of the home installation (GitHub stand-in), the metadata
 * conditions, then `hasFile` read on each candidate's default branch with that repository's
 * read token. The installation holds repositories that each fail one condition.
 */
const seed = (name: string, kind: TargetKind, id: number, over: Partial<StandinRepoSeed> = {}): StandinRepoSeed => ({
  ...targetSeed(`acme/${name}`, kind, id),
  topics: ['java'],
  language: 'Java',
  ...over,
});

const SEEDS: StandinRepoSeed[] = [
  seed('b-svc', 'ok', 6001, { topics: ['platform', 'java'] }),
  seed('a-svc', 'ok', 6002),
  seed('c-svc', 'migrated', 6003), // a matching file, without the text
  seed('d-svc', 'nomatch', 6004), // no matching file
  seed('e-svc', 'ok', 6005, { topics: [] }), // no topic
  seed('f-svc', 'ok', 6006, { archived: true }),
  seed('g-svc', 'ok', 6007, { fork: true }),
  seed('legacy-app', 'ok', 6008), // another name
  seed('h-svc', 'ok', 6009, { installationId: 8 }), // another installation
];

const SELECT = [
  '  select:',
  "    names: ['acme/*-svc']",
  '    topics: [java]',
  '    hasFile:',
  "      path: 'src/**/*.java'",
  '      contains: javax.persistence',
];

let f: Fleet;

beforeAll(async () => {
  f = await startFleet(0, { concurrency: 2, startsPerMinute: 10, repositories: SELECT, seeds: SEEDS });
}, 120_000);

afterAll(async () => f?.h.stop());

describe('a campaign whose spec only selects', () => {
  it('plans exactly the installation repositories the selector takes, sorted by name, each with a pending item', async () => {
    expect((await f.h.deliver('issues', f.h.payloads.labeled(1, { label: 'agent:campaign', sender: ADMIN }))).statusCode).toBe(202);
    expect(f.started).toHaveLength(1);
    const plan = (await f.handler({ action: 'plan', key: f.started[0].key })) as { repositories: string[] };
    expect(plan.repositories).toEqual(['acme/a-svc', 'acme/b-svc']);

    const prefix = f.started[0].key.replace(/campaign\.json$/, 'items/');
    const items = await Promise.all((await f.h.store.list(prefix)).map(async (k) => CampaignItem.parse(await f.h.json(k))));
    expect(items.map((i) => `${i.repository} ${i.state}`).sort()).toEqual(['acme/a-svc pending', 'acme/b-svc pending']);

    // The listing went out once, with a metadata-only token; hasFile read trees with each candidate's own token.
    const listings = f.h.standin.calls.filter((c) => c.path === '/installation/repositories');
    expect(listings).toHaveLength(1);
    expect(listings[0].tokenPermissions).toEqual({ metadata: 'read' });
    const treeReads = new Set(f.h.standin.calls.filter((c) => /\/git\/trees\//.test(c.path)).map((c) => c.path.split('/')[3]));
    expect([...treeReads].sort()).toEqual(['a-svc', 'b-svc', 'c-svc', 'd-svc']);

    // A retried Plan plans the same.
    expect(((await f.handler({ action: 'plan', key: f.started[0].key })) as { repositories: string[] }).repositories).toEqual(['acme/a-svc', 'acme/b-svc']);
  }, 120_000);

  it('runs the selected repositories through the state machine, and only them', async () => {
    const result = (await f.execute()) as { outcomes: { repository: string; state: string }[] };
    expect(result.outcomes).toEqual([
      { repository: 'acme/a-svc', state: 'changed' },
      { repository: 'acme/b-svc', state: 'changed' },
    ]);
    for (const name of ['c-svc', 'd-svc', 'e-svc', 'f-svc', 'g-svc', 'legacy-app', 'h-svc']) expect(f.h.standin.repo(`acme/${name}`).issues.size).toBe(0);
  }, 120_000);
});
