import { z } from 'zod';
import { redactSecrets } from '../secrets/secret-scan.js';
import { parseOutput } from './output-failures.js';
import type { CommandOutcome } from './verifier.js';

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
    .array(
      z.strictObject({ test: z.string().optional(), file: z.string().optional(), line: z.number().int().optional(), message: z.string().optional() }),
    )
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

/** Lines and characters of output kept in the excerpt: its end, where tools print their verdict. */
const EXCERPT_LINES = 30;
const EXCERPT_CHARS = 3000;

/** A command failed the check: it ran and failed, or was stopped. A command that ran no test did not fail, but did not pass either. */
export function commandFailed(result: CommandResult): boolean {
  return result.status === 'FAILED' || result.status === 'TIMED_OUT' || result.status === 'OUTPUT_LIMIT';
}

function excerptOf(output: string, checkoutRoot: string): string {
  const lines = output.replaceAll(`${checkoutRoot}/`, '').trimEnd().split('\n');
  let tail = lines.slice(-EXCERPT_LINES).join('\n');
  if (tail.length > EXCERPT_CHARS) tail = `…${tail.slice(-EXCERPT_CHARS)}`;
  return redactSecrets(tail).text;
}

function statusOf(outcome: CommandOutcome, noTests: boolean): CommandStatus {
  if (outcome.skipped !== undefined) return 'NOT_RUN';
  if (outcome.timedOut) return 'TIMED_OUT';
  if (outcome.outputLimited) return 'OUTPUT_LIMIT';
  // pytest exits 5 when it collected no test.
  if (outcome.command.kind === 'test' && (noTests || (outcome.exitCode === 5 && /\bpytest\b/.test(outcome.command.run)))) return 'NO_TESTS';
  return outcome.exitCode === 0 ? 'PASSED' : 'FAILED';
}

function whyOf(outcome: CommandOutcome, status: CommandStatus, limits: { commandTimeoutMs: number; maxOutputBytes: number }): string | undefined {
  if (outcome.skipped !== undefined) return outcome.skipped;
  if (status === 'TIMED_OUT') return `stopped after ${Math.round(limits.commandTimeoutMs / 1000)} s (agent.verify.timeoutSeconds)`;
  if (status === 'OUTPUT_LIMIT') return `stopped after printing more than ${limits.maxOutputBytes} bytes (agent.verify.maxOutputBytes)`;
  if (status === 'NO_TESTS') return 'the command ran no test';
  if (status === 'FAILED' && outcome.exitCode === null) return 'the command could not start or was killed';
  return undefined;
}

/** What a runner saw, as the report keeps it: status, excerpt, parsed failures. */
export function commandResultOf(outcome: CommandOutcome, checkoutRoot: string, limits: { commandTimeoutMs: number; maxOutputBytes: number }): CommandResult {
  const parsed = parseOutput(outcome.output, checkoutRoot);
  const status = statusOf(outcome, parsed.noTests);
  const why = whyOf(outcome, status, limits);
  return {
    run: outcome.command.run,
    cwd: outcome.command.cwd,
    kind: outcome.command.kind,
    source: outcome.command.source,
    status,
    exitCode: outcome.exitCode,
    durationMs: Math.max(0, Math.round(outcome.durationMs)),
    excerpt: outcome.skipped !== undefined ? '' : excerptOf(outcome.output, checkoutRoot),
    failures: status === 'PASSED' ? [] : parsed.failures.map((f) => ({ ...f, message: f.message && redactSecrets(f.message).text })),
    ...(why ? { why } : {}),
  };
}
