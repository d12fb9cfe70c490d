import type { CampaignRecord } from '../../core/campaign/campaign-record.js';
import { NO_RETRY, createOnce } from '../github/create-once.js';
import type { IssuesLabeledPayload } from '../webhook/webhook-payloads.js';
import type { WebhookSession } from '../webhook/webhook-session.js';
import { campaignTask } from './campaign-task.js';

/** Marks the issue a campaign opens in a target repository (one per campaign and repository). */
export function campaignIssueMarker(campaignId: string): string {
  return `<!-- draftsman:campaign-item:${campaignId} -->`;
}

/** The campaign issue's body: the campaign's task (its title, description and `agent` block), where it comes from, and the marker. */
export function campaignIssueBody(record: CampaignRecord): string {
  const home = `${record.home.owner}/${record.home.repo}#${record.home.issue}`;
  const preface = record.spec.pullRequest.bodyPreface ? `${record.spec.pullRequest.bodyPreface}\n\n` : '';
  return `${preface}${campaignTask(record.spec)}\nPart of campaign \`${record.spec.name}\` (${home}), started by @${record.sender}. This repository's \`.agent-policy.yaml\` decides as for any run; \`/agent approve\`, \`/agent retry\` and \`/agent cancel\` work here.\n\n${campaignIssueMarker(record.campaignId)}`;
}

/**
 * The run's home in the target repository: an issue the App opens once per campaign (found
 * again by its marker after a lost answer or a retried start, or by the number the item
 * recorded), carrying the campaign's task. The run's snapshot takes its words as the campaign
 * sender's (`user`): they are the spec the sender started, and the sender's permission on this
 * repository was checked against its policy before.
 */
export async function targetIssue(session: WebhookSession, record: CampaignRecord, known: number | undefined): Promise<IssuesLabeledPayload['issue']> {
  const api = await session.api();
  const marker = campaignIssueMarker(record.campaignId);
  const find = async () => {
    if (known !== undefined) return (await api.rest.issues.get({ ...session.ref, issue_number: known })).data;
    const mine = await api.paginate(api.rest.issues.listForRepo, { ...session.ref, state: 'all', creator: session.deps.botLogin, per_page: 100 });
    return mine.find((i) => !i.pull_request && i.body?.includes(marker));
  };
  const issue =
    (await find()) ??
    (await createOnce(api, {
      create: async () => (await api.rest.issues.create({ ...session.ref, title: record.spec.title, body: campaignIssueBody(record), ...NO_RETRY })).data,
      find,
    }));
  return {
    id: issue.id,
    number: issue.number,
    // The words are the record's, not the issue's as it reads now: an edit in the target changes nothing.
    title: record.spec.title,
    body: campaignIssueBody(record),
    updated_at: issue.updated_at,
    html_url: issue.html_url,
    state: issue.state,
    user: { login: record.sender, type: 'User' },
  };
}
