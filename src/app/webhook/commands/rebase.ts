import { readOpenAgentRun } from '../../../core/runs/open-runs.js';
import { keepCurrent } from '../keep-current.js';
import { TEXTS } from '../texts.js';
import type { TriggerOutcome } from '../trigger-outcome.js';
import type { CommandContext } from './command-context.js';
import { readLatestRun } from './latest-run.js';

/**
 * `/agent rebase`: rebuild the issue's open agent pull request on its base branch's head now,
 * whatever `baseMovementPolicy` says; a branch with commits the App did not make is only
 * reported as behind (src/core/runs/keep-current.ts).
 */
export async function rebaseCommand({ session, policy, payload }: CommandContext): Promise<TriggerOutcome> {
  const issueNumber = payload.issue.number;
  const found = await readLatestRun(session, issueNumber);
  const run = found ? await readOpenAgentRun(session.deps.store, found.keys) : undefined;
  if (!run) {
    await session.reply(issueNumber, TEXTS.noOpenPullRequest);
    return { kind: 'replied', why: 'no open agent pull request' };
  }
  const api = await session.api();
  const base = await api.rest.repos.getBranch({ owner: session.owner, repo: session.repo, branch: run.record.baseBranch });
  const kept = await keepCurrent(session, policy, run, { kind: 'command', baseHead: base.data.commit.sha, sender: payload.sender.login });
  const { outcome } = kept;
  if (outcome.kind === 'reported') return { kind: 'replied', why: `behind, not rebuilt (${kept.decision})` };
  if (outcome.kind === 'skipped') {
    await session.reply(issueNumber, kept.decision === 'up-to-date' ? TEXTS.upToDate(run.record.baseBranch) : TEXTS.notRebuilt(outcome.why));
    return { kind: 'replied', why: outcome.why };
  }
  return outcome;
}
