import type { AgentPolicy } from '../../../core/policy/agent-policy.js';
import { readOpenAgentRun, type OpenAgentRun } from '../../../core/runs/open-runs.js';
import { keepCurrent, type KeepCurrentOutcome } from '../keep-current.js';
import { TEXTS } from '../texts.js';
import type { TriggerOutcome } from '../trigger-outcome.js';
import type { WebhookSession } from '../webhook-session.js';
import type { CommandContext } from './command-context.js';
import { readLatestRun } from './latest-run.js';

/**
 * Rebuild the open agent pull request of an issue's latest run on its base branch's head, as a
 * command asks (`/agent rebase`, `/agent campaign rebase`): undefined when the issue has no open
 * agent pull request.
 */
export async function rebaseIssueRun(
  session: WebhookSession,
  policy: AgentPolicy,
  issueNumber: number,
  sender: string,
): Promise<{ run: OpenAgentRun; kept: KeepCurrentOutcome } | undefined> {
  const found = await readLatestRun(session, issueNumber);
  const run = found ? await readOpenAgentRun(session.deps.store, found.keys) : undefined;
  if (!run) return undefined;
  const api = await session.api();
  const base = await api.rest.repos.getBranch({ owner: session.owner, repo: session.repo, branch: run.record.baseBranch });
  return { run, kept: await keepCurrent(session, policy, run, { kind: 'command', baseHead: base.data.commit.sha, sender }) };
}

/**
 * `/agent rebase`: rebuild the issue's open agent pull request on its base branch's head now,
 * whatever `baseMovementPolicy` says; a branch with commits the App did not make is only
 * reported as behind (src/core/runs/keep-current.ts).
 */
export async function rebaseCommand({ session, policy, payload }: CommandContext): Promise<TriggerOutcome> {
  const issueNumber = payload.issue.number;
  const rebased = await rebaseIssueRun(session, policy, issueNumber, payload.sender.login);
  if (!rebased) {
    await session.reply(issueNumber, TEXTS.noOpenPullRequest);
    return { kind: 'replied', why: 'no open agent pull request' };
  }
  const { run, kept } = rebased;
  const { outcome } = kept;
  if (outcome.kind === 'reported') return { kind: 'replied', why: `behind, not rebuilt (${kept.decision})` };
  if (outcome.kind === 'skipped') {
    await session.reply(issueNumber, kept.decision === 'up-to-date' ? TEXTS.upToDate(run.record.baseBranch) : TEXTS.notRebuilt(outcome.why));
    return { kind: 'replied', why: outcome.why };
  }
  return outcome;
}
