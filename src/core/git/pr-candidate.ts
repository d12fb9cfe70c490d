import { z } from 'zod';
import { JudgeVerdict, VerificationReport } from './verification-report.js';

const Sha = z.string().regex(/^[0-9a-f]{40}$/);
const Mode = z.enum(['100644', '100755', '120000']);
const Risk = z.enum(['LOW', 'MEDIUM', 'HIGH']);

export const DiffSummarySchema = z.strictObject({
  baseCommitSha: Sha,
  headSha: Sha,
  filesChanged: z.number().int().nonnegative(),
  insertions: z.number().int().nonnegative(),
  deletions: z.number().int().nonnegative(),
  files: z.array(
    z.strictObject({
      path: z.string().min(1),
      kind: z.enum(['ADDED', 'MODIFIED', 'DELETED', 'TYPE_CHANGED']),
      insertions: z.number().int().nonnegative(),
      deletions: z.number().int().nonnegative(),
      risk: Risk,
      reason: z.string(),
      generated: z.boolean(),
      binary: z.boolean(),
    }),
  ),
  warnings: z.array(z.string()),
});

export const RiskReportSchema = z.strictObject({
  riskScore: z.number().int().nonnegative(),
  riskLevel: Risk,
  reasons: z.array(z.string()),
  requiredGate: z.enum(['NONE', 'HUMAN_REVIEW', 'HUMAN_APPROVAL_BEFORE_PR']),
});

/** A changed file: its new mode and blob (bytes under `changes/<blobSha>`), or a deletion. */
export const CandidateFile = z.union([
  z.strictObject({ path: z.string().min(1), mode: Mode, blobSha: Sha }),
  z.strictObject({ path: z.string().min(1), deleted: z.literal(true) }),
]);
export type CandidateFile = z.infer<typeof CandidateFile>;

/**
 * `candidate/pr-candidate.json`: everything the publisher needs to recreate the change on the
 * base and open a draft PR, and everything it re-checks. `headTreeSha` is the invariant.
 */
export const PrCandidate = z.strictObject({
  schemaVersion: z.literal(1),
  title: z.string().min(1).max(256),
  body: z.string(),
  baseBranch: z.string().min(1),
  headBranch: z.string().min(1),
  baseCommitSha: Sha,
  headCommitSha: Sha,
  headTreeSha: Sha,
  commitMessage: z.string().min(1),
  files: z.array(CandidateFile).min(1),
  labels: z.array(z.string()),
  reviewers: z.array(z.string()),
  draft: z.literal(true),
  diffSummary: DiffSummarySchema,
  verification: VerificationReport,
  judge: JudgeVerdict.nullable(),
  risk: RiskReportSchema,
  runId: z.string().min(1),
  attempt: z.number().int().min(1),
});
export type PrCandidate = z.infer<typeof PrCandidate>;
