import type { AgentPolicy } from '../../../core/policy/agent-policy.js';
import { hasMinPermission } from '../permissions.js';
import type { TriggerOutcome } from '../trigger-outcome.js';
import { commentTriggerKey, labelTriggerKey } from '../trigger-identity.js';
import type { IssuesLabeledPayload } from '../webhook-payloads.js';
import type { WebhookSession } from '../webhook-session.js';
import type { CommandContext } from './command-context.js';
import { startRun } from './start-run.js';

/** `/agent run`: a run that ends in a draft pull request (the comment's author was checked by the router). */
export function runCommand({ session, policy, payload }: CommandContext): Promise<TriggerOutcome> {
  return startRun(session, policy, {
    issue: payload.issue,
    sender: payload.sender.login,
    trigger: { kind: 'comment', key: commentTriggerKey(payload), command: 'run' },
    comment: { id: payload.comment.id, body: payload.comment.body },
  });
}

/** The policy's trigger label on an issue: the same as `/agent run`, by whoever applied the label. */
export async function runFromLabel(
  session: WebhookSession,
  policy: AgentPolicy,
  payload: IssuesLabeledPayload,
  label: { id: number },
): Promise<TriggerOutcome> {
  if (!(await hasMinPermission(session, payload.issue.number, payload.sender.login, policy))) return { kind: 'replied', why: 'insufficient permission' };
  return startRun(session, policy, {
    issue: payload.issue,
    sender: payload.sender.login,
    trigger: { kind: 'label', key: labelTriggerKey(payload.issue, label) },
  });
}
