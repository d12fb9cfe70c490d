import { readTrustedPolicy } from '../github/read-trusted-policy.js';
import type { RepositoryResolver } from '../campaign/campaign-item.js';
import { startRun } from '../webhook/commands/start-run.js';
import type { TriggerOutcome } from '../webhook/trigger-outcome.js';
import { WebhookSession, type TriggerDeps } from '../webhook/webhook-session.js';
import type { ScheduleFire } from './schedule-backend.js';
import { scheduleIssue, scheduleTask } from './schedule-issue.js';

export interface ScheduledRunDeps extends TriggerDeps {
  repositories: RepositoryResolver;
}

const HOUR_MS = 60 * 60 * 1000;

/** The clock hour a firing belongs to: every delivery of one firing, and any firing within the hour, is one run. */
export function scheduleHour(fire: ScheduleFire, now: number): string {
  const due = fire.scheduledTime !== undefined ? Date.parse(fire.scheduledTime) : Number.NaN;
  const at = Number.isNaN(due) ? now : due;
  return new Date(Math.floor(at / HOUR_MS) * HOUR_MS).toISOString().slice(0, 13);
}

/**
 * A schedule fired: the repository as the installation sees it now (the id must still be the
 * one the schedule was made for), its policy read from the default branch, and the entry by
 * name. An entry that is gone, a policy refused or disabled start nothing. Then an ordinary run
 * through `startRun` (mode, lock, limits, progress comment, request.json), keyed by the entry
 * and the hour it was due, on the entry's issue or its tracking issue.
 */
export async function startScheduledRun(deps: ScheduledRunDeps, fire: ScheduleFire): Promise<TriggerOutcome> {
  const target = await deps.repositories.resolve(`${fire.owner}/${fire.repo}`, fire.installationId);
  if (!target || target.id !== fire.repositoryId) return { kind: 'ignored', why: 'the repository is not the one the schedule was made for' };
  const session = WebhookSession.forResolved(deps, target);
  const trusted = await readTrustedPolicy(await session.api(), { ...session.ref, defaultBranch: target.defaultBranch });
  if (!trusted.ok) return { kind: 'policy-invalid' };
  const policy = trusted.policy;
  const entry = policy.agent.schedules.find((s) => s.name === fire.schedule);
  if (!policy.agent.enabled || !entry) return { kind: 'ignored', why: 'the schedule is no longer in the policy' };
  const task = await scheduleTask(session, entry);
  const issue = await scheduleIssue(session, entry, 'problem' in task ? { title: `Scheduled run: ${entry.name}`, body: '' } : task);
  if ('problem' in task) {
    await session.upsertMarkedComment(
      issue.number,
      `<!-- draftsman:schedule-problem:${entry.name} -->`,
      `The schedule \`${entry.name}\` did not start a run: ${task.problem}.`,
    );
    return { kind: 'replied', why: task.problem };
  }
  const outcome = await startRun(session, policy, {
    issue,
    sender: deps.botLogin,
    trigger: { kind: 'schedule', key: `schedule-${entry.name}-${scheduleHour(fire, deps.clock.now())}` },
    forcedMode: entry.mode === 'analysis' ? 'analysis' : undefined,
    wordsFromPolicy: true,
  });
  deps.logger.info('schedule fired', { owner: session.owner, repo: session.repo, schedule: entry.name, outcome: outcome.kind });
  return outcome;
}
