import type { AgentPolicy } from '../../core/policy/agent-policy.js';
import { readTrustedPolicy } from '../github/read-trusted-policy.js';
import { POLICY_ERROR_MARKER, TEXTS, actionRequired } from './texts.js';
import type { WebhookSession } from './webhook-session.js';

/**
 * The trusted policy for a trigger, or undefined when it refuses everything: an invalid or
 * oversized file gets (or updates) the one "Action Required" comment, a disabled agent a short
 * reply.
 */
export async function policyForTrigger(session: WebhookSession, issueNumber: number): Promise<AgentPolicy | undefined> {
  const trusted = await readTrustedPolicy(await session.api(), { owner: session.owner, repo: session.repo, defaultBranch: session.defaultBranch });
  if (!trusted.ok) {
    session.deps.logger.warn('policy invalid', { owner: session.owner, repo: session.repo, reason: trusted.error.reason });
    await session.upsertMarkedComment(issueNumber, POLICY_ERROR_MARKER, actionRequired(trusted.error));
    return undefined;
  }
  if (!trusted.policy.agent.enabled) {
    await session.reply(issueNumber, TEXTS.disabled);
    return undefined;
  }
  return trusted.policy;
}
