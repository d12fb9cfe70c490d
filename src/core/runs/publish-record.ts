import { z } from 'zod';
import { CommandResult } from '../verify/command-result.js';
import { RevisionEntry } from './revisions.js';

const Sha = z.string().regex(/^[0-9a-f]{40}$/);

/**
 * `publish.json`: what the publisher put on GitHub for one attempt. Its existence for an
 * attempt means that attempt is done (a redelivered event exits quietly). `verification` keeps
 * the Verification section's inputs so CI feedback can re-render it without the policy.
 */
export const PublishRecord = z.object({
  schemaVersion: z.literal(1),
  runId: z.string().min(1),
  attempt: z.number().int().positive(),
  owner: z.string().min(1),
  repo: z.string().min(1),
  publishedCommitSha: Sha,
  treeSha: Sha,
  baseCommitSha: Sha,
  prNumber: z.number().int().positive(),
  prUrl: z.string(),
  branch: z.string().min(1),
  baseBranch: z.string().min(1),
  /**
   * The base-branch commit the published change is built on (the parent of a first publication;
   * a follow-up commit on the branch keeps its predecessor's). Absent in records written before it
   * existed: `baseCommitSha` then.
   */
  builtOn: Sha.optional(),
  /** Set when the base branch had moved and the policy said `warn`. */
  baseMoved: z.object({ from: Sha, to: Sha }).optional(),
  warnings: z.array(z.string()),
  verification: z
    .object({
      checks: z.array(z.object({ name: z.string().min(1), status: z.enum(['PASSED', 'FAILED', 'SKIPPED']), detail: z.string().optional() })),
      notRun: z.array(z.object({ name: z.string().min(1), why: z.string().min(1) })),
      commands: z.array(CommandResult).optional(),
      commandsRanIn: z.string().optional(),
      ciCommands: z.array(z.string().min(1)),
      verifier: z.string().optional(),
    })
    .optional(),
  /** Decided at publication from the trusted policy: the draft is marked ready for review once CI on its head passes. */
  readyWhenCiGreen: z.boolean().default(false),
  /** Every follow-up attempt published on this PR so far (the body's Revisions section is re-rendered from it). */
  revisions: z.array(RevisionEntry).default([]),
  publishedAt: z.string(),
});
export type PublishRecord = z.infer<typeof PublishRecord>;
