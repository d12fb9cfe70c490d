import { meetsPermission, type AgentPolicy, type PermissionLevel } from '../../core/policy/agent-policy.js';
import { TEXTS } from './texts.js';
import type { WebhookSession } from './webhook-session.js';

/** Bots and the App itself never trigger, cancel or command anything. */
export function isBotOrSelf(user: { login: string; type?: string }, botLogin: string): boolean {
  return user.type === 'Bot' || user.login === botLogin || user.login.endsWith('[bot]');
}

/** The user's role on the repository (`none` when they are not a collaborator). */
export async function repositoryRole(session: WebhookSession, login: string): Promise<string> {
  const api = await session.api();
  try {
    const response = await api.rest.repos.getCollaboratorPermissionLevel({ owner: session.owner, repo: session.repo, username: login });
    return (response.data as { role_name?: string; permission?: string }).role_name ?? response.data.permission ?? 'none';
  } catch (error) {
    if ((error as { status?: number }).status !== 404) throw error;
    return 'none';
  }
}

/**
 * Whether `login` has the policy's `triggers.minPermission`: the one rule for starting,
 * approving, retrying and cancelling (by command or by closing the issue). When not, a short
 * reply says so unless `quiet`.
 */
export async function hasMinPermission(
  session: WebhookSession,
  issueNumber: number,
  login: string,
  policy: AgentPolicy,
  options: { quiet?: boolean } = {},
): Promise<boolean> {
  return hasPermission(session, issueNumber, login, policy.triggers.minPermission, options);
}

/** Whether `login` has at least `level` on the session's repository (a campaign needs `admin` on its home); a short reply when not, unless `quiet`. */
export async function hasPermission(
  session: WebhookSession,
  issueNumber: number,
  login: string,
  level: PermissionLevel,
  options: { quiet?: boolean } = {},
): Promise<boolean> {
  const role = await repositoryRole(session, login);
  if (meetsPermission(role, level)) return true;
  if (!options.quiet) await session.reply(issueNumber, TEXTS.needsPermission(login, level, role));
  return false;
}
