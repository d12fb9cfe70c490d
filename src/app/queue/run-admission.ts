import { admitWaiting, type AdmitReport } from '../../core/runs/admit-waiting.js';
import type { RunRequest } from '../../core/runs/run-request.js';
import { waitingMessage } from '../../core/runs/run-queue.js';
import type { GitHubApi } from '../github/github-api.js';
import { renderProgressComment } from '../github/progress-comment.js';
import { DEFAULT_LOCK_TTL_MS, type TriggerDeps } from '../webhook/webhook-session.js';

/** The worker's reserved concurrency when the deployment does not say (serverless.yml `workerConcurrency`). */
export const DEFAULT_WORKER_SLOTS = 5;

/** What a pass needs of the trigger's dependencies: a read-role broker suffices (counting the App's open pull requests, editing progress comments). */
export type AdmissionDeps = Pick<TriggerDeps, 'store' | 'tokens' | 'github' | 'clock' | 'logger' | 'botLogin' | 'workerSlots' | 'lockTtlMs'>;

/**
 * One admission pass of the run queue (src/core/runs/admit-waiting.ts) with GitHub behind it:
 * the App's open pull requests are counted through the issues API (the read token has no
 * pull_requests scope; every pull request is also an issue), and a waiting run's progress
 * comment says its place. The intake runs it for the repository it just queued a run in (`only`,
 * with the client it holds); the dispatcher runs it on every wake-up.
 */
export async function admitRuns(deps: AdmissionDeps, only?: { owner: string; repo: string; api: () => Promise<GitHubApi> }): Promise<AdmitReport> {
  const clients = new Map<string, Promise<GitHubApi>>();
  const api = (request: RunRequest): Promise<GitHubApi> => {
    // The intake's pass is over the repository it holds a client for already: no second token.
    if (only && request.owner === only.owner && request.repo === only.repo) return only.api();
    if (request.source.kind !== 'github') throw new Error(`run ${request.runId} is not a GitHub run`);
    const { installationId, repositoryId } = request.source;
    const id = `${installationId}/${repositoryId}`;
    if (!clients.has(id))
      clients.set(
        id,
        deps.tokens.token({ installationId, repositoryId, role: 'read' }).then((t) => deps.github(t.token)),
      );
    return clients.get(id)!;
  };
  const report = await admitWaiting(
    {
      store: deps.store,
      now: deps.clock.now(),
      workerSlots: deps.workerSlots ?? DEFAULT_WORKER_SLOTS,
      lockTtlMs: deps.lockTtlMs ?? DEFAULT_LOCK_TTL_MS,
      async openPullRequests(request) {
        const client = await api(request);
        const open = await client.paginate(client.rest.issues.listForRepo, {
          owner: request.owner,
          repo: request.repo,
          state: 'open',
          creator: deps.botLogin,
          per_page: 100,
        });
        return open.filter((i) => i.pull_request).length;
      },
      async showPlace(run, reason) {
        const { request } = run.entry;
        const commentId = request.issue?.progressCommentId;
        if (commentId === undefined) return false;
        const body = renderProgressComment({
          runId: request.runId,
          attempt: 1,
          status: 'QUEUED',
          phases: [],
          message: waitingMessage(run.place, reason, run.entry.limits),
        });
        // One comment GitHub refused never stops the pass: the next pass shows the place again.
        try {
          const client = await api(request);
          await client.rest.issues.updateComment({ owner: request.owner, repo: request.repo, comment_id: commentId, body });
          return true;
        } catch (error) {
          deps.logger.warn('waiting run place not shown', { runId: request.runId, status: (error as { status?: number }).status });
          return false;
        }
      },
    },
    only && { owner: only.owner, repo: only.repo },
  );
  if (report.admitted.length > 0 || report.waiting.length > 0)
    deps.logger.info('run queue passed', { admitted: report.admitted, waiting: report.waiting.length, freed: report.freed.length });
  return report;
}
