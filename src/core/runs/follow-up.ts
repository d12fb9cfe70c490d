import { z } from 'zod';
import { CiFailureReport } from './ci-failure.js';

/** Bounds on what a follow-up carries into the task (the model sees all of it). */
export const FOLLOW_UP_LIMITS = {
  instructionsChars: 8_000,
  reviewComments: 50,
  reviewCommentChars: 2_000,
  /** The pull request's changed files a revision names as its targets (one page of GitHub's list). */
  changedFiles: 100,
} as const;

const Sha = z.string().regex(/^[0-9a-f]{40}$/);

/** One inline review comment: where it points and what it says (untrusted content). */
export const ReviewComment = z.object({
  path: z.string().min(1).max(4096),
  startLine: z.number().int().positive().optional(),
  line: z.number().int().positive().optional(),
  body: z.string().max(FOLLOW_UP_LIMITS.reviewCommentChars),
  author: z.string(),
  url: z.string().optional(),
});
export type ReviewComment = z.infer<typeof ReviewComment>;

/**
 * What a follow-up attempt (a revision from review, or a repair from CI) adds to the run's
 * task, written by the webhook only, once. `onto` is trusted (where the attempt builds: the
 * agent branch and its head when the follow-up was asked for, and the pull request's base);
 * `instructions`, `reviewComments` and `ciFailures` are untrusted content.
 */
export const FollowUp = z.object({
  kind: z.enum(['revise', 'ci-repair']),
  sender: z.string(),
  /** What made it, for the ledger and the dedupe marker: `comment-<id>`, `review-<id>`, `repair-<sha>`. */
  source: z.string().regex(/^[a-z]+-[0-9a-f]{1,40}$/),
  instructions: z.string().max(FOLLOW_UP_LIMITS.instructionsChars),
  reviewComments: z.array(ReviewComment).max(FOLLOW_UP_LIMITS.reviewComments).default([]),
  /** The files the pull request changes, as GitHub lists them when the follow-up is asked for: a model revision's first targets. */
  changedFiles: z.array(z.string().min(1).max(4096)).max(FOLLOW_UP_LIMITS.changedFiles).optional(),
  /** The failing checks, as read with the read token (untrusted text). */
  ciFailures: CiFailureReport.optional(),
  onto: z.object({ branch: z.string().min(1), headSha: Sha, baseBranch: z.string().min(1), pullRequest: z.number().int().positive() }),
});
export type FollowUp = z.infer<typeof FollowUp>;

/** Cut `text` to `max` characters, saying so, so a bound never silently drops the end. */
export function bounded(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 20)}\n[... truncated]`;
}

/** `control/follow-up-<source>.json`: the marker that makes a follow-up start once per comment, review or head SHA. */
export const FollowUpMarker = z.object({
  schemaVersion: z.literal(1),
  runId: z.string(),
  source: z.string(),
  attempt: z.number().int().min(2),
  at: z.string(),
});
export type FollowUpMarker = z.infer<typeof FollowUpMarker>;
