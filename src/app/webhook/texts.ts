import type { AgentPolicy } from '../../core/policy/agent-policy.js';
import type { PolicyError } from '../../core/policy/policy-error.js';
import { progressMarker } from '../github/progress-comment.js';

/** Every sentence the webhook says on an issue, in one place. */
export const TEXTS = {
  disabled: 'draftsman is disabled in this repository (`agent.enabled: false` in `.agent-policy.yaml`).',
  needsPermission: (login: string, needed: string, has: string) => `@${login} needs at least \`${needed}\` permission to do that (you have \`${has}\`).`,
  campaignsNotSetUp: 'Campaigns are not set up for this App (no campaign state machine); see docs/campaigns.md.',
  campaignInvalid: (problems: string) => `**Action required**: the campaign spec in this issue's \`agent\` block is not valid:\n\n${problems}`,
  noCampaign: 'No campaign was started on this issue (`/agent campaign start`, or the label `agent:campaign`).',
  campaignUsage: (p: string) =>
    `Campaign commands on a home issue: \`${p} campaign start | status | retry-failed | rebase | pause | resume | close <reason>\`.`,
  modeNotAllowed: (modes: readonly string[]) => `This mode is not allowed by \`agent.allowedModes\` (${modes.join(', ')}).`,
  runActive: 'A run is already active on this issue; `/agent cancel` stops it, `/agent status` shows it.',
  attemptActive: 'A run is already active on this issue.',
  noRunTo: (what: string) => `There is no run on this issue to ${what}.`,
  noRunYet: 'There is no run on this issue yet.',
  noOpenPullRequest: 'There is no open draft pull request of draftsman for this issue to rebase.',
  notRebuilt: (why: string) => `Not rebuilt: ${why}.`,
  upToDate: (base: string) => `The pull request is already built on the head of \`${base}\`.`,
  nothingToApprove: (status: string) => `Nothing is waiting for approval (the latest run is ${status}).`,
  commentPredatesRun: (runId: string) =>
    `Not done: this comment was written before run \`${runId}\` started, so it is not about it. Comment again if you mean this run.`,
  approvalPredatesGate: (gateId: string) =>
    `Not approved: this comment was written before gate \`${gateId}\` was shown, so it cannot be about it. Read the gate on the progress comment, then approve again.`,
  notRetryable: (status: string) => `The latest run is ${status}; only a stopped run can be retried.`,
  nothingToRevise: 'This pull request has no published change of draftsman to revise yet.',
  reviseOnPullRequest: (prefix: string) => `\`${prefix} revise <instructions>\` works in a comment or review on the draft pull request of a run.`,
  notOnPullRequest: (prefix: string) =>
    `\`${prefix} run\`, \`${prefix} plan\` and \`${prefix} analyze\` start from an issue; in a pull request, \`${prefix} revise <instructions>\` asks for a change.`,
  status: (runId: string, attempt: number, status: string, commentId: number | undefined) =>
    `Run \`${runId}\`, attempt ${attempt}: ${status}.${commentId ? ` Progress: #issuecomment-${commentId}` : ''}`,
} as const;

/** Marks the one "Action Required" comment about the policy, so it is edited, not repeated. */
export const POLICY_ERROR_MARKER = '<!-- draftsman:policy-error -->';

/** Renovate-style "Action Required" comment for an invalid policy. */
export function actionRequired(error: PolicyError): string {
  const lines = [
    '### ⚠️ Action Required: fix `.agent-policy.yaml`',
    '',
    'draftsman will not start runs in this repository until the policy file on the default branch is valid.',
    '',
    '| where | type | problem |',
    '|---|---|---|',
  ];
  for (const p of error.data.problems.slice(0, 50)) {
    lines.push(
      `| \`${p.file}:${p.line}:${p.column}\`${p.path ? ` (\`${p.path}\`)` : ''} | ${p.type} | ${p.message.replace(/\|/g, '\\|').replace(/\n/g, ' ')} |`,
    );
  }
  if (error.data.problems.length > 50) lines.push(`| … | | ${error.data.problems.length - 50} more |`);
  lines.push('', 'Check it locally with `npx draftsman policy check .agent-policy.yaml`.');
  return lines.join('\n');
}

export function helpText(policy: AgentPolicy): string {
  const p = policy.triggers.commandPrefix;
  return [
    `**draftsman commands** (label \`${policy.triggers.label}\` also starts a run):`,
    '',
    `- \`${p} run\`: start a run that ends in a draft pull request`,
    `- \`${p} analyze\`: a plan and impact report, no changes`,
    `- \`${p} plan\`: start a run that stops after planning until \`${p} approve\` approves its plan, then keeps the change to the plan's files`,
    `- \`${p} status\`: where the latest run stands`,
    `- \`${p} cancel\`: stop the active run`,
    `- \`${p} approve\`: let a run waiting for approval go on`,
    `- \`${p} retry\`: start the latest run again`,
    `- \`${p} rebase\`: rebuild the open draft pull request on the head of its base branch`,
    `- \`${p} campaign start|status|retry-failed|pause|resume|close\`: a campaign over many repositories from this issue (admin; docs/campaigns.md)`,
    `- \`${p} revise <instructions>\`: in the draft pull request (a comment, or a review with inline comments), one more commit on the branch`,
    '',
    `Starting, approving, cancelling, retrying, rebasing and revising need at least \`${policy.triggers.minPermission}\` permission.`,
    '',
    '<sub>' + progressMarker('help').replace('progress', 'help') + '</sub>',
  ].join('\n');
}
