import type { AgentPolicy } from '../../../core/policy/agent-policy.js';
import type { IssueCommentCreatedPayload } from '../webhook-payloads.js';
import type { WebhookSession } from '../webhook-session.js';

/** What every slash command gets: the event's session, the trusted policy, the signed comment event. */
export interface CommandContext {
  session: WebhookSession;
  policy: AgentPolicy;
  payload: IssueCommentCreatedPayload;
}
