import { readProse } from './read-prose.js';

/**
 * Whose words a run without a task block may act on (docs/architecture.md, "Steps read from
 * prose"): when the policy runs steps read from prose and the issue's author could not write to
 * the repository, the change needs a maintainer's approval, even when the repository confirms the
 * steps. The worker and the publisher both decide it from the request alone (the issue's text and
 * author as the intake recorded them), so the gate a maintainer approves is the one publication checks.
 * Returns the author's login (or a description) when the gate applies.
 */
export function outsiderWords(input: {
  issue?: { title: string; body: string; author?: string; authorCanWrite?: boolean };
  /** Steps written in the task block: those are the maintainer's, not read from prose. */
  blockSteps: number;
  inferSteps: 'run' | 'suggest' | 'off';
}): string | undefined {
  const { issue } = input;
  if (!issue || issue.authorCanWrite !== false || input.blockSteps > 0 || input.inferSteps !== 'run') return undefined;
  if (readProse({ title: issue.title, body: issue.body }).readings.length === 0) return undefined;
  return issue.author ?? 'the issue author';
}
