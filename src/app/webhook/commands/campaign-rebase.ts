import type { CampaignItem, CampaignRecord } from '../../../core/campaign/campaign-record.js';
import { REBASE_LOOKS_PER_COMMAND, rebuildsPerCommand } from '../../../core/campaign/pace.js';
import { meetsPermission } from '../../../core/policy/agent-policy.js';
import { cell } from '../../../core/text/report-markdown.js';
import { splitRepository } from '../../campaign/campaign-state.js';
import { readTrustedPolicy } from '../../github/read-trusted-policy.js';
import { repositoryRole } from '../permissions.js';
import type { TriggerOutcome } from '../trigger-outcome.js';
import { WebhookSession } from '../webhook-session.js';
import { itemsOf } from './campaign-bulk.js';
import { rebaseIssueRun } from './rebase.js';

/** What `/agent campaign rebase` did for one repository, and whether it queued a rebuild. */
interface ItemRebase {
  text: string;
  rebuilt: boolean;
}

/**
 * `/agent campaign rebase`: for each repository whose campaign pull request is open, what
 * `/agent rebase` on its campaign issue would do (src/app/webhook/commands/rebase.ts): rebuilt
 * on its base branch's head when the base moved and the branch is all the App's, reported as
 * behind when someone else's commits are on it, left alone when up to date. The target's own
 * trusted policy decides as for any command there (disabled: nothing; the admin below its
 * `triggers.minPermission`: nothing). A rebuild is a new attempt that publishes again, so one
 * command rebuilds at most `rebuildsPerCommand` (the campaign's pace) and looks at most at
 * `REBASE_LOOKS_PER_COMMAND` pull requests; the reply lists each repository it looked at and,
 * when it stopped early, the `from <owner/repo>` that goes on.
 */
export async function campaignRebase(session: WebhookSession, issue: number, record: CampaignRecord, sender: string, args: string): Promise<TriggerOutcome> {
  // `from <owner/repo>`: go on where the last command stopped (items are in name order).
  const from = /^from\s+(\S+)/i.exec(args)?.[1]?.toLowerCase() ?? '';
  const open = (await itemsOf(session, record)).filter((i) => i.state === 'changed' && i.issue !== undefined && i.repositoryId !== undefined);
  const items = open.filter((i) => i.repository.toLowerCase() >= from);
  const cap = rebuildsPerCommand(record.spec.pace.startsPerMinute);
  const rows: string[] = [];
  let rebuilt = 0;
  let next: CampaignItem | undefined;
  for (const item of items) {
    if (rebuilt >= cap || rows.length >= REBASE_LOOKS_PER_COMMAND) {
      next = item;
      break;
    }
    const done = await rebaseItem(session, record, item, sender);
    if (done.rebuilt) rebuilt++;
    const pr = item.pullRequest ? `[#${item.pullRequest.number}](${item.pullRequest.url})` : '';
    rows.push(`| ${cell(item.repository)} | ${pr} | ${cell(done.text)} |`);
  }
  const lines = [
    `Campaign \`${record.campaignId}\`: ${rebuilt} pull request${rebuilt === 1 ? '' : 's'} rebuilding on the new head of ${rebuilt === 1 ? 'its' : 'their'} base.`,
    ...(rows.length > 0 ? ['', '| repository | PR | rebase |', '|---|---|---|', ...rows] : ['', 'No campaign pull request is open.']),
    ...(next
      ? [
          '',
          `The campaign's pace stops here for this command: comment \`/agent campaign rebase from ${next.repository}\` to go on${rebuilt >= cap ? ' (in an hour)' : ''}.`,
        ]
      : []),
  ];
  await session.reply(issue, lines.join('\n'));
  return { kind: 'replied', why: `campaign rebase: ${rebuilt} rebuilt` };
}

async function rebaseItem(home: WebhookSession, record: CampaignRecord, item: CampaignItem, sender: string): Promise<ItemRebase> {
  const { owner, repo } = splitRepository(item.repository);
  const installationId = item.installationId ?? record.home.installationId;
  const probe = new WebhookSession(
    home.deps,
    { id: item.repositoryId!, name: repo, full_name: item.repository, owner: { login: owner }, default_branch: '' },
    installationId,
  );
  const api = await probe.api();
  const { data } = await api.rest.repos.get({ owner, repo });
  const target = new WebhookSession(
    home.deps,
    {
      id: data.id,
      name: data.name,
      full_name: data.full_name,
      owner: { login: data.owner.login },
      default_branch: data.default_branch,
      clone_url: data.clone_url,
    },
    installationId,
  );
  const trusted = await readTrustedPolicy(api, { owner, repo, defaultBranch: data.default_branch });
  if (!trusted.ok) return { text: `not rebuilt: its policy is invalid (${trusted.error.reason})`, rebuilt: false };
  const { policy } = trusted;
  if (!policy.agent.enabled) return { text: 'not rebuilt: its policy disables the agent', rebuilt: false };
  const role = await repositoryRole(target, sender);
  if (!meetsPermission(role, policy.triggers.minPermission))
    return { text: `not rebuilt: @${sender} has ${role} there, its policy asks for ${policy.triggers.minPermission}`, rebuilt: false };
  const rebased = await rebaseIssueRun(target, policy, item.issue!, sender);
  if (!rebased) return { text: 'no open agent pull request', rebuilt: false };
  const { kept } = rebased;
  const { outcome } = kept;
  if (outcome.kind === 'started') return { text: 'rebuilding on the new base', rebuilt: true };
  if (outcome.kind === 'duplicate') return { text: 'already rebuilding on this base', rebuilt: false };
  if (outcome.kind === 'reported') return { text: `behind, not rebuilt (${kept.decision}): said on the pull request`, rebuilt: false };
  if (outcome.kind === 'skipped') return { text: kept.decision === 'up-to-date' ? 'up to date' : `not rebuilt: ${outcome.why}`, rebuilt: false };
  return { text: `not rebuilt: ${outcome.kind === 'replied' || outcome.kind === 'ignored' ? outcome.why : outcome.kind}`, rebuilt: false };
}
