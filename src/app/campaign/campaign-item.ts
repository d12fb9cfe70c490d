import { readArtifactIfPresent } from '../../core/artifacts/artifact-io.js';
import { runKeys } from '../../core/artifacts/keys.js';
import { ENDED_ITEM_STATES, type CampaignItem } from '../../core/campaign/campaign-record.js';
import { meetsPermission, type AgentPolicy } from '../../core/policy/agent-policy.js';
import { GateRecord } from '../../core/runs/run-state.js';
import { RunRecord, RunRequest } from '../../core/runs/run-request.js';
import type { ResolvedRepository } from '../tokens/resolved-repository.js';
import { readTrustedPolicy } from '../github/read-trusted-policy.js';
import { startRun } from '../webhook/commands/start-run.js';
import { repositoryRole } from '../webhook/permissions.js';
import { WebhookSession, type TriggerDeps } from '../webhook/webhook-session.js';
import { claimStartSlot } from './campaign-pace.js';
import { outcomeOf } from './campaign-outcome.js';
import { writeItem, type LoadedCampaign } from './campaign-state.js';
import { targetIssue } from './target-issue.js';

/**
 * Finds a repository by name in the given installation (the campaign function's resolver also in
 * the repository's own installation of the App, docs/campaigns.md "Which installation");
 * undefined when the App is not installed there (or it does not exist).
 */
export interface RepositoryResolver {
  resolve(fullName: string, homeInstallationId: number): Promise<ResolvedRepository | undefined>;
}

export interface CampaignItemDeps extends TriggerDeps {
  repositories: RepositoryResolver;
}

/** What a state of the item's branch answers: where the item stands, and how long to wait before the next look. */
export interface ItemStep {
  state: CampaignItem['state'];
  waitSeconds: number;
}

/** Seconds between two looks at a running run. */
export const POLL_SECONDS = 60;
/** Seconds between two looks at a paused campaign. */
export const PAUSE_WAIT_SECONDS = 300;

const ended = (item: CampaignItem): ItemStep => ({ state: item.state, waitSeconds: 0 });

/**
 * Start one target repository's run (docs/campaigns.md, "Each repository is an ordinary run"):
 * the target's own trusted policy decides (invalid, disabled, a mode it does not allow, the
 * campaign's sender below its `triggers.minPermission` are reported, never overridden), then a
 * start slot of the campaign's pace, the campaign issue in the target (created once) and
 * `startRun`, the trigger path every run takes: at the target's own limits the run waits in the
 * target's queue like any other (docs/architecture.md, "The run queue") and the item counts as
 * running. Idempotent: a retried start finds the item's run, its issue and its slots.
 */
export async function startItem(deps: CampaignItemDeps, campaign: LoadedCampaign, item: CampaignItem): Promise<ItemStep> {
  const { store, clock } = deps;
  const { record } = campaign;
  if (ENDED_ITEM_STATES.has(item.state)) return ended(item);
  if (item.state === 'running' && item.runId) return { state: 'running', waitSeconds: POLL_SECONDS };
  const now = clock.now();
  const stamp = new Date(now).toISOString();
  // Where the target is (its id and installation), once it is found: recorded by every later write.
  let where: Pick<CampaignItem, 'repositoryId' | 'installationId'> = {};
  const decline = (reason: string, state: CampaignItem['state'] = 'declined') =>
    writeItem(store, campaign, { ...item, ...where, state, reason, endedAt: stamp, updatedAt: stamp }).then(ended);
  if ((await store.get(campaign.keys.closed)) !== undefined) return decline('CAMPAIGN_CLOSED', 'closed');
  if ((await store.get(campaign.keys.paused)) !== undefined) {
    await writeItem(store, campaign, { ...item, state: 'waiting', reason: 'PAUSED', updatedAt: stamp });
    return { state: 'waiting', waitSeconds: PAUSE_WAIT_SECONDS };
  }
  const target = await deps.repositories.resolve(item.repository, record.home.installationId);
  if (!target) return decline('APP_NOT_INSTALLED');
  // Every token of this target (its policy, the sender's permission there, its issue, the run's
  // read, write and publisher tokens) is minted for the target's own installation.
  const session = WebhookSession.forResolved(deps, target);
  where = { repositoryId: target.id, installationId: target.installationId };
  // A target of another installation (another account's): a sender who cannot even read it
  // learns nothing of its policy (docs/campaigns.md, "Which installation").
  const role = target.installationId === record.home.installationId ? undefined : await repositoryRole(session, record.sender);
  if (role !== undefined && !meetsPermission(role, 'read')) return decline(`SENDER_PERMISSION: @${record.sender} has ${role} there`);
  const trusted = await readTrustedPolicy(await session.api(), { ...session.ref, defaultBranch: target.defaultBranch });
  if (!trusted.ok) return decline(`POLICY_INVALID: ${trusted.error.reason}`);
  const policy = trusted.policy;
  const refusal = await policyRefusal(session, policy, record.sender, record.spec.publish === 'none' ? 'analysis' : 'draft_pr', role);
  if (refusal) return decline(refusal);
  const slot = await claimStartSlot(store, campaign, item, now);
  if (!slot.ok) {
    await writeItem(store, campaign, { ...item, state: 'waiting', reason: 'PACE', slots: slot.slots, ...where, updatedAt: stamp });
    return { state: 'waiting', waitSeconds: slot.waitSeconds };
  }
  const issue = await targetIssue(session, record, item.issue);
  const held = await writeItem(store, campaign, { ...item, slots: slot.slots, issue: issue.number, ...where, updatedAt: stamp });
  const started = await startRun(session, policy, {
    issue,
    sender: record.sender,
    trigger: { kind: 'campaign', key: `campaign-${record.campaignId}-${held.starts + 1}` },
    forcedMode: record.spec.publish === 'none' ? 'analysis' : undefined,
    campaign: { id: record.campaignId, home: `${record.home.owner}/${record.home.repo}#${record.home.issue}` },
  });
  if (started.kind === 'started' || started.kind === 'queued' || started.kind === 'duplicate') {
    const running = {
      ...held,
      state: 'running' as const,
      reason: undefined,
      runId: started.runId,
      starts: held.starts + 1,
      startedAt: stamp,
      updatedAt: stamp,
    };
    await writeItem(store, campaign, running);
    return { state: 'running', waitSeconds: POLL_SECONDS };
  }
  return decline(started.kind === 'replied' || started.kind === 'ignored' ? `NOT_STARTED: ${started.why}` : 'NOT_STARTED');
}

/** Why the target's own policy does not let this campaign start a run there, or undefined (`known`: the sender's role there, when already read). */
async function policyRefusal(
  session: WebhookSession,
  policy: AgentPolicy,
  sender: string,
  mode: 'analysis' | 'draft_pr',
  known?: string,
): Promise<string | undefined> {
  if (!policy.agent.enabled) return 'AGENT_DISABLED';
  if (!policy.agent.allowedModes.includes(mode)) return `MODE_NOT_ALLOWED: ${mode}`;
  const role = known ?? (await repositoryRole(session, sender));
  if (!meetsPermission(role, policy.triggers.minPermission))
    return `SENDER_PERMISSION: @${sender} has ${role}, the policy asks for ${policy.triggers.minPermission}`;
  return undefined;
}

/**
 * Where a started item's run stands, from the run's own records (`run.json`, `publish.json`,
 * the gate the publisher recomputed): still running, or how it ended. An ended item keeps the
 * run's `updatedAt` as its end, so the burndown is the store's.
 */
export async function pollItem(
  deps: TriggerDeps,
  campaign: LoadedCampaign,
  item: CampaignItem,
  owner: string,
  repo: string,
): Promise<{ item: CampaignItem; step: ItemStep }> {
  if (ENDED_ITEM_STATES.has(item.state) || !item.runId) return { item, step: ended(item) };
  const { store, clock } = deps;
  const keys = runKeys(owner, repo, item.runId);
  const run = await readArtifactIfPresent(store, keys.run, RunRecord);
  const request = await readArtifactIfPresent(store, keys.request, RunRequest);
  const stamp = new Date(clock.now()).toISOString();
  const analysis = request?.forcedMode === 'analysis';
  const stillMoving =
    !run || run.status === 'QUEUED' || run.status === 'RUNNING' || (run.status === 'COMPLETED' && !analysis && run.headCommitSha !== undefined);
  if (stillMoving) return { item, step: { state: 'running', waitSeconds: POLL_SECONDS } };
  const gate = await readArtifactIfPresent(store, keys.gate(run.attempt), GateRecord);
  const state: CampaignItem['state'] =
    run.status === 'CLOSED'
      ? 'closed'
      : analysis && run.status === 'COMPLETED'
        ? 'unchanged'
        : outcomeOf(run.status, run.headCommitSha !== undefined, run.reason);
  const next: CampaignItem = {
    ...item,
    state,
    status: run.status,
    reason: run.reason ?? (analysis ? 'ANALYSIS' : undefined),
    pullRequest: run.pullRequest,
    risk: gate?.riskLevel,
    endedAt: run.updatedAt,
    updatedAt: stamp,
  };
  return { item: next, step: ended(next) };
}
