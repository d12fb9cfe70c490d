import { describe, expect, it } from 'vitest';
import { askRefresh } from '../../../src/app/campaign/campaign-refresh.js';
import type { CampaignLauncher } from '../../../src/app/campaign/campaign-launcher.js';
import { CampaignSpec } from '../../../src/core/campaign/campaign-spec.js';
import type { CampaignRecord } from '../../../src/core/campaign/campaign-record.js';
import type { ArtifactStore, Logger } from '../../../src/core/ports.js';
import { MapStore } from '../../helpers/map-store.js';

const record: CampaignRecord = {
  schemaVersion: 1,
  campaignId: 'jakarta-abcdefghijkl',
  home: { owner: 'acme', repo: 'platform', repositoryId: 1, installationId: 7, issue: 3, defaultBranch: 'main', cloneUrl: 'https://x/acme/platform.git' },
  spec: CampaignSpec.parse({
    version: 1,
    name: 'jakarta',
    title: 'Jakarta',
    task: { steps: [{ recipe: 'migrate-import', from: 'javax.persistence', to: 'jakarta.persistence' }] },
  }),
  specDigest: 'd',
  sender: 'ada',
  trigger: 'label-1',
  createdAt: '2026-02-03T10:00:00.000Z',
};
const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** The first call on a refresh marker waits until `callers` calls are waiting: deliveries that truly arrive at once. Later calls pass. */
function barrierStore(inner: ArtifactStore, callers: number): ArtifactStore {
  let waiting: (() => void)[] = [];
  let released = false;
  const gate = async (key: string) => {
    if (released || !key.includes('/refreshes/')) return;
    await new Promise<void>((resolve) => {
      waiting.push(resolve);
      if (waiting.length === callers) {
        released = true;
        for (const go of waiting) go();
        waiting = [];
      }
    });
  };
  return {
    get: async (key) => (await gate(key), inner.get(key)),
    put: async (key, body) => (await gate(key), inner.put(key, body)),
    putIfAbsent: async (key, body) => (await gate(key), inner.putIfAbsent(key, body)),
    putIfMatch: (key, body, etag) => inner.putIfMatch(key, body, etag),
    delete: (key) => inner.delete(key),
    list: (prefix) => inner.list(prefix),
  };
}

describe('a refresh of the tracking comment asked from outside the campaign’s steps', () => {
  it('two deliveries at once ask for one execution; the window decides the name and the wait', async () => {
    const starts: Parameters<CampaignLauncher['start']>[0][] = [];
    const campaigns: CampaignLauncher = { start: async (input) => (starts.push(input), 'started') };
    const store = new MapStore();
    const now = Date.parse('2026-02-03T10:07:30.000Z');
    const deps = { store: barrierStore(store, 2), clock: { now: () => now }, logger: quiet, campaigns };
    const asked = await Promise.all([
      askRefresh(deps, record, 'event', 'check_suite a', 'delivery-a'),
      askRefresh(deps, record, 'event', 'check_suite b', 'delivery-b'),
    ]);
    expect(asked.sort()).toEqual(['already asked', 'asked']);
    expect(starts).toEqual([
      {
        campaignId: record.campaignId,
        key: 'campaigns/acme/platform/3/jakarta-abcdefghijkl/campaign.json',
        name: 'jakarta-abcdefghijkl-refresh-event-20260203T1005',
        // The 5-minute window 10:05-10:10 ends in 150 s.
        refresh: { waitSeconds: 150 },
      },
    ]);
    expect(await store.list('campaigns/acme/platform/3/jakarta-abcdefghijkl/refreshes/')).toEqual([
      'campaigns/acme/platform/3/jakarta-abcdefghijkl/refreshes/event-20260203T1005.json',
    ]);

    // `status` has its own one-minute window and refreshes at once.
    expect(await askRefresh({ ...deps, store }, record, 'status', 'status by @bo', 'comment-1')).toBe('asked');
    expect(starts.at(-1)).toMatchObject({ name: 'jakarta-abcdefghijkl-refresh-status-20260203T1007', refresh: { waitSeconds: 0 } });
    expect(await askRefresh({ ...deps, store, campaigns: undefined }, record, 'status', 'status by @bo', 'comment-2')).toBe('not set up');
  });

  it('a delivery whose start failed after it wrote the marker starts it on its retry; another delivery of the window does not', async () => {
    const starts: string[] = [];
    let fail = true;
    const campaigns: CampaignLauncher = {
      start: async (input) => {
        if (fail) throw new Error('throttled');
        starts.push(input.name!);
        return 'started';
      },
    };
    const deps = { store: new MapStore(), clock: { now: () => Date.parse('2026-02-03T10:07:30.000Z') }, logger: quiet, campaigns };
    await expect(askRefresh(deps, record, 'event', 'check_suite a', 'delivery-a')).rejects.toThrow('throttled');
    fail = false;
    expect(await askRefresh(deps, record, 'event', 'check_suite b', 'delivery-b')).toBe('already asked');
    expect(await askRefresh(deps, record, 'event', 'check_suite a', 'delivery-a')).toBe('asked');
    expect(starts).toEqual(['jakarta-abcdefghijkl-refresh-event-20260203T1005']);
  });
});
