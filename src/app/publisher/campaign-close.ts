import { putArtifactIfAbsent, readArtifactIfPresent } from '../../core/artifacts/artifact-io.js';
import { runKeys } from '../../core/artifacts/keys.js';
import { campaignKeys, parseCampaignCloseRequestKey } from '../../core/artifacts/campaign-keys.js';
import { CampaignClosure, CampaignClosed, type CampaignItem } from '../../core/campaign/campaign-record.js';
import { CLOSES_PER_REQUEST } from '../../core/campaign/pace.js';
import { RunRequest } from '../../core/runs/run-request.js';
import { cell } from '../../core/text/report-markdown.js';
import { listItems, loadCampaign, splitRepository, type LoadedCampaign } from '../campaign/campaign-state.js';
import { createCommentOnce, findMarkedComment } from '../github/create-once.js';
import type { GitHubApi } from '../github/github-api.js';
import { deleteOwnBranch } from './ci-feedback.js';
import type { PublishDeps } from './publish-candidate.js';
import { PublishRecord } from './publish-record.js';

export type CampaignCloseOutcome = { kind: 'closed'; closures: CampaignClosure[]; remaining: number } | { kind: 'ignored'; why: string };

/** Marks the comment giving the close's reason on each pull request (one per campaign), and the close report on the home issue (one per close request). */
export const campaignCloseMarker = (campaignId: string) => `<!-- draftsman:campaign-close:${campaignId} -->`;
const reportMarker = (campaignId: string, commentId: number) => `<!-- draftsman:campaign-close-report:${campaignId}:${commentId} -->`;

interface Target {
  item: CampaignItem;
  owner: string;
  repo: string;
  request: RunRequest & { source: { kind: 'github' } };
  published: PublishRecord;
}

/**
 * `/agent campaign close <reason>`, the publisher's part (docs/campaigns.md, "Commands on the
 * home issue"): the intake records the close and writes one close request per command; here,
 * with token-write, each open pull request of the campaign's runs gets a comment giving the
 * reason, is closed, and its branch is deleted when it still ends at the App's last commit. A
 * pull request already merged or closed is left alone and reported as such. What was done to
 * each repository is recorded once (`closures/<owner>/<repo>.json`), so a redelivered request,
 * a retried invocation or a second close acts on nothing twice. At most `CLOSES_PER_REQUEST`
 * pull requests per request (the campaign's pace); the report on the home issue says how many wait.
 *
 * Which pull request belongs to the campaign comes from trusted records only: the campaign
 * function's items name the repository and run, the intake's `request.json` must name this
 * campaign, and the publisher's own `publish.json` gives the pull request and branch.
 */
export async function closeCampaignPullRequests(deps: PublishDeps, key: string): Promise<CampaignCloseOutcome> {
  const named = parseCampaignCloseRequestKey(key);
  if (!named) return { kind: 'ignored', why: 'not a close request key' };
  const keys = campaignKeys(named.owner, named.repo, named.issue, named.campaignId);
  const campaign = await loadCampaign(deps.store, keys.record);
  const request = await readArtifactIfPresent(deps.store, key, CampaignClosed);
  if (!request) return { kind: 'ignored', why: 'the close request is gone' };
  const closures: CampaignClosure[] = [];
  let remaining = 0;
  let acted = 0;
  for (const item of await listItems(deps.store, campaign)) {
    const { owner, repo } = splitRepository(item.repository);
    const done = await readArtifactIfPresent(deps.store, keys.closure(owner, repo), CampaignClosure);
    if (done) {
      closures.push(done);
      continue;
    }
    const target = await campaignPullRequest(deps, campaign, item);
    if (!target) continue;
    if (acted >= CLOSES_PER_REQUEST) {
      remaining++;
      continue;
    }
    acted++;
    closures.push(await closeOne(deps, campaign, target, request.reason));
  }
  await report(deps, campaign, named.commentId, request, closures, remaining);
  deps.logger.info('campaign pull requests closed', { campaignId: campaign.record.campaignId, acted, remaining });
  return { kind: 'closed', closures, remaining };
}

/** The item's pull request, when the item's run is this campaign's and the publisher published one. */
async function campaignPullRequest(deps: PublishDeps, campaign: LoadedCampaign, item: CampaignItem): Promise<Target | undefined> {
  if (!item.runId) return undefined;
  const { owner, repo } = splitRepository(item.repository);
  const keys = runKeys(owner, repo, item.runId);
  const published = await readArtifactIfPresent(deps.store, keys.publish, PublishRecord);
  if (!published) return undefined;
  const request = await readArtifactIfPresent(deps.store, keys.request, RunRequest);
  if (request?.campaign?.id !== campaign.record.campaignId || request.source.kind !== 'github') {
    deps.logger.warn('a campaign item names a run of another campaign; its pull request is left alone', { repository: item.repository, runId: item.runId });
    return undefined;
  }
  return { item, owner, repo, request: request as Target['request'], published };
}

async function closeOne(deps: PublishDeps, campaign: LoadedCampaign, target: Target, reason: string): Promise<CampaignClosure> {
  const { owner, repo, published, request } = target;
  const issued = await deps.tokens.token({ installationId: request.source.installationId, repositoryId: request.source.repositoryId, role: 'write' });
  const api = deps.github(issued.token);
  const pull = (await api.rest.pulls.get({ owner, repo, pull_number: published.prNumber })).data;
  const outcome: CampaignClosure['outcome'] = pull.merged ? 'merged' : pull.state === 'closed' ? 'already-closed' : 'closed';
  let branchDeleted = false;
  if (outcome === 'closed') {
    const marker = campaignCloseMarker(campaign.record.campaignId);
    const where = { owner, repo, issue: published.prNumber, marker, botLogin: deps.botLogin };
    const body = `${marker}\nClosed by campaign \`${campaign.record.spec.name}\` (${homeName(campaign)}): ${reason}`;
    if (!(await findMarkedComment(api, where))) await createCommentOnce(api, { ...where, body });
    await api.rest.pulls.update({ owner, repo, pull_number: published.prNumber, state: 'closed' });
    branchDeleted = await deleteOwnBranch(api, published);
  }
  const closure: CampaignClosure = {
    schemaVersion: 1,
    repository: target.item.repository,
    pullRequest: { number: published.prNumber, url: published.prUrl },
    outcome,
    branch: published.branch,
    branchDeleted,
    at: new Date(deps.clock.now()).toISOString(),
  };
  const { keys } = campaign;
  await putArtifactIfAbsent(deps.store, keys.closure(owner, repo), CampaignClosure, closure);
  return (await readArtifactIfPresent(deps.store, keys.closure(owner, repo), CampaignClosure)) ?? closure;
}

const homeName = (campaign: LoadedCampaign) => `${campaign.record.home.owner}/${campaign.record.home.repo}#${campaign.record.home.issue}`;

const OUTCOME_TEXT: Record<CampaignClosure['outcome'], string> = {
  closed: 'closed',
  merged: 'merged: left alone',
  'already-closed': 'already closed: left alone',
};

function branchText(c: CampaignClosure): string {
  if (c.outcome !== 'closed') return '';
  return c.branchDeleted ? `\`${c.branch}\` deleted` : `\`${c.branch}\` kept: it holds commits draftsman did not make`;
}

/** The close's report on the home issue: one comment per close request, posted once. */
async function report(
  deps: PublishDeps,
  campaign: LoadedCampaign,
  commentId: number,
  request: CampaignClosed,
  closures: readonly CampaignClosure[],
  remaining: number,
): Promise<void> {
  const { home } = campaign.record;
  const issued = await deps.tokens.token({ installationId: home.installationId, repositoryId: home.repositoryId, role: 'write' });
  const api: GitHubApi = deps.github(issued.token);
  const marker = reportMarker(campaign.record.campaignId, commentId);
  const where = { owner: home.owner, repo: home.repo, issue: home.issue, marker, botLogin: deps.botLogin };
  if (await findMarkedComment(api, where)) return;
  const sorted = [...closures].sort((a, b) => (a.repository < b.repository ? -1 : 1));
  const lines = [
    marker,
    `Campaign \`${campaign.record.campaignId}\` closed by @${request.by}: ${cell(request.reason)}.`,
    '',
    ...(sorted.length === 0
      ? ['No pull request of this campaign to close.']
      : [
          '| repository | PR | outcome | branch |',
          '|---|---|---|---|',
          ...sorted.map((c) => `| ${cell(c.repository)} | [#${c.pullRequest.number}](${c.pullRequest.url}) | ${OUTCOME_TEXT[c.outcome]} | ${branchText(c)} |`),
        ]),
    ...(remaining > 0 ? ['', `${remaining} more open pull requests wait: comment \`/agent campaign close\` again to close them.`] : []),
  ];
  await createCommentOnce(api, { ...where, body: lines.join('\n') });
}
