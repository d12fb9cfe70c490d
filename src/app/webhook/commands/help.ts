import { helpText } from '../texts.js';
import type { TriggerOutcome } from '../trigger-outcome.js';
import type { CommandContext } from './command-context.js';

/** `/agent help`: the commands, with this repository's prefix, label and permission. Anyone may ask. */
export async function helpCommand({ session, policy, payload }: CommandContext): Promise<TriggerOutcome> {
  await session.reply(payload.issue.number, helpText(policy));
  return { kind: 'replied', why: 'help' };
}
