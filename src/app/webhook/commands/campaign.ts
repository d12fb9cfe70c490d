import { putArtifactIfAbsent, readArtifactIfPresent } from '../../../core/artifacts/artifact-io.js';
import { commandClaimKey } from '../../../core/artifacts/keys.js';
import { campaignKeys } from '../../../core/artifacts/campaign-keys.js';
import { CampaignRecord, campaignIdFor, campaignSpecDigest } from '../../../core/campaign/campaign-record.js';
import { CampaignError, parseCampaignBlock } from '../../../core/campaign/parse-campaign.js';
import { fenced } from '../../../core/text/report-markdown.js';
import { CommandClaim } from '../../../core/runs/run-state.js';
import { parseSlashCommand } from '../../../core/task/slash-command.js';
import { hasPermission } from '../permissions.js';
import { TEXTS } from '../texts.js';
import type { TriggerOutcome } from '../trigger-outcome.js';
import { commentTriggerKey, labelTriggerKey } from '../trigger-identity.js';
import type { IssuesLabeledPayload } from '../webhook-payloads.js';
import type { WebhookSession } from '../webhook-session.js';
import type { CommandContext } from './command-context.js';
import { campaignClose, campaignPause, campaignRetryFailed, campaignStatus, latestCampaign } from './campaign-bulk.js';
import { campaignRebase } from './campaign-rebase.js';

/** The label that starts a campaign from its home issue (docs/campaigns.md). */
export const CAMPAIGN_LABEL = 'agent:campaign';

/** Marks the one comment that lists a campaign spec's problems on its home issue (edited, never repeated). */
export const CAMPAIGN_ERROR_MARKER = '<!-- draftsman:campaign-invalid -->';

interface CampaignStart {
  issue: IssuesLabeledPayload['issue'];
  sender: string;
  trigger: string;
}

/** `/agent campaign start` (and the other campaign commands, docs/campaigns.md) on a home issue. */
export async function campaignCommand({ session, policy, payload }: CommandContext): Promise<TriggerOutcome> {
  const args = parseSlashCommand(payload.comment.body, policy.triggers.commandPrefix)?.args ?? '';
  const sub = args.split(/\s+/)[0]?.toLowerCase() ?? '';
  if (sub === 'start') return startCampaign(session, { issue: payload.issue, sender: payload.sender.login, trigger: commentTriggerKey(payload) });
  const issue = payload.issue.number;
  const bulk = ['status', 'retry-failed', 'rebase', 'close', 'pause', 'resume'];
  if (bulk.includes(sub)) {
    const record = await latestCampaign(session, issue);
    if (!record) {
      await session.reply(issue, TEXTS.noCampaign);
      return { kind: 'replied', why: 'no campaign on this issue' };
    }
    if (sub === 'status')
      return campaignStatus(session, issue, payload.issue.html_url, record, { sender: payload.sender.login, commentId: payload.comment.id });
    if (!(await hasPermission(session, issue, payload.sender.login, 'admin'))) return { kind: 'replied', why: 'insufficient permission' };
    // A bulk command acts once per comment, whatever delivery carries it.
    const claim = {
      schemaVersion: 1 as const,
      commentId: payload.comment.id,
      command: `campaign ${sub}`,
      sender: payload.sender.login,
      at: new Date(session.deps.clock.now()).toISOString(),
    };
    if (!(await putArtifactIfAbsent(session.deps.store, commandClaimKey(session.owner, session.repo, issue, payload.comment.id), CommandClaim, claim))) {
      return { kind: 'ignored', why: 'this comment already acted (a redelivery or a replay)' };
    }
    if (sub === 'retry-failed') return campaignRetryFailed(session, issue, record, payload.comment.id);
    if (sub === 'pause' || sub === 'resume') return campaignPause(session, issue, record, payload.sender.login, sub === 'pause');
    if (sub === 'rebase') return campaignRebase(session, issue, record, payload.sender.login, args.slice(sub.length).trim());
    return campaignClose(session, issue, record, payload.sender.login, args.slice(sub.length).trim(), payload.comment.id);
  }
  await session.reply(payload.issue.number, TEXTS.campaignUsage(policy.triggers.commandPrefix));
  return { kind: 'replied', why: 'campaign usage' };
}

/** The `agent:campaign` label on a home issue: the same as `/agent campaign start`, by whoever applied it. */
export function campaignFromLabel(session: WebhookSession, payload: IssuesLabeledPayload, label: { id: number }): Promise<TriggerOutcome> {
  return startCampaign(session, { issue: payload.issue, sender: payload.sender.login, trigger: labelTriggerKey(payload.issue, label) });
}

/**
 * Start a campaign from its home issue: the sender must be an admin of the home repository; the
 * spec is the issue's `agent` block (problems go to one comment, edited in place); the campaign
 * record is written once (putIfAbsent: a redelivered start, a retried intake, or the label and
 * the command for one spec find the record that exists), and the fan-out starts under the
 * campaign's id, once. Only the intake writes the record (docs/campaigns.md, "Who writes what").
 */
export async function startCampaign(session: WebhookSession, start: CampaignStart): Promise<TriggerOutcome> {
  const { store, clock, campaigns, logger } = session.deps;
  const issue = start.issue.number;
  if (start.issue.state === 'closed') return { kind: 'ignored', why: 'the issue is closed' };
  if (!campaigns) {
    await session.reply(issue, TEXTS.campaignsNotSetUp);
    return { kind: 'replied', why: 'campaigns are not set up' };
  }
  if (!(await hasPermission(session, issue, start.sender, 'admin'))) return { kind: 'replied', why: 'insufficient permission' };
  let spec;
  try {
    spec = parseCampaignBlock(start.issue.body ?? '', `issue #${issue}`);
  } catch (error) {
    if (!(error instanceof CampaignError)) throw error;
    await session.upsertMarkedComment(issue, CAMPAIGN_ERROR_MARKER, TEXTS.campaignInvalid(fenced('text', error.format()).join('\n')));
    return { kind: 'replied', why: 'campaign spec invalid' };
  }
  const specDigest = campaignSpecDigest(spec);
  const campaignId = campaignIdFor(spec, session.repositoryId, issue, specDigest);
  const keys = campaignKeys(session.owner, session.repo, issue, campaignId);
  const fresh: CampaignRecord = {
    schemaVersion: 1,
    campaignId,
    home: {
      owner: session.owner,
      repo: session.repo,
      repositoryId: session.repositoryId,
      installationId: session.installationId,
      issue,
      defaultBranch: session.defaultBranch,
      cloneUrl: session.cloneUrl,
    },
    spec,
    specDigest,
    sender: start.sender,
    trigger: start.trigger,
    createdAt: new Date(clock.now()).toISOString(),
  };
  await putArtifactIfAbsent(store, keys.record, CampaignRecord, fresh);
  const record = await readArtifactIfPresent(store, keys.record, CampaignRecord);
  if (!record) throw new Error(`the campaign record ${keys.record} vanished after it was written`);
  const execution = await campaigns.start({ campaignId, key: keys.record });
  logger.info('campaign started', { owner: session.owner, repo: session.repo, issue, campaignId, execution });
  return { kind: 'campaign', campaignId, execution };
}
