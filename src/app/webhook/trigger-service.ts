import { putArtifactIfAbsent, readArtifactIfPresent } from '../../core/artifacts/artifact-io.js';
import { commandClaimKey, issueLatestKey, lockKey } from '../../core/artifacts/keys.js';
import { CommandClaim, IssueLatest, IssueLock } from '../../core/runs/run-state.js';
import { parseSlashCommand, type SlashCommandName } from '../../core/task/slash-command.js';
import { readTrustedPolicy } from '../github/read-trusted-policy.js';
import { analyzeCommand } from './commands/analyze.js';
import { planCommand } from './commands/plan.js';
import { CAMPAIGN_LABEL, campaignCommand, campaignFromLabel } from './commands/campaign.js';
import { approveCommand } from './commands/approve.js';
import { cancelCommand, cancelLatestRun } from './commands/cancel.js';
import { readLatestRun, writtenBefore } from './commands/latest-run.js';
import type { CommandContext } from './commands/command-context.js';
import { helpCommand } from './commands/help.js';
import { rebaseCommand } from './commands/rebase.js';
import { retryCommand } from './commands/retry.js';
import { runCommand, runFromLabel } from './commands/run.js';
import { statusCommand } from './commands/status.js';
import { closedSkip, commentSkip, labeledSkip, openedSkip, reviewCommentSkip, reviewSkip } from './event-filter.js';
import { runFromOpenedIssue } from './issue-opened.js';
import { hasMinPermission } from './permissions.js';
import { policyForTrigger } from './policy-gate.js';
import type { TriggerOutcome } from './trigger-outcome.js';
import { onPullRequestMention, onReviewCommentMention, onReviewSubmitted, routePullRequestComment } from './pr-triggers.js';
import { TEXTS } from './texts.js';
import type {
  IssueCommentCreatedPayload,
  IssuesClosedPayload,
  IssuesLabeledPayload,
  IssuesOpenedPayload,
  PullRequestReviewCommentCreatedPayload,
  PullRequestReviewSubmittedPayload,
} from './webhook-payloads.js';
import { WebhookSession, type TriggerDeps } from './webhook-session.js';

export type { TriggerOutcome } from './trigger-outcome.js';
export type TriggerServiceOptions = TriggerDeps;

/**
 * Each slash command, whether it needs the policy's minimum permission, and whether it acts at
 * most once per comment (commands on an existing run; `run` and `analyze` are keyed by the
 * comment already, see trigger-identity.ts).
 */
const COMMANDS: Record<SlashCommandName, { handle: (ctx: CommandContext) => Promise<TriggerOutcome>; needsPermission: boolean; actsOnce?: boolean }> = {
  run: { handle: runCommand, needsPermission: true },
  analyze: { handle: analyzeCommand, needsPermission: true },
  plan: { handle: planCommand, needsPermission: true },
  cancel: { handle: cancelCommand, needsPermission: true, actsOnce: true },
  approve: { handle: approveCommand, needsPermission: true, actsOnce: true },
  retry: { handle: retryCommand, needsPermission: true, actsOnce: true },
  rebase: { handle: rebaseCommand, needsPermission: true, actsOnce: true },
  status: { handle: statusCommand, needsPermission: false },
  help: { handle: helpCommand, needsPermission: false },
  // On an issue, `revise` is only pointed at the pull request (a PR routes it before this table).
  revise: { handle: reviseOnIssue, needsPermission: false },
  // A campaign needs `admin` on its home repository; the command checks it (commands/campaign.ts).
  campaign: { handle: campaignCommand, needsPermission: false },
};

/**
 * A command is about the run that existed when it was written: a comment older than the issue's
 * latest run (its `created_at`, signed, against the intake-written request of that run) is a
 * late or replayed delivery and acts on nothing.
 */
async function commentPredatesRun(session: WebhookSession, payload: IssueCommentCreatedPayload): Promise<string | undefined> {
  const written = payload.comment.created_at;
  if (written === undefined) return undefined;
  const found = await readLatestRun(session, payload.issue.number);
  if (!found) return undefined;
  return writtenBefore(written, found.request.createdAt) ? found.request.runId : undefined;
}

async function reviseOnIssue({ session, policy, payload }: CommandContext): Promise<TriggerOutcome> {
  await session.reply(payload.issue.number, TEXTS.reviseOnPullRequest(policy.triggers.commandPrefix));
  return { kind: 'replied', why: 'revise works on the pull request' };
}

/**
 * What the webhook does with a trigger: decide whether to care, then write the request. It
 * never runs the pipeline; the worker does, from the stored snapshot. Each event is routed
 * here; the commands live in ./commands, one file each.
 */
export class TriggerService {
  constructor(private readonly deps: TriggerDeps) {}

  async onLabeled(payload: IssuesLabeledPayload): Promise<TriggerOutcome> {
    const skip = labeledSkip(payload, this.deps.botLogin);
    const label = payload.label;
    if (skip !== undefined || !label) return { kind: 'ignored', why: skip ?? 'no label in the event' };
    const session = new WebhookSession(this.deps, payload.repository, payload.installation.id);
    const policy = await policyForTrigger(session, payload.issue.number);
    if (!policy) return { kind: 'policy-invalid' };
    if (label.name === CAMPAIGN_LABEL) return campaignFromLabel(session, payload, label);
    if (label.name !== policy.triggers.label) return { kind: 'ignored', why: 'not the trigger label' };
    return runFromLabel(session, policy, payload, label);
  }

  /** An opened issue: a run under `agent.on.issueOpened` when it matches and its author may write (issue-opened.ts). */
  async onOpened(payload: IssuesOpenedPayload): Promise<TriggerOutcome> {
    const skip = openedSkip(payload, this.deps.botLogin);
    if (skip !== undefined) return { kind: 'ignored', why: skip };
    const session = new WebhookSession(this.deps, payload.repository, payload.installation.id);
    const trusted = await readTrustedPolicy(await session.api(), { ...session.ref, defaultBranch: session.defaultBranch });
    // Quiet: an issue nobody asked the App about gets no policy complaint.
    if (!trusted.ok || !trusted.policy.agent.enabled) return { kind: 'ignored', why: 'the policy is refused or disabled' };
    return runFromOpenedIssue(session, trusted.policy, payload);
  }

  async onComment(event: IssueCommentCreatedPayload): Promise<TriggerOutcome> {
    let payload = event;
    // Cheap checks before any API call (the webhook ran them too before it answered).
    const skip = commentSkip(payload, this.deps.botLogin);
    if (skip !== undefined) return { kind: 'ignored', why: skip };
    const session = new WebhookSession(this.deps, payload.repository, payload.installation.id);
    const policy = await policyForTrigger(session, payload.issue.number);
    if (!policy) return { kind: 'policy-invalid' };
    const parsed = parseSlashCommand(payload.comment.body, policy.triggers.commandPrefix);
    // Without a command, only a mention of the App on a pull request asks for something (commentSkip).
    if (!parsed && payload.issue.pull_request) return onPullRequestMention(session, policy, payload);
    if (!parsed) return { kind: 'ignored', why: 'no command with the policy prefix' };
    if (payload.issue.pull_request) {
      const routed = await routePullRequestComment(session, policy, payload, parsed);
      if ('outcome' in routed) return routed.outcome;
      payload = routed.payload;
    }
    const command = COMMANDS[parsed.command];
    if (command.needsPermission && !(await hasMinPermission(session, payload.issue.number, payload.sender.login, policy))) {
      return { kind: 'replied', why: 'insufficient permission' };
    }
    if (command.actsOnce && !(await this.claimComment(session, payload, parsed.command))) {
      return { kind: 'ignored', why: 'this comment already acted (a redelivery or a replay)' };
    }
    if (command.actsOnce) {
      const older = await commentPredatesRun(session, payload);
      if (older) {
        await session.reply(payload.issue.number, TEXTS.commentPredatesRun(older));
        return { kind: 'replied', why: 'the comment predates the run it would act on' };
      }
    }
    return command.handle({ session, policy, payload });
  }

  /**
   * A command that changes a run acts once per comment, whatever delivery carries it: the
   * comment id (signed content) is claimed before the command runs. A redelivery, or a captured
   * body replayed under a new delivery id, later and against another run, finds the claim.
   */
  private async claimComment(session: WebhookSession, payload: IssueCommentCreatedPayload, command: SlashCommandName): Promise<boolean> {
    const { store, clock } = this.deps;
    const claim: CommandClaim = {
      schemaVersion: 1,
      commentId: payload.comment.id,
      command,
      sender: payload.sender.login,
      at: new Date(clock.now()).toISOString(),
    };
    return putArtifactIfAbsent(store, commandClaimKey(session.owner, session.repo, payload.issue.number, payload.comment.id), CommandClaim, claim);
  }

  /** A submitted review on an agent pull request: `/agent revise` in its body, a mention of the App or a change request starts a revision with its inline comments. */
  async onReview(payload: PullRequestReviewSubmittedPayload): Promise<TriggerOutcome> {
    const skip = reviewSkip(payload, this.deps.botLogin);
    if (skip !== undefined) return { kind: 'ignored', why: skip };
    const body = payload.review.body ?? '';
    const session = new WebhookSession(this.deps, payload.repository, payload.installation.id);
    const policy = await policyForTrigger(session, payload.pull_request.number);
    if (!policy) return { kind: 'policy-invalid' };
    return onReviewSubmitted(session, policy, payload, parseSlashCommand(body, policy.triggers.commandPrefix));
  }

  /** An inline review comment on an agent pull request that mentions the App starts a revision carrying it. */
  async onReviewComment(payload: PullRequestReviewCommentCreatedPayload): Promise<TriggerOutcome> {
    const skip = reviewCommentSkip(payload, this.deps.botLogin);
    if (skip !== undefined) return { kind: 'ignored', why: skip };
    const session = new WebhookSession(this.deps, payload.repository, payload.installation.id);
    const policy = await policyForTrigger(session, payload.pull_request.number);
    if (!policy) return { kind: 'policy-invalid' };
    return onReviewCommentMention(session, policy, payload);
  }

  /**
   * Closing an issue cancels its active run, under the same rule as `/agent cancel`: the
   * closer needs the trusted policy's minimum permission; bots and the App are ignored. Nothing
   * is said on the issue when the closer may not cancel: closing is not a request to the App.
   */
  async onClosed(payload: IssuesClosedPayload): Promise<TriggerOutcome> {
    const skip = closedSkip(payload, this.deps.botLogin);
    if (skip !== undefined) return { kind: 'ignored', why: skip };
    const session = new WebhookSession(this.deps, payload.repository, payload.installation.id);
    const { store } = this.deps;
    const issueNumber = payload.issue.number;
    const latest = await readArtifactIfPresent(store, issueLatestKey(session.owner, session.repo, issueNumber), IssueLatest);
    if (!latest) return { kind: 'ignored', why: 'no run for this issue' };
    const lock = await readArtifactIfPresent(store, lockKey(session.owner, session.repo, issueNumber), IssueLock);
    if (!lock) return { kind: 'ignored', why: 'no active run' };
    const trusted = await readTrustedPolicy(await session.api(), { owner: session.owner, repo: session.repo, defaultBranch: session.defaultBranch });
    if (!trusted.ok) return { kind: 'ignored', why: `the policy is refused (${trusted.error.reason}); the run goes on` };
    if (!(await hasMinPermission(session, issueNumber, payload.sender.login, trusted.policy, { quiet: true }))) {
      this.deps.logger.info('issue closed by a user who may not cancel', { owner: session.owner, repo: session.repo, issue: issueNumber, runId: latest.runId });
      return { kind: 'ignored', why: 'the closer may not cancel runs' };
    }
    return cancelLatestRun(session, issueNumber, payload.sender.login, 'the issue was closed');
  }
}
