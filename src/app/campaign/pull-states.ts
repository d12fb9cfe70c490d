import { readArtifactIfPresent, writeArtifact } from '../../core/artifacts/artifact-io.js';
import { CampaignPullStates, type CampaignItem } from '../../core/campaign/campaign-record.js';
import { PULL_READ_MAX_AGE_MS, PULL_READS_PER_REFRESH } from '../../core/campaign/pace.js';
import { pullKey } from '../../core/campaign/tracking-comment.js';
import type { GitHubApi } from '../github/github-api.js';
import { readCiSnapshot } from '../webhook/ci-event.js';
import { WebhookSession, type TriggerDeps } from '../webhook/webhook-session.js';
import { splitRepository, type LoadedCampaign } from './campaign-state.js';

type PullState = CampaignPullStates['pulls'][string];

/**
 * The review state of a pull request from its reviews (one page, oldest first): each reviewer's
 * last verdict counts (a dismissal withdraws it, a comment changes nothing); any reviewer asking
 * for changes wins over approvals.
 */
export function reviewState(reviews: readonly { user?: { login: string } | null; state: string }[]): PullState['review'] {
  const verdicts = new Map<string, string>();
  for (const r of reviews) {
    if (!r.user || !['APPROVED', 'CHANGES_REQUESTED', 'DISMISSED'].includes(r.state)) continue;
    verdicts.set(r.user.login, r.state);
  }
  const states = [...verdicts.values()];
  if (states.includes('CHANGES_REQUESTED')) return 'changes requested';
  return states.includes('APPROVED') ? 'approved' : 'none';
}

/** One pull request's CI (its head's check runs and commit statuses, combined), review state and whether it is open, merged or closed: four GETs with a read token. */
export async function readPullState(api: GitHubApi, owner: string, repo: string, number: number): Promise<Omit<PullState, 'readAt'>> {
  const pull = (await api.rest.pulls.get({ owner, repo, pull_number: number })).data;
  const state: PullState['state'] = pull.merged === true || pull.merged_at ? 'merged' : pull.state === 'closed' ? 'closed' : 'open';
  const snapshot = await readCiSnapshot(api, owner, repo, pull.head.sha);
  const ci: PullState['ci'] = snapshot.checks.length === 0 ? 'none' : snapshot.state === 'success' ? 'pass' : snapshot.state === 'pending' ? 'pending' : 'fail';
  const reviews = (await api.rest.pulls.listReviews({ owner, repo, pull_number: number, per_page: 100 })).data;
  return { ci, review: reviewState(reviews), state };
}

/**
 * The CI, review and open/merged/closed states the tracking comment shows, by pull request key:
 * what `pull-states.json` holds, with at most `PULL_READS_PER_REFRESH` pull requests read again
 * from GitHub (those never read first, then the oldest reading; none read less than
 * `PULL_READ_MAX_AGE_MS` ago unless `force`, which `/agent campaign status` and a pull request's
 * event ask), through each target's read token. A pull request found merged or closed has ended
 * and is not read again. A pull request that cannot be read keeps its last reading. The cache is
 * written back when anything was read.
 */
export async function refreshPullStates(
  deps: TriggerDeps,
  campaign: LoadedCampaign,
  items: readonly CampaignItem[],
  options: { force?: boolean } = {},
): Promise<Record<string, PullState>> {
  const { store, clock, logger } = deps;
  const cached = await readArtifactIfPresent(store, campaign.keys.pullStates, CampaignPullStates).catch(() => undefined);
  const pulls = { ...(cached?.pulls ?? {}) };
  const now = clock.now();
  const readAt = (item: CampaignItem) => Date.parse(pulls[pullKey(item)!]?.readAt ?? '1970-01-01T00:00:00Z');
  const open = (item: CampaignItem) => (pulls[pullKey(item)!]?.state ?? 'open') === 'open';
  const due = items
    .filter((i) => i.state === 'changed' && pullKey(i) && i.repositoryId !== undefined && open(i) && (options.force || now - readAt(i) >= PULL_READ_MAX_AGE_MS))
    .sort((a, b) => readAt(a) - readAt(b) || (a.repository < b.repository ? -1 : 1))
    .slice(0, PULL_READS_PER_REFRESH);
  for (const item of due) {
    const { owner, repo } = splitRepository(item.repository);
    const target = new WebhookSession(
      deps,
      { id: item.repositoryId!, name: repo, full_name: item.repository, owner: { login: owner }, default_branch: '' },
      item.installationId ?? campaign.record.home.installationId,
    );
    try {
      const state = await readPullState(await target.api(), owner, repo, item.pullRequest!.number);
      pulls[pullKey(item)!] = { ...state, readAt: new Date(now).toISOString() };
    } catch (error) {
      logger.warn('the CI and review of a campaign pull request could not be read', { repository: item.repository, error: String(error) });
    }
  }
  if (due.length > 0) await writeArtifact(store, campaign.keys.pullStates, CampaignPullStates, { schemaVersion: 1, pulls });
  return pulls;
}
