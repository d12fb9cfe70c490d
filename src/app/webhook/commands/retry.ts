import type { TriggerOutcome } from '../trigger-outcome.js';
import type { CommandContext } from './command-context.js';
import { startNextAttempt } from './next-attempt.js';

/** `/agent retry`: attempt n+1 of the issue's latest run, once it has stopped. */
export function retryCommand({ session, payload }: CommandContext): Promise<TriggerOutcome> {
  return startNextAttempt(session, payload.issue.number, payload.sender.login, 'retry');
}
