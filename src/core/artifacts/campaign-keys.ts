import { ArtifactError } from './artifact-error.js';
import { keySegment, positiveInt } from './keys.js';

/** `campaigns/`: campaigns started from a home issue (docs/campaigns.md). */
export const CAMPAIGNS_PREFIX = 'campaigns/';

export interface CampaignKeys {
  prefix: string;
  /** The campaign record: written once by the intake (putIfAbsent). */
  record: string;
  itemsPrefix: string;
  /** One target repository's item: its state, run and outcome (the campaign function). */
  item: (owner: string, repo: string) => string;
  /** A start slot of a pace window (`m-<yyyy-mm-ddThh:mm>` or `h-<yyyy-mm-ddThh>`), taken once. */
  slotPrefix: (window: string) => string;
  slot: (window: string, n: number) => string;
  /** The tracking comment on the home issue: its id, once posted. */
  tracking: string;
  /** `/agent campaign close`: the campaign is closed (no more starts); written once by the intake. */
  closed: string;
  /** `/agent campaign pause`: no start until `resume` deletes it (the intake). */
  paused: string;
  /** `/agent campaign close`: the intake's request to the publisher (one per command); what it did to each pull request (once). */
  closeRequest: (commentId: number) => string;
  closuresPrefix: string;
  closure: (owner: string, repo: string) => string;
  /** The CI and review states the tracking comment last read (the campaign function; a cache). */
  pullStates: string;
  /** A refresh of the tracking comment asked by `status` or a pull request's event, once per window (the intake, putIfAbsent). */
  refresh: (kind: 'status' | 'event', window: string) => string;
}

function paceWindow(window: string): string {
  if (!/^(m-\d{4}-\d{2}-\d{2}T\d{2}:\d{2}|h-\d{4}-\d{2}-\d{2}T\d{2})$/.test(window)) {
    throw new ArtifactError('ARTIFACT_KEY_INVALID', `invalid pace window: ${JSON.stringify(window)}`, { what: 'pace window', value: window });
  }
  return window;
}

/** A refresh window's stamp: `yyyymmddThhmm` (UTC). */
function refreshWindow(window: string): string {
  if (!/^\d{8}T\d{4}$/.test(window)) {
    throw new ArtifactError('ARTIFACT_KEY_INVALID', `invalid refresh window: ${JSON.stringify(window)}`, { what: 'refresh window', value: window });
  }
  return window;
}

/** `campaigns/<owner>/<repo>/<issue>/<campaignId>/...`: a campaign, under its home repository and issue. */
export function campaignKeys(owner: string, repo: string, issue: number, campaignId: string): CampaignKeys {
  const p = `${CAMPAIGNS_PREFIX}${keySegment(owner, 'owner')}/${keySegment(repo, 'repo')}/${positiveInt(issue, 'issue number')}/${keySegment(campaignId, 'campaign id')}/`;
  return {
    prefix: p,
    record: `${p}campaign.json`,
    itemsPrefix: `${p}items/`,
    item: (o, r) => `${p}items/${keySegment(o, 'owner')}/${keySegment(r, 'repo')}.json`,
    slotPrefix: (window) => `${p}slots/${paceWindow(window)}/`,
    slot: (window, n) => `${p}slots/${paceWindow(window)}/${positiveInt(n, 'slot', 0)}`,
    tracking: `${p}tracking.json`,
    closed: `${p}closed.json`,
    paused: `${p}paused.json`,
    closeRequest: (commentId) => `${p}close-requests/${positiveInt(commentId, 'comment id')}.json`,
    closuresPrefix: `${p}closures/`,
    closure: (o, r) => `${p}closures/${keySegment(o, 'owner')}/${keySegment(r, 'repo')}.json`,
    pullStates: `${p}pull-states.json`,
    refresh: (kind, window) => `${p}refreshes/${kind}-${refreshWindow(window)}.json`,
  };
}

/** `campaigns/<owner>/<repo>/<issue>/`: every campaign of one home issue. */
export function campaignIssuePrefix(owner: string, repo: string, issue: number): string {
  return `${CAMPAIGNS_PREFIX}${keySegment(owner, 'owner')}/${keySegment(repo, 'repo')}/${positiveInt(issue, 'issue number')}/`;
}

/** The campaign a `campaigns/<owner>/<repo>/<issue>/<campaignId>/close-requests/<commentId>.json` key names, or undefined. */
export function parseCampaignCloseRequestKey(key: string): { owner: string; repo: string; issue: number; campaignId: string; commentId: number } | undefined {
  const match = /^campaigns\/([^/]+)\/([^/]+)\/([1-9]\d*)\/([^/]+)\/close-requests\/([1-9]\d*)\.json$/.exec(key);
  if (!match) return undefined;
  return { owner: match[1], repo: match[2], issue: Number(match[3]), campaignId: match[4], commentId: Number(match[5]) };
}

export function parseCampaignRecordKey(key: string): { owner: string; repo: string; issue: number; campaignId: string } | undefined {
  const match = /^campaigns\/([^/]+)\/([^/]+)\/([1-9]\d*)\/([^/]+)\/campaign\.json$/.exec(key);
  if (!match) return undefined;
  return { owner: match[1], repo: match[2], issue: Number(match[3]), campaignId: match[4] };
}
