import type { TriggerOutcome } from '../trigger-outcome.js';
import { commentTriggerKey } from '../trigger-identity.js';
import type { CommandContext } from './command-context.js';
import { startRun } from './start-run.js';

/** `/agent analyze`: a plan and impact report, no changes (mode `analysis` forced). */
export function analyzeCommand({ session, policy, payload }: CommandContext): Promise<TriggerOutcome> {
  return startRun(session, policy, {
    issue: payload.issue,
    sender: payload.sender.login,
    trigger: { kind: 'comment', key: commentTriggerKey(payload), command: 'analyze' },
    comment: { id: payload.comment.id, body: payload.comment.body },
    forcedMode: 'analysis',
  });
}
