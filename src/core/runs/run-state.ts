import { z } from 'zod';
import { ApprovedPlan, PlanDocument } from './plan-gate.js';
import { RUN_STATUSES } from './run-status.js';

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

/**
 * `intakes/<owner>/<repo>/<n>/<runId>.json`: a trigger the intake began, written once before
 * anything else it does and deleted when its `request.json` is written or it ended without
 * one. A retry of the intake completes what is missing; the sweeper ends what no retry finished.
 * Every field comes from the signed delivery, or from what the intake itself did.
 */
export const IntakeRecord = z
  .object({
    schemaVersion: z.literal(1),
    runId: z.string(),
    issue: z.number().int().positive(),
    installationId: z.number().int().positive(),
    repositoryId: z.number().int().positive(),
    trigger: z.string(),
    sender: z.string(),
    createdAt: z.string(),
    /** Written by versions that checked the limits at the intake (a run at them now waits in the run queue); kept so their records still read. */
    admittedAt: z.string().optional(),
    /** The progress comment, once posted. */
    progressCommentId: z.number().int().positive().optional(),
  })
  .strict();
export type IntakeRecord = z.infer<typeof IntakeRecord>;

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
  /** The plan the run is held to (`plan.json`'s digest and files, from the plan gate's record), once a plan was approved. */
  plan: ApprovedPlan.optional(),
  at: z.string(),
});
export type ApprovalMarker = z.infer<typeof ApprovalMarker>;

/** One changed path and its new content's blob id (`deleted` for a deletion). */
export const GateChange = z.object({ path: z.string().min(1).max(4096), contentId: z.string().min(1).max(64) });
export type GateChange = z.infer<typeof GateChange>;

/**
 * `control/gate-<n>.json`: the approval gate attempt n stopped at, as the publisher recomputed it
 * from the trusted policy and task over the changed paths and contents. `/agent approve` approves
 * this gate and nothing else; the progress comment shows it. Only the publisher writes it.
 */
export const GateRecord = z.object({
  schemaVersion: z.literal(1),
  runId: z.string(),
  attempt: z.number().int().positive(),
  gateId: z.string(),
  violations: z.array(z.object({ rule: z.string(), path: z.string().optional(), message: z.string() })),
  changes: z.array(GateChange),
  riskLevel: z.enum(['LOW', 'MEDIUM', 'HIGH']),
  /** A plan gate: the digest of the stored `plan.json`, its files, and the plan as shown. */
  plan: ApprovedPlan.extend({ document: PlanDocument }).optional(),
  at: z.string(),
});
export type GateRecord = z.infer<typeof GateRecord>;

/** A command comment that acted, once (`commandClaimKey`). */
export const CommandClaim = z.object({
  schemaVersion: z.literal(1),
  commentId: z.number().int().positive(),
  command: z.string(),
  sender: z.string(),
  at: z.string(),
});
export type CommandClaim = z.infer<typeof CommandClaim>;

/** Bounds on what a worker's progress may carry to the progress comment. */
const SHORT = 2000;
const REPORT = 65536;

/**
 * `attempts/<n>/progress.json`: where the worker says its attempt stands (the phase checklist, a
 * line of text), and at the end how it ended. The worker holds no GitHub write rights: the
 * publisher shows this on the progress comment, releases the lock when no candidate will come,
 * and posts the analysis report. Everything here is the worker's word, shown as such.
 */
export const AttemptProgress = z.object({
  schemaVersion: z.literal(1),
  runId: z.string(),
  attempt: z.number().int().positive(),
  status: z.enum(['QUEUED', 'RUNNING', 'PUBLISHING', ...RUN_STATUSES]),
  message: z.string().max(SHORT).optional(),
  phases: z.array(z.object({ name: z.string().max(100), state: z.enum(['pending', 'running', 'done', 'skipped', 'failed', 'blocked']) })).max(20),
  baseCommitSha: z
    .string()
    .regex(/^[0-9a-f]{40}$/)
    .optional(),
  taskEcho: z.string().max(REPORT).optional(),
  artifacts: z.record(z.string().max(200), z.string().max(SHORT)).optional(),
  /** Set once the attempt ended. */
  ended: z
    .object({
      status: z.enum(RUN_STATUSES),
      reason: z.string().max(SHORT).optional(),
      /** A candidate is on its way to the publisher (it releases the lock then). */
      candidate: z.boolean(),
      headCommitSha: z
        .string()
        .regex(/^[0-9a-f]{40}$/)
        .optional(),
      /** An analysis run's report, sized for a comment. */
      analysisReport: z.string().max(REPORT).optional(),
    })
    .optional(),
  at: z.string(),
});
export type AttemptProgress = z.infer<typeof AttemptProgress>;

/**
 * `attempts/<n>/heartbeat.json`: the worker says it is alive, every minute while an invocation
 * runs (`running`), and `idle` when it stops on its own (suspended, finished, failed). A
 * `running` heartbeat that went stale means the worker was killed (timeout, memory, a crash)
 * and nothing will end the attempt but the sweeper.
 */
export const WorkerHeartbeat = z.object({
  schemaVersion: z.literal(1),
  runId: z.string(),
  attempt: z.number().int().positive(),
  continuation: z.number().int().nonnegative(),
  state: z.enum(['running', 'idle']),
  at: z.iso.datetime(),
});
export type WorkerHeartbeat = z.infer<typeof WorkerHeartbeat>;
