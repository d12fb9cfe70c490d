import { z } from 'zod';
import { putArtifactIfAbsent } from '../../core/artifacts/artifact-io.js';
import { CampaignItem } from '../../core/campaign/campaign-record.js';
import { MAX_CAMPAIGN_REPOSITORIES } from '../../core/campaign/campaign-spec.js';
import { campaignRepositories } from '../../core/campaign/select-repositories.js';
import { countItems } from '../../core/campaign/tracking-comment.js';
import { WebhookSession } from '../webhook/webhook-session.js';
import { pollItem, startItem, type CampaignItemDeps, type ItemStep } from './campaign-item.js';
import { homeRepository, listItems, loadCampaign, readItem, splitRepository, writeItem, type LoadedCampaign } from './campaign-state.js';
import { updateTracking } from './campaign-tracking.js';
import { selectTargets, type RepositoryLister } from './select-targets.js';

/**
 * What a task state of the campaign state machine sends (infra/campaign-state-machine.json):
 * the campaign record's key, and for an item's branch the repository.
 */
export const CampaignTaskInput = z.discriminatedUnion('action', [
  z.strictObject({ action: z.literal('plan'), key: z.string(), retry: z.boolean().default(false) }),
  z.strictObject({ action: z.literal('start'), key: z.string(), repository: z.string() }),
  z.strictObject({ action: z.literal('poll'), key: z.string(), repository: z.string() }),
  z.strictObject({ action: z.literal('finish'), key: z.string() }),
  z.strictObject({ action: z.literal('refresh'), key: z.string() }),
]);
export type CampaignTaskInput = z.infer<typeof CampaignTaskInput>;

export interface CampaignPlan {
  repositories: string[];
  concurrency: number;
  toleratedFailurePercentage: number;
}

/** What the campaign function needs: an item's, and the home installation's repositories for `repositories.select`. */
export interface CampaignDeps extends CampaignItemDeps {
  listing: RepositoryLister;
}

export type CampaignTaskResult = CampaignPlan | ItemStep | { counts: Record<string, number> };

/**
 * The campaign function (trusted: it reads the intake's campaign record and runs' records, and
 * writes only under the campaign's prefix and through `startRun`): the task states of the
 * campaign state machine. `plan` lists the repositories, writes a pending item for each (once)
 * and posts the tracking comment; `start` and `poll` move one item; `finish` renders the
 * tracking comment once more; `refresh` (an execution the intake starts for `/agent campaign
 * status` or a campaign pull request's event) renders it with the open pull requests read again.
 * Every action is idempotent: Step Functions retries a task.
 */
export function createCampaignHandler(deps: CampaignDeps): (event: unknown) => Promise<CampaignTaskResult> {
  return async (event) => {
    const input = CampaignTaskInput.parse(event);
    const campaign = await loadCampaign(deps.store, input.key);
    const home = new WebhookSession(deps, homeRepository(campaign.record), campaign.record.home.installationId);
    switch (input.action) {
      case 'plan':
        return input.retry ? retryFailed(deps, home, campaign) : plan(deps, home, campaign);
      case 'start':
        return step(deps, home, campaign, input.repository, 'start');
      case 'poll':
        return step(deps, home, campaign, input.repository, 'poll');
      case 'finish':
      case 'refresh': {
        await updateTracking(home, campaign, { force: input.action === 'refresh' });
        return { counts: countItems(await listItems(deps.store, campaign)) };
      }
    }
  };
}

/**
 * The spec's repositories: its list (each once, in its order), then those `repositories.select`
 * takes from the home installation (sorted by name), at most MAX_CAMPAIGN_REPOSITORIES; a
 * pending item each, then the tracking comment.
 */
async function plan(deps: CampaignDeps, home: WebhookSession, campaign: LoadedCampaign): Promise<CampaignPlan> {
  const { spec } = campaign.record;
  const list = campaignRepositories(spec.repositories?.list ?? [], []);
  const select = spec.repositories?.select;
  const selected = select
    ? await selectTargets(deps, select, campaign.record.home.installationId, new Set(list.map((r) => r.toLowerCase())), MAX_CAMPAIGN_REPOSITORIES - list.length)
    : [];
  const repositories = campaignRepositories(list, selected);
  const stamp = new Date(deps.clock.now()).toISOString();
  for (const repository of repositories) {
    const { owner, repo } = splitRepository(repository);
    const pending: CampaignItem = { schemaVersion: 1, repository, state: 'pending', starts: 0, slots: [], updatedAt: stamp };
    await putArtifactIfAbsent(deps.store, campaign.keys.item(owner, repo), CampaignItem, pending);
  }
  await updateTracking(home, campaign);
  deps.logger.info('campaign planned', { campaignId: campaign.record.campaignId, repositories: repositories.length, selected: selected.length });
  return { repositories, concurrency: spec.pace.concurrency, toleratedFailurePercentage: spec.pace.toleratedFailurePercent };
}

/**
 * `/agent campaign retry-failed`: the failed repositories go back to `pending` (their runs,
 * issues and start counts kept: the next start is attempt n+1 of nothing, a new run on the same
 * campaign issue), and only they enter the map.
 */
async function retryFailed(deps: CampaignItemDeps, home: WebhookSession, campaign: LoadedCampaign): Promise<CampaignPlan> {
  const stamp = new Date(deps.clock.now()).toISOString();
  const failed = (await listItems(deps.store, campaign)).filter((i) => i.state === 'failed');
  for (const item of failed) {
    await writeItem(deps.store, campaign, {
      ...item,
      state: 'pending',
      reason: undefined,
      runId: undefined,
      pullRequest: undefined,
      slots: [],
      endedAt: undefined,
      updatedAt: stamp,
    });
  }
  await updateTracking(home, campaign);
  const { pace } = campaign.record.spec;
  return { repositories: failed.map((i) => i.repository), concurrency: pace.concurrency, toleratedFailurePercentage: pace.toleratedFailurePercent };
}

/** One step of an item's branch; the tracking comment is edited when the item's state changed. */
async function step(deps: CampaignItemDeps, home: WebhookSession, campaign: LoadedCampaign, repository: string, action: 'start' | 'poll'): Promise<ItemStep> {
  const item = await readItem(deps.store, campaign, repository);
  if (!item) throw new Error(`${repository} is not in campaign ${campaign.record.campaignId}`);
  let result: ItemStep;
  if (action === 'start') {
    result = await startItem(deps, campaign, item);
  } else {
    const { owner, repo } = splitRepository(repository);
    const polled = await pollItem(deps, campaign, item, owner, repo);
    if (polled.item !== item) await writeItem(deps.store, campaign, polled.item);
    result = polled.step;
  }
  const after = await readItem(deps.store, campaign, repository);
  if (after?.state !== item.state || after.reason !== item.reason) await updateTracking(home, campaign);
  return result;
}
