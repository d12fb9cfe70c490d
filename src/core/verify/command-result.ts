import { z } from 'zod';

/**
 * A project command draftsman ran on the change, as the report, the PR body and the publish
 * record keep it: what ran, where, how long, the result, and a bounded, secret-scrubbed excerpt.
 * A command is reported only with what it really did (its exit code and its own output).
 */
export const COMMAND_STATUSES = ['PASSED', 'FAILED', 'TIMED_OUT', 'OUTPUT_LIMIT', 'NO_TESTS', 'NOT_RUN'] as const;
export type CommandStatus = (typeof COMMAND_STATUSES)[number];

export const CommandResult = z.strictObject({
  run: z.string().min(1),
  cwd: z.string().min(1),
  kind: z.enum(['setup', 'build', 'test']),
  source: z.string(),
  status: z.enum(COMMAND_STATUSES),
  exitCode: z.number().int().nullable(),
  durationMs: z.number().int().nonnegative(),
  /** The end of the command's output, scrubbed with the secret scan's rules; empty when it printed nothing. */
  excerpt: z.string(),
  failures: z
    .array(z.strictObject({ test: z.string().optional(), file: z.string().optional(), line: z.number().int().optional(), message: z.string().optional() }))
    .default([]),
  /** Why it did not run, or what stopped it. */
  why: z.string().optional(),
});
export type CommandResult = z.infer<typeof CommandResult>;

/** How each status reads in the PR body and the commit trailer. */
export const COMMAND_STATUS_TEXT: Record<CommandStatus, string> = {
  PASSED: 'passed',
  FAILED: 'failed',
  TIMED_OUT: 'timed out',
  OUTPUT_LIMIT: 'stopped: too much output',
  NO_TESTS: 'ran no test',
  NOT_RUN: 'not run',
};

/** A command failed the check: it ran and failed, or was stopped. A command that ran no test did not fail, but did not pass either. */
export function commandFailed(result: CommandResult): boolean {
  return result.status === 'FAILED' || result.status === 'TIMED_OUT' || result.status === 'OUTPUT_LIMIT';
}

/** A parsed failure as one line of text: the test, where, and the message, those it has. */
export function describeFailure(f: CommandResult['failures'][number]): string {
  const where = f.file ? `${f.file}${f.line ? `:${f.line}` : ''}` : undefined;
  return [f.test, where, f.message].filter(Boolean).join(' — ');
}

/** A command and how it ended, as one line of text: `npm test in web: failed, exit 1 (why)`. */
export function describeCommand(c: CommandResult): string {
  const exit = c.exitCode !== null ? `, exit ${c.exitCode}` : '';
  return `${c.run}${c.cwd === '.' ? '' : ` in ${c.cwd}`}: ${COMMAND_STATUS_TEXT[c.status]}${exit}${c.why ? ` (${c.why})` : ''}`;
}
