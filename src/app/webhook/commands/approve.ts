import type { TriggerOutcome } from '../trigger-outcome.js';
import type { CommandContext } from './command-context.js';
import { startNextAttempt } from './next-attempt.js';

/** `/agent approve`: attempt n+1 of a run waiting for approval, allowed past the gate it stopped at. */
export function approveCommand({ session, payload }: CommandContext): Promise<TriggerOutcome> {
  return startNextAttempt(session, payload.issue.number, payload.sender.login, 'approve');
}
