import { z } from 'zod';

/**
 * The small stored objects that say where an issue's runs stand: the issue pointer, the issue
 * lock, and the cancel and approval markers. The webhook, worker, publisher and sweeper all
 * read them through these schemas.
 */

/** `issues/<owner>/<repo>/<n>/latest.json`: the issue's latest run and attempt. */
export const IssueLatest = z.object({
  schemaVersion: z.literal(1),
  runId: z.string(),
  attempt: z.number().int().positive(),
  progressCommentId: z.number().int().optional(),
  updatedAt: z.string(),
});
export type IssueLatest = z.infer<typeof IssueLatest>;

/** `locks/<owner>/<repo>/issues/<n>.json`: one active run per issue, until `expiresAt`. */
export const IssueLock = z.object({
  schemaVersion: z.literal(1),
  runId: z.string(),
  attempt: z.number().int().positive(),
  acquiredAt: z.string(),
  expiresAt: z.string(),
});
export type IssueLock = z.infer<typeof IssueLock>;

/** `control/cancel.json`. */
export const CancelMarker = z.object({
  schemaVersion: z.literal(1),
  runId: z.string(),
  /** Attempts up to this one are cancelled; a later retry is not. */
  attempt: z.number().int().positive(),
  by: z.string(),
  reason: z.string(),
  at: z.string(),
});
export type CancelMarker = z.infer<typeof CancelMarker>;

/** `control/approve-<n>.json`: who let attempt n pass which gate. */
export const ApprovalMarker = z.object({
  schemaVersion: z.literal(1),
  runId: z.string(),
  attempt: z.number().int().positive(),
  by: z.string(),
  gateId: z.string(),
  at: z.string(),
});
export type ApprovalMarker = z.infer<typeof ApprovalMarker>;

/** A command comment that acted, once (`commandClaimKey`). */
export const CommandClaim = z.object({
  schemaVersion: z.literal(1),
  commentId: z.number().int().positive(),
  command: z.string(),
  sender: z.string(),
  at: z.string(),
});
export type CommandClaim = z.infer<typeof CommandClaim>;
