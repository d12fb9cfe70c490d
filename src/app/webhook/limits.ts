import { hourBucket, limitPrefix } from '../../core/artifacts/keys.js';
import type { AgentPolicy } from '../../core/policy/agent-policy.js';
import { TEXTS } from './texts.js';
import type { WebhookSession } from './webhook-session.js';

/**
 * Why a new run may not start now (`limits.runsPerHour`, `limits.maxOpenPullRequests`), or
 * undefined. Runs are counted by listing this hour's `limits/` keys, `runId`'s own excluded.
 */
export async function rateLimited(session: WebhookSession, policy: AgentPolicy, runId: string, now: number): Promise<string | undefined> {
  const started = (await session.deps.store.list(limitPrefix(session.owner, session.repo, hourBucket(now)))).filter((k) => !k.endsWith(`/${runId}`));
  if (started.length >= policy.limits.runsPerHour) return TEXTS.runsPerHour(policy.limits.runsPerHour);
  const api = await session.api();
  // The read token has issues but no pull_requests scope: pull requests are counted through the
  // issues API, which lists every pull request as an issue.
  const opened = await api.paginate(api.rest.issues.listForRepo, {
    owner: session.owner,
    repo: session.repo,
    state: 'open',
    creator: session.deps.botLogin,
    per_page: 100,
  });
  const open = opened.filter((i) => i.pull_request).length;
  if (open >= policy.limits.maxOpenPullRequests) return TEXTS.openPullRequests(open, policy.limits.maxOpenPullRequests);
  return undefined;
}
