import { readArtifactIfPresent, writeArtifact } from '../../core/artifacts/artifact-io.js';
import { campaignKeys, parseCampaignRecordKey, type CampaignKeys } from '../../core/artifacts/campaign-keys.js';
import { CampaignItem, CampaignRecord } from '../../core/campaign/campaign-record.js';
import type { ArtifactStore } from '../../core/ports.js';
import type { RepositoryPayload } from '../webhook/webhook-payloads.js';

/** A campaign as the campaign function reads it: its record (the intake's, trusted) and its keys. */
export interface LoadedCampaign {
  record: CampaignRecord;
  keys: CampaignKeys;
}

/** The campaign a state machine's input names by its record key; a key of any other shape is refused. */
export async function loadCampaign(store: ArtifactStore, key: string): Promise<LoadedCampaign> {
  const named = parseCampaignRecordKey(key);
  if (!named) throw new Error(`not a campaign record key: ${JSON.stringify(key)}`);
  const keys = campaignKeys(named.owner, named.repo, named.issue, named.campaignId);
  const record = await readArtifactIfPresent(store, keys.record, CampaignRecord);
  if (!record) throw new Error(`no campaign record at ${key}`);
  if (record.campaignId !== named.campaignId || record.home.owner !== named.owner || record.home.repo !== named.repo || record.home.issue !== named.issue) {
    throw new Error(`the campaign record at ${key} names another campaign`);
  }
  return { record, keys };
}

/** `owner/name` as the spec lists it, split. */
export function splitRepository(fullName: string): { owner: string; repo: string } {
  const [owner, repo] = fullName.split('/');
  if (!owner || !repo) throw new Error(`not owner/name: ${JSON.stringify(fullName)}`);
  return { owner, repo };
}

export async function readItem(store: ArtifactStore, campaign: LoadedCampaign, repository: string): Promise<CampaignItem | undefined> {
  const { owner, repo } = splitRepository(repository);
  return readArtifactIfPresent(store, campaign.keys.item(owner, repo), CampaignItem);
}

/** An item, written whole (only the item's own state-machine branch writes it, one step at a time). */
export async function writeItem(store: ArtifactStore, campaign: LoadedCampaign, item: CampaignItem): Promise<CampaignItem> {
  const { owner, repo } = splitRepository(item.repository);
  await writeArtifact(store, campaign.keys.item(owner, repo), CampaignItem, item);
  return item;
}

/** Every item of the campaign, in key order. */
export async function listItems(store: ArtifactStore, campaign: LoadedCampaign): Promise<CampaignItem[]> {
  const keys = (await store.list(campaign.keys.itemsPrefix)).sort();
  const items: CampaignItem[] = [];
  for (const key of keys) {
    const item = await readArtifactIfPresent(store, key, CampaignItem);
    if (item) items.push(item);
  }
  return items;
}

/** The home repository as a webhook session knows a repository (the record's copy of the signed payload). */
export function homeRepository(record: CampaignRecord): RepositoryPayload {
  const { owner, repo, repositoryId, defaultBranch, cloneUrl } = record.home;
  return { id: repositoryId, name: repo, full_name: `${owner}/${repo}`, owner: { login: owner }, default_branch: defaultBranch, clone_url: cloneUrl };
}
