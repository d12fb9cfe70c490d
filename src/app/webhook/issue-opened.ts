import { PERMISSION_LEVELS, type AgentPolicy, type PermissionLevel } from '../../core/policy/agent-policy.js';
import { compileUserRegex } from '../../core/util/user-regex.js';
import { startRun } from './commands/start-run.js';
import { hasPermission } from './permissions.js';
import type { TriggerOutcome } from './trigger-outcome.js';
import type { IssuesOpenedPayload } from './webhook-payloads.js';
import type { WebhookSession } from './webhook-session.js';

/** Why an opened issue does not match `agent.on.issueOpened`, or undefined when it does. */
export function issueOpenedMismatch(policy: AgentPolicy, issue: IssuesOpenedPayload['issue']): string | undefined {
  const rule = policy.agent.on.issueOpened;
  if (!rule) return 'agent.on.issueOpened is not set';
  if (rule.labels && !issue.labels.some((l) => rule.labels!.includes(l.name))) return 'none of the issueOpened labels';
  if (rule.titlePattern !== undefined && !compileUserRegex(rule.titlePattern).test(issue.title)) return 'the title does not match titlePattern';
  return undefined;
}

/** The stricter of write and the policy's `triggers.minPermission`: an opened issue never starts a run for less than write. */
function openerLevel(policy: AgentPolicy): PermissionLevel {
  const min = policy.triggers.minPermission;
  return PERMISSION_LEVELS.indexOf(min) > PERMISSION_LEVELS.indexOf('write') ? min : 'write';
}

/**
 * `issues.opened` under `agent.on.issueOpened`: a matching issue starts a run only when its
 * author (not the sender: a form fills in labels for whoever opens it) has write permission now,
 * read through the collaborator API. Nothing is said to an author without it: opening an issue
 * is not a request to the App. Keyed by the issue, so a redelivery is the same run.
 */
export async function runFromOpenedIssue(session: WebhookSession, policy: AgentPolicy, payload: IssuesOpenedPayload): Promise<TriggerOutcome> {
  const mismatch = issueOpenedMismatch(policy, payload.issue);
  if (mismatch) return { kind: 'ignored', why: mismatch };
  const author = payload.issue.user!.login;
  if (!(await hasPermission(session, payload.issue.number, author, openerLevel(policy), { quiet: true }))) {
    session.deps.logger.info('issue opened by an author who may not start runs', { owner: session.owner, repo: session.repo, issue: payload.issue.number });
    return { kind: 'ignored', why: 'the author may not start runs' };
  }
  return startRun(session, policy, {
    issue: payload.issue,
    sender: author,
    trigger: { kind: 'issue-opened', key: `opened-${payload.issue.id}` },
  });
}
