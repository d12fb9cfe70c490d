import { InvokeCommand } from '@aws-sdk/client-lambda';
import { Buffer } from 'node:buffer';
import { z } from 'zod';
import type { AgentSchedule } from '../../core/policy/agent-schedules.js';
import { POLICY_FILE_NAME } from '../../core/policy/agent-policy.js';
import type { LambdaLike } from '../aws/invoke-json.js';
import { readTrustedPolicy } from '../github/read-trusted-policy.js';
import { Repository } from '../webhook/webhook-payloads.js';
import { WebhookSession, type TriggerDeps } from '../webhook/webhook-session.js';
import { installationPrefix, repositoryPrefix, scheduleName, type ScheduleBackend, type ScheduleFire } from './schedule-backend.js';

/**
 * What the intake asks of the trusted schedule sync (schedule-sync function): bring one
 * repository's schedules in line with its default branch's policy, or remove every schedule of
 * an installation that was deleted.
 */
export const ScheduleSyncRequest = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('repository'), installationId: z.number().int().positive(), repository: Repository }),
  z.strictObject({ kind: z.literal('installation-deleted'), installationId: z.number().int().positive() }),
  z.strictObject({
    kind: z.literal('repositories-removed'),
    installationId: z.number().int().positive(),
    repositoryIds: z.array(z.number().int().positive()).min(1).max(1000),
  }),
]);
export type ScheduleSyncRequest = z.infer<typeof ScheduleSyncRequest>;

/** Starts a sync elsewhere (an asynchronous invocation of schedule-sync), or here (`serve`, the harness). */
export interface ScheduleSyncLauncher {
  sync(request: ScheduleSyncRequest): Promise<void>;
}

export interface SyncReport {
  created: string[];
  updated: string[];
  deleted: string[];
  unchanged: string[];
  /** Why nothing was changed, when nothing was looked at. */
  skipped?: string;
}

export interface ScheduleSyncDeps extends TriggerDeps {
  schedules: ScheduleBackend;
}

/**
 * One sync: the repository's policy read from its default branch (never from the request),
 * then its schedules made to match `agent.schedules` (none when the agent is disabled). A policy
 * that is refused changes nothing: the schedules stay, and each firing reads the policy again
 * and starts nothing while it is refused. Idempotent: a second sync of the same policy changes
 * nothing, as names come from installation, repository and entry.
 */
export async function syncSchedules(deps: ScheduleSyncDeps, request: ScheduleSyncRequest): Promise<SyncReport> {
  const report: SyncReport = { created: [], updated: [], deleted: [], unchanged: [] };
  if (request.kind !== 'repository') {
    const prefixes =
      request.kind === 'installation-deleted'
        ? [installationPrefix(request.installationId)]
        : request.repositoryIds.map((id) => repositoryPrefix(request.installationId, id));
    for (const prefix of prefixes) {
      for (const name of await deps.schedules.list(prefix)) {
        await deps.schedules.remove(name);
        report.deleted.push(name);
      }
    }
    return report;
  }
  const session = new WebhookSession(deps, request.repository, request.installationId);
  const trusted = await readTrustedPolicy(await session.api(), { ...session.ref, defaultBranch: session.defaultBranch });
  if (!trusted.ok) return { ...report, skipped: `the policy is refused (${trusted.error.reason})` };
  const entries = trusted.policy.agent.enabled ? trusted.policy.agent.schedules : [];
  const fires = new Map(entries.map((entry) => [scheduleName(session.installationId, session.repositoryId, entry.name), fireOf(session, entry)]));
  for (const name of await deps.schedules.list(repositoryPrefix(session.installationId, session.repositoryId))) {
    if (fires.has(name)) continue;
    await deps.schedules.remove(name);
    report.deleted.push(name);
  }
  for (const [name, fire] of fires) {
    const current = await deps.schedules.get(name);
    if (current && sameFire(current, fire)) {
      report.unchanged.push(name);
      continue;
    }
    report[(await deps.schedules.put(name, fire)) === 'created' ? 'created' : 'updated'].push(name);
  }
  deps.logger.info('schedules synchronised', { owner: session.owner, repo: session.repo, commitSha: trusted.commitSha, ...report });
  return report;
}

function fireOf(session: WebhookSession, entry: AgentSchedule): ScheduleFire {
  return {
    installationId: session.installationId,
    repositoryId: session.repositoryId,
    owner: session.owner,
    repo: session.repo,
    schedule: entry.name,
    cron: entry.cron.trim().replace(/\s+/g, ' '),
  };
}

function sameFire(a: ScheduleFire, b: ScheduleFire): boolean {
  return (
    a.installationId === b.installationId &&
    a.repositoryId === b.repositoryId &&
    a.owner === b.owner &&
    a.repo === b.repo &&
    a.schedule === b.schedule &&
    a.cron === b.cron
  );
}

const InstallationChange = z.object({
  action: z.string(),
  installation: z.object({ id: z.number().int().positive() }),
  repositories_removed: z.array(z.object({ id: z.number().int().positive() })).optional(),
});

/**
 * A sync request for an `installation` or `installation_repositories` event: every schedule of
 * an uninstalled installation, or of the repositories taken out of it, goes. Undefined for any
 * other action.
 */
export function syncRequestForInstallation(event: 'installation' | 'installation_repositories', payload: unknown): ScheduleSyncRequest | undefined {
  const parsed = InstallationChange.safeParse(payload);
  if (!parsed.success) return undefined;
  const { action, installation, repositories_removed: removed } = parsed.data;
  if (event === 'installation' && action === 'deleted') return { kind: 'installation-deleted', installationId: installation.id };
  if (event === 'installation_repositories' && action === 'removed' && removed && removed.length > 0)
    return { kind: 'repositories-removed', installationId: installation.id, repositoryIds: removed.map((r) => r.id) };
  return undefined;
}

/** The subset of a `push` the sync trigger reads: which files its commits touched. */
const PolicyPush = z.object({
  ref: z.string(),
  deleted: z.boolean().optional(),
  commits: z
    .array(z.object({ added: z.array(z.string()).optional(), modified: z.array(z.string()).optional(), removed: z.array(z.string()).optional() }))
    .optional(),
  repository: Repository,
  installation: z.object({ id: z.number().int().positive() }),
});

/** GitHub lists at most this many commits in a push event: a longer push may touch the policy unseen. */
const PUSH_COMMITS_LISTED = 20;

/**
 * A sync request for a push to the default branch that touched `.agent-policy.yaml` (or may
 * have: a push listing GitHub's maximum of commits); undefined for any other push.
 */
export function syncRequestForPush(payload: unknown): ScheduleSyncRequest | undefined {
  const push = PolicyPush.parse(payload);
  if (push.deleted || push.ref !== `refs/heads/${push.repository.default_branch}`) return undefined;
  const commits = push.commits ?? [];
  const touched = commits.some((c) => [...(c.added ?? []), ...(c.modified ?? []), ...(c.removed ?? [])].includes(POLICY_FILE_NAME));
  if (!touched && commits.length < PUSH_COMMITS_LISTED) return undefined;
  return { kind: 'repository', installationId: push.installation.id, repository: push.repository };
}

/**
 * The deployed launcher: an asynchronous invocation of schedule-sync (Lambda retries it and
 * dead-letters what keeps failing), so the intake holds no Scheduler permission itself.
 */
export function lambdaScheduleSync(client: LambdaLike, functionName: string): ScheduleSyncLauncher {
  return {
    async sync(request) {
      await client.send(new InvokeCommand({ FunctionName: functionName, InvocationType: 'Event', Payload: Buffer.from(JSON.stringify(request)) }));
    },
  };
}
