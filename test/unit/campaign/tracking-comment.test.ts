import { describe, expect, it } from 'vitest';
import type { CampaignItem, CampaignRecord } from '../../../src/core/campaign/campaign-record.js';
import { paceLimits, paceWindows, secondsToNextWindow } from '../../../src/core/campaign/pace.js';
import { burndown, countItems, renderTrackingComment, trackingMarker, withPullReadings } from '../../../src/core/campaign/tracking-comment.js';
import { CampaignSpec } from '../../../src/core/campaign/campaign-spec.js';

const spec = CampaignSpec.parse({
  version: 1,
  name: 'jakarta',
  title: 'Migrate | to Jakarta',
  task: { steps: [{ recipe: 'migrate-import', from: 'javax.persistence', to: 'jakarta.persistence' }] },
});
const record: CampaignRecord = {
  schemaVersion: 1,
  campaignId: 'jakarta-abcdefghijkl',
  home: { owner: 'acme', repo: 'platform', repositoryId: 1, installationId: 7, issue: 3, defaultBranch: 'main', cloneUrl: 'https://x/acme/platform.git' },
  spec,
  specDigest: 'd',
  sender: 'ada',
  trigger: 'label-1',
  createdAt: '2026-02-03T10:00:00.000Z',
};
const item = (repository: string, state: CampaignItem['state'], extra: Partial<CampaignItem> = {}): CampaignItem => ({
  schemaVersion: 1,
  repository,
  state,
  starts: 1,
  slots: [],
  updatedAt: '2026-02-05T00:00:00.000Z',
  ...extra,
});

const items = [
  item('acme/web', 'changed', { pullRequest: { number: 7, url: 'https://x/acme/web/pull/7' }, risk: 'LOW', endedAt: '2026-02-03T12:00:00.000Z' }),
  item('acme/billing', 'declined', { reason: 'AGENT_DISABLED', endedAt: '2026-02-03T10:01:00.000Z' }),
  item('acme/orders', 'unchanged', { reason: 'NO_CHANGES', endedAt: '2026-02-05T09:00:00.000Z' }),
  item('acme/zeta', 'running'),
];

describe('the tracking comment', () => {
  it('lists every repository in name order with its state, PR, risk and the reason it did not change, and the counts', () => {
    const body = renderTrackingComment(record, items);
    expect(body.startsWith(trackingMarker(record.campaignId))).toBe(true);
    expect(body).toContain('Migrate \\| to Jakarta');
    expect(body).toContain('3 of 4 repositories ended — 1 changed, 1 unchanged, 1 declined, 1 running.');
    const rows = body.split('\n').filter((l) => l.startsWith('| acme/'));
    expect(rows).toEqual([
      '| acme/billing | declined |  |  |  |  | AGENT_DISABLED |',
      '| acme/orders | unchanged |  |  |  |  | NO_CHANGES |',
      '| acme/web | changed | [#7](https://x/acme/web/pull/7) |  |  | LOW |  |',
      '| acme/zeta | running |  |  |  |  |  |',
    ]);
    // The same store renders the same comment.
    expect(renderTrackingComment(record, [...items].reverse())).toBe(body);
  });

  it('burns down by UTC day from the campaign start to the last end, empty days included', () => {
    expect(burndown(record.createdAt, items)).toEqual([
      { day: '2026-02-03', ended: 2, remaining: 2 },
      { day: '2026-02-04', ended: 0, remaining: 2 },
      { day: '2026-02-05', ended: 1, remaining: 1 },
    ]);
    expect(countItems(items)).toMatchObject({ changed: 1, declined: 1, unchanged: 1, running: 1, failed: 0 });
  });
});

describe('the pace', () => {
  it('never lets a campaign start more runs than its share of GitHub limits allows', () => {
    expect(paceLimits(60)).toEqual({ perMinute: 2, perHour: 16 });
    expect(paceLimits(1)).toEqual({ perMinute: 1, perHour: 16 });
    expect(paceWindows(Date.parse('2026-02-03T10:05:30Z'))).toEqual({ minute: 'm-2026-02-03T10:05', hour: 'h-2026-02-03T10' });
    expect(secondsToNextWindow(Date.parse('2026-02-03T10:05:30Z'), 'minute')).toBe(30);
    expect(secondsToNextWindow(Date.parse('2026-02-03T10:05:30Z'), 'hour')).toBe(3270);
  });
});

describe('items with their pull requests as last read', () => {
  const withPull = (repository: string, pr: number): CampaignItem =>
    item(repository, 'changed', { pullRequest: { number: pr, url: `https://x/${repository}/pull/${pr}` } });
  const read = (state?: 'open' | 'merged' | 'closed') => ({ ci: 'pass' as const, review: 'approved' as const, readAt: '2026-02-05T00:00:00.000Z', state });

  it('a changed repository whose pull request was merged or closed shows as such; others keep their state', () => {
    const items = [withPull('acme/a', 1), withPull('acme/b', 2), withPull('acme/c', 3), withPull('acme/d', 4), item('acme/e', 'failed')];
    const shown = withPullReadings(items, { 'acme/a#1': read('merged'), 'acme/b#2': read('closed'), 'acme/c#3': read('open'), 'acme/d#4': read() });
    expect(shown.map((i) => [i.repository, i.state, i.ci ?? '', i.review ?? ''])).toEqual([
      ['acme/a', 'merged', 'pass', 'approved'],
      ['acme/b', 'closed', 'pass', 'approved'],
      ['acme/c', 'changed', 'pass', 'approved'],
      ['acme/d', 'changed', 'pass', 'approved'],
      ['acme/e', 'failed', '', ''],
    ]);
    // The items themselves are left as the runs ended them.
    expect(items[0].state).toBe('changed');
  });
});
