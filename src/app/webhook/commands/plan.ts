import type { TriggerOutcome } from '../trigger-outcome.js';
import { commentTriggerKey } from '../trigger-identity.js';
import type { CommandContext } from './command-context.js';
import { startRun } from './start-run.js';

/**
 * `/agent plan`: a run like `/agent run` that stops after planning at the plan gate
 * (src/core/runs/plan-gate.ts), as `agent.requirePlanApproval` makes every run do; the trusted
 * request's trigger command says so to the worker and the publisher.
 */
export function planCommand({ session, policy, payload }: CommandContext): Promise<TriggerOutcome> {
  return startRun(session, policy, {
    issue: payload.issue,
    sender: payload.sender.login,
    trigger: { kind: 'comment', key: commentTriggerKey(payload), command: 'plan' },
    comment: { id: payload.comment.id, body: payload.comment.body },
  });
}
