import { cell, code } from '../text/report-markdown.js';
import { ENDED_ITEM_STATES, type CampaignItem, type CampaignItemState, type CampaignPullStates, type CampaignRecord } from './campaign-record.js';

/** The marker that makes the tracking comment findable again (one per campaign). */
export function trackingMarker(campaignId: string): string {
  return `<!-- draftsman:campaign:${campaignId} -->`;
}

const STATE_ORDER: readonly CampaignItemState[] = ['changed', 'merged', 'unchanged', 'declined', 'failed', 'closed', 'running', 'waiting', 'pending'];

/** `owner/repo#number`: a campaign pull request's key in `pull-states.json`. */
export const pullKey = (item: CampaignItem): string | undefined => (item.pullRequest ? `${item.repository}#${item.pullRequest.number}` : undefined);

/**
 * The items as the tracking comment and `/agent campaign status` show them: each `changed`
 * item's pull request with its CI and review as last read, and its state `merged` or `closed`
 * once that reading found the pull request merged or closed without a merge. The one place a
 * pull request's own state turns into a repository's state; the items themselves stay as the
 * run ended them.
 */
export function withPullReadings(items: readonly CampaignItem[], pulls: CampaignPullStates['pulls']): CampaignItem[] {
  return items.map((item) => {
    const read = Object.hasOwn(pulls, pullKey(item) ?? '') ? pulls[pullKey(item)!] : undefined;
    if (!read) return item;
    const ended = item.state === 'changed' && (read.state === 'merged' || read.state === 'closed');
    return { ...item, ci: read.ci, review: read.review, ...(ended ? { state: read.state as CampaignItemState } : {}) };
  });
}

/** How many repositories are in each state, every state listed (zeros included), in one fixed order. */
export function countItems(items: readonly CampaignItem[]): Record<CampaignItemState, number> {
  const counts = Object.fromEntries(STATE_ORDER.map((s) => [s, 0])) as Record<CampaignItemState, number>;
  for (const item of items) counts[item.state]++;
  return counts;
}

/**
 * The burndown: for each UTC day from the campaign's start to the last day a repository ended,
 * how many repositories had not ended by the end of that day. Dates come from the store (the
 * record's `createdAt`, each item's `endedAt`), so the same items give the same lines.
 */
export function burndown(createdAt: string, items: readonly CampaignItem[]): { day: string; remaining: number; ended: number }[] {
  const first = createdAt.slice(0, 10);
  const endDays = items.filter((i) => ENDED_ITEM_STATES.has(i.state) && i.endedAt).map((i) => i.endedAt!.slice(0, 10));
  const last = endDays.reduce((a, b) => (b > a ? b : a), first);
  const rows: { day: string; remaining: number; ended: number }[] = [];
  // Days between the first and the last, at most 366 lines (a longer campaign shows its last year).
  const start = Math.max(Date.parse(`${first}T00:00:00Z`), Date.parse(`${last}T00:00:00Z`) - 365 * 86_400_000);
  for (let t = start; t <= Date.parse(`${last}T00:00:00Z`); t += 86_400_000) {
    const day = new Date(t).toISOString().slice(0, 10);
    const ended = endDays.filter((d) => d === day).length;
    const remaining = items.length - endDays.filter((d) => d <= day).length;
    rows.push({ day, remaining, ended });
  }
  return rows;
}

const link = (pr: CampaignItem['pullRequest']) => (pr ? `[#${pr.number}](${pr.url})` : '');

/** One table row: repository, state, PR, CI, review, risk, and the reason when it did not change. */
function row(item: CampaignItem): string {
  const why = item.state === 'changed' || item.state === 'merged' || item.state === 'running' ? '' : (item.reason ?? '');
  return `| ${cell(item.repository)} | ${item.state} | ${link(item.pullRequest)} | ${cell(item.ci ?? '')} | ${cell(item.review ?? '')} | ${cell(item.risk ?? '')} | ${cell(why)} |`;
}

/**
 * The tracking comment's body: the marker, the title, the counts, a table with one row per
 * repository (sorted by name) and the burndown by day. Deterministic: the same record and items
 * give the same text.
 */
export function renderTrackingComment(record: CampaignRecord, items: readonly CampaignItem[], options: { closed?: boolean } = {}): string {
  const sorted = [...items].sort((a, b) => (a.repository < b.repository ? -1 : a.repository > b.repository ? 1 : 0));
  const counts = countItems(sorted);
  const ended = sorted.filter((i) => ENDED_ITEM_STATES.has(i.state)).length;
  const summary = STATE_ORDER.filter((s) => counts[s] > 0)
    .map((s) => `${counts[s]} ${s}`)
    .join(', ');
  const lines = [
    trackingMarker(record.campaignId),
    `### Campaign ${code(record.spec.name)}: ${cell(record.spec.title)}${options.closed ? ' (closed)' : ''}`,
    '',
    `${ended} of ${sorted.length} repositories ended${summary ? ` — ${summary}` : ''}. Campaign ${code(record.campaignId)}, started by @${record.sender} on ${record.createdAt.slice(0, 10)}.`,
    '',
    '| repository | state | PR | CI | review | risk | reason |',
    '|---|---|---|---|---|---|---|',
    ...sorted.map(row),
    '',
    '<details><summary>Burndown by day</summary>',
    '',
    '| day | ended | remaining |',
    '|---|---|---|',
    ...burndown(record.createdAt, sorted).map((d) => `| ${d.day} | ${d.ended} | ${d.remaining} |`),
    '',
    '</details>',
    '',
    'Commands: `/agent campaign status | retry-failed | rebase | pause | resume | close <reason>`.',
  ];
  return lines.join('\n');
}
