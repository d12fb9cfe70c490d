import { putArtifactIfAbsent, readArtifactIfPresent } from '../../../core/artifacts/artifact-io.js';
import { campaignIssuePrefix, campaignKeys, parseCampaignRecordKey } from '../../../core/artifacts/campaign-keys.js';
import {
  CampaignClosed,
  CampaignItem,
  CampaignPullStates,
  CampaignRecord,
  CampaignTracking,
  ENDED_ITEM_STATES,
} from '../../../core/campaign/campaign-record.js';
import { countItems, withPullReadings } from '../../../core/campaign/tracking-comment.js';
import { askRefresh } from '../../campaign/campaign-refresh.js';
import type { TriggerOutcome } from '../trigger-outcome.js';
import type { WebhookSession } from '../webhook-session.js';

/** The issue's latest campaign (the last started, when its spec was edited and started again), or undefined. */
export async function latestCampaign(session: WebhookSession, issue: number): Promise<CampaignRecord | undefined> {
  const { store } = session.deps;
  const keys = (await store.list(campaignIssuePrefix(session.owner, session.repo, issue))).filter((k) => parseCampaignRecordKey(k));
  let latest: CampaignRecord | undefined;
  for (const key of keys) {
    const record = await readArtifactIfPresent(store, key, CampaignRecord);
    if (record && (!latest || record.createdAt > latest.createdAt)) latest = record;
  }
  return latest;
}

/** The campaign's items, in key order. */
export async function itemsOf(session: WebhookSession, record: CampaignRecord): Promise<CampaignItem[]> {
  const keys = campaignKeys(record.home.owner, record.home.repo, record.home.issue, record.campaignId);
  const items: CampaignItem[] = [];
  for (const key of (await session.deps.store.list(keys.itemsPrefix)).sort()) {
    const item = await readArtifactIfPresent(session.deps.store, key, CampaignItem);
    if (item) items.push(item);
  }
  return items;
}

/**
 * `/agent campaign status`: asks the campaign function to refresh the tracking comment (its open
 * pull requests' CI, review and state read again: campaign-refresh.ts), then replies with the
 * counts as the store has them (each pull request as last read) and where the tracking comment
 * is. Anyone may ask.
 */
export async function campaignStatus(
  session: WebhookSession,
  issue: number,
  issueUrl: string | undefined,
  record: CampaignRecord,
  asked: { sender: string; commentId: number },
): Promise<TriggerOutcome> {
  const { store } = session.deps;
  const keys = campaignKeys(record.home.owner, record.home.repo, record.home.issue, record.campaignId);
  const refresh = await askRefresh(session.deps, record, 'status', `status by @${asked.sender}`, `comment-${asked.commentId}`);
  const pulls = (await readArtifactIfPresent(store, keys.pullStates, CampaignPullStates).catch(() => undefined))?.pulls ?? {};
  const items = withPullReadings(await itemsOf(session, record), pulls);
  const counts = Object.entries(countItems(items))
    .filter(([, n]) => n > 0)
    .map(([state, n]) => `${n} ${state}`)
    .join(', ');
  const tracking = await readArtifactIfPresent(store, keys.tracking, CampaignTracking);
  const ended = items.filter((i) => ENDED_ITEM_STATES.has(i.state)).length;
  const where = tracking ? ` The table: ${issueUrl ?? ''}#issuecomment-${tracking.commentId}` : '';
  const refreshing = tracking && refresh !== 'not set up' ? ', refreshing its pull requests’ CI, review and state' : '';
  await session.reply(
    issue,
    `Campaign \`${record.campaignId}\`: ${ended} of ${items.length} repositories ended${counts ? ` (${counts})` : ''}.${where}${refreshing}${where ? '.' : ''}`,
  );
  return { kind: 'replied', why: 'campaign status' };
}

/**
 * `/agent campaign retry-failed`: a second execution of the state machine (named by the campaign
 * and the comment, so the comment acts once) that puts the failed repositories through again.
 */
export async function campaignRetryFailed(session: WebhookSession, issue: number, record: CampaignRecord, commentId: number): Promise<TriggerOutcome> {
  const launcher = session.deps.campaigns;
  if (!launcher) return { kind: 'ignored', why: 'campaigns are not set up' };
  const keys = campaignKeys(record.home.owner, record.home.repo, issue, record.campaignId);
  const execution = await launcher.start({
    campaignId: record.campaignId,
    key: keys.record,
    name: `${record.campaignId}-retry-${commentId}`.slice(0, 80),
    retry: true,
  });
  return { kind: 'campaign', campaignId: record.campaignId, execution };
}

/**
 * `/agent campaign close <reason>`: no repository starts after it (a start ends `closed`), and
 * the tracking comment says so; the closed record keeps the first close's who and why. Then a
 * close request for the publisher (once per comment: the comment is claimed), which closes the
 * campaign's open pull requests with that reason and deletes their branches
 * (src/app/publisher/campaign-close.ts): the intake holds no token that may.
 */
export async function campaignClose(
  session: WebhookSession,
  issue: number,
  record: CampaignRecord,
  by: string,
  reason: string,
  commentId: number,
): Promise<TriggerOutcome> {
  const { store } = session.deps;
  const keys = campaignKeys(record.home.owner, record.home.repo, issue, record.campaignId);
  const at = new Date(session.deps.clock.now()).toISOString();
  const first = await putArtifactIfAbsent(store, keys.closed, CampaignClosed, { schemaVersion: 1, by, reason: reason || 'closed', at });
  const closed = await readArtifactIfPresent(store, keys.closed, CampaignClosed);
  if (!closed) throw new Error(`the closed record ${keys.closed} vanished after it was written`);
  await putArtifactIfAbsent(store, keys.closeRequest(commentId), CampaignClosed, { schemaVersion: 1, by, reason: closed.reason, at });
  const head = first
    ? `Campaign \`${record.campaignId}\` is closed: no repository starts from now on.`
    : `Campaign \`${record.campaignId}\` was closed by @${closed.by} on ${closed.at.slice(0, 10)}.`;
  await session.reply(issue, `${head} Its open pull requests are closed with the reason given; a report follows.`);
  return { kind: 'replied', why: 'campaign closed' };
}

/** `/agent campaign pause` and `resume`: no repository starts while the campaign is paused; runs already started go on. */
export async function campaignPause(session: WebhookSession, issue: number, record: CampaignRecord, by: string, pause: boolean): Promise<TriggerOutcome> {
  const keys = campaignKeys(record.home.owner, record.home.repo, issue, record.campaignId);
  const at = new Date(session.deps.clock.now()).toISOString();
  if (pause) await putArtifactIfAbsent(session.deps.store, keys.paused, CampaignClosed, { schemaVersion: 1, by, reason: 'paused', at });
  else await session.deps.store.delete(keys.paused);
  await session.reply(issue, `Campaign \`${record.campaignId}\` is ${pause ? 'paused: no repository starts until `resume`' : 'resumed'}.`);
  return { kind: 'replied', why: pause ? 'campaign paused' : 'campaign resumed' };
}
