import type { TriggerOutcome } from '../trigger-outcome.js';
import type { CommandContext } from './command-context.js';
import { startNextAttempt } from './next-attempt.js';

/**
 * `/agent approve`: attempt n+1 of a run waiting for approval, allowed past the gate the publisher
 * recorded for attempt n, provided that gate was shown before the comment was written.
 */
export function approveCommand({ session, payload }: CommandContext): Promise<TriggerOutcome> {
  return startNextAttempt(session, payload.issue.number, payload.sender.login, 'approve', payload.comment.created_at);
}
