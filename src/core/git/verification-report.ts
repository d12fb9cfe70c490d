import { z } from 'zod';
import { CommandResult } from '../verify/command-result.js';

/** What the static verification found (filled by the phases; the commit message and PR body quote it). */
export const VerificationReport = z.strictObject({
  status: z.enum(['PASSED', 'FAILED', 'NOT_RUN']),
  checks: z.array(
    z.strictObject({
      name: z.string().min(1),
      status: z.enum(['PASSED', 'FAILED', 'SKIPPED']),
      detail: z.string().optional(),
      files: z.array(z.string()).optional(),
    }),
  ),
  notRun: z.array(z.strictObject({ name: z.string().min(1), why: z.string().min(1) })),
  /** The project's own commands verification ran (agent.verify), in order, and where they ran. */
  commands: z.array(CommandResult).optional(),
  commandsRanIn: z.string().optional(),
});
export type VerificationReport = z.infer<typeof VerificationReport>;

/** The static checks verification runs, by the name the report and the PR body show. */
export const CHECK_NAMES = {
  parse: 'Every changed file parses',
  secrets: 'Secret scan of the change',
  names: 'Names the changed files use still resolve (imports; Go: no unused import)',
  antiCheat: 'Anti-cheat detectors (skipped tests, removed assertions, CI edits)',
} as const;

/** The checks a partial change may fail and still be committed when the policy says `agent.publishPartial`: a change that does not build, told as such. */
export const PARTIAL_CHECKS: readonly string[] = [CHECK_NAMES.parse, CHECK_NAMES.names];

/** Whether a failed report is a partial change (only checks in PARTIAL_CHECKS failed). */
export function isPartialFailure(report: VerificationReport): boolean {
  const failed = report.checks.filter((c) => c.status === 'FAILED');
  return report.status === 'FAILED' && failed.length > 0 && failed.every((c) => PARTIAL_CHECKS.includes(c.name));
}

/** The judge's verdict on the change (filled by the phases). */
export const JudgeVerdict = z.strictObject({
  verdict: z.enum(['ACCEPT', 'REJECT', 'NEEDS_REVIEW']),
  reasons: z.array(z.string()),
});
export type JudgeVerdict = z.infer<typeof JudgeVerdict>;
