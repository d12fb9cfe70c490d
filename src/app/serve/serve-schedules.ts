import type { GitHubRetryPolicy } from '../github/github-api.js';
import { syncSchedules, type ScheduleSyncLauncher } from '../schedules/schedule-sync.js';
import { startScheduledRun } from '../schedules/scheduled-run.js';
import { lookupRepository } from '../tokens/lookup-repository.js';
import type { TriggerDeps } from '../webhook/webhook-session.js';
import { InProcessScheduler } from './in-process-scheduler.js';

export interface ServeSchedulesOptions {
  deps: TriggerDeps;
  app: { id: number; privateKey: string; apiUrl: string; githubPolicy?: Partial<GitHubRetryPolicy> };
  /** Where a due schedule's start is queued (the intake's queue: a start is an intake's work). */
  enqueue: (label: string, run: () => Promise<void>) => void;
}

/**
 * `agent.schedules` in `serve`: the in-process scheduler as the sync's backend (kept in the
 * store, armed again at start), the same sync the deployed schedule-sync runs, and each due
 * schedule started through the same `startScheduledRun` as schedule-fire.
 */
export async function serveSchedules(options: ServeSchedulesOptions): Promise<{ scheduler: InProcessScheduler; launcher: ScheduleSyncLauncher }> {
  const { deps, app } = options;
  const repositories = {
    resolve: (fullName: string, installationId: number) =>
      lookupRepository(
        { appId: app.id, apiUrl: app.apiUrl, privateKey: app.privateKey, clock: deps.clock, policy: app.githubPolicy },
        { installationId, lookup: fullName },
      ),
  };
  const scheduler = new InProcessScheduler({
    clock: deps.clock,
    logger: deps.logger,
    store: deps.store,
    onFire: (fire) =>
      options.enqueue(`schedule ${fire.schedule}`, async () => {
        const outcome = await startScheduledRun({ ...deps, repositories }, fire);
        deps.logger.info('scheduled run', { schedule: fire.schedule, owner: fire.owner, repo: fire.repo, outcome: outcome.kind });
      }),
  });
  await scheduler.load();
  return { scheduler, launcher: { sync: async (request) => void (await syncSchedules({ ...deps, schedules: scheduler }, request)) } };
}
