import { z } from 'zod';

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
});
export type VerificationReport = z.infer<typeof VerificationReport>;

/** The judge's verdict on the change (filled by the phases). */
export const JudgeVerdict = z.strictObject({
  verdict: z.enum(['ACCEPT', 'REJECT', 'NEEDS_REVIEW']),
  reasons: z.array(z.string()),
});
export type JudgeVerdict = z.infer<typeof JudgeVerdict>;
