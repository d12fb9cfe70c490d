import { z } from 'zod';
import { FollowUp } from './follow-up.js';
import { ApprovedPlan } from './plan-gate.js';
import { GateChange } from './run-state.js';
import { AttemptStatus, RunRecordStatus } from './run-status.js';

/**
 * `request.json`: the snapshot a run works from, written once (putIfAbsent). The issue text is
 * copied when the maintainer triggers the run; later edits to the issue change nothing.
 */
export const RunRequest = z.object({
  schemaVersion: z.literal(1),
  runId: z.string(),
  owner: z.string(),
  repo: z.string(),
  /** Where the objects come from: a GitHub repository (the worker fetches with a read token) or a CLI source. */
  source: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('github'), repositoryId: z.number().int(), installationId: z.number().int(), cloneUrl: z.string(), apiUrl: z.string() }),
    z.object({ kind: z.literal('local'), location: z.string() }),
    z.object({ kind: z.literal('url'), location: z.string() }),
  ]),
  trigger: z.object({
    kind: z.enum(['label', 'comment', 'cli', 'campaign', 'schedule', 'issue-opened']),
    key: z.string(),
    sender: z.string().optional(),
    command: z.string().optional(),
  }),
  issue: z
    .object({
      number: z.number().int().positive(),
      title: z.string(),
      body: z.string(),
      updatedAt: z.string(),
      url: z.string().optional(),
      progressCommentId: z.number().int().optional(),
      /** Who wrote the issue, and whether they could write to the repository when the run was asked for (the intake checks). */
      author: z.string().optional(),
      authorCanWrite: z.boolean().optional(),
    })
    .optional(),
  comment: z.object({ id: z.number().int(), body: z.string() }).optional(),
  /**
   * The trusted policy's spend caps when the run was asked for (US$ millionths), written by the
   * intake: the model caller charges against these, never against caps the worker states.
   */
  spendCaps: z
    .object({ taskMicroUsd: z.number().int().nonnegative().optional(), repositoryMonthlyMicroUsd: z.number().int().nonnegative().optional() })
    .strict()
    .optional(),
  /** A run a campaign started (docs/campaigns.md): the campaign and its home issue (`owner/repo#n`). */
  campaign: z.object({ id: z.string(), home: z.string() }).optional(),
  /** CLI task text (the whole task when there is no issue). */
  task: z.object({ title: z.string(), body: z.string() }).optional(),
  forcedMode: z.enum(['analysis', 'draft_pr']).optional(),
  baseRef: z.string().optional(),
  paths: z.array(z.string()).optional(),
  agentBranch: z.string(),
  createdAt: z.string(),
});
export type RunRequest = z.infer<typeof RunRequest>;

/** `attempts/<n>/request.json` for n >= 2: why the attempt exists and what it may pass. */
export const AttemptRequest = z.object({
  schemaVersion: z.literal(1),
  runId: z.string(),
  attempt: z.number().int().min(2),
  reason: z.enum(['retry', 'approve', 'rerun-base-moved', 'rebase', 'cli', 'revise', 'ci-repair']),
  sender: z.string().optional(),
  /** A revision or a CI repair: what it adds to the task and which branch head it builds on. */
  followUp: FollowUp.optional(),
  /** Gates approved for this attempt (from the previous attempt's approval-request.json). */
  approvedGates: z.array(z.string()).default([]),
  /** The approved plan (digest and files) the attempt's change is held to, from the plan gate's trusted record. */
  approvedPlan: ApprovedPlan.optional(),
  createdAt: z.string(),
});
export type AttemptRequest = z.infer<typeof AttemptRequest>;

/** One attempt as `run.json` lists it. */
export const RunAttempt = z.object({
  n: z.number().int().positive(),
  status: AttemptStatus,
  reason: z.string().optional(),
  startedAt: z.string(),
  endedAt: z.string().optional(),
});
export type RunAttempt = z.infer<typeof RunAttempt>;

/** `run.json`: where a run stands. Its status only moves as `RUN_TRANSITIONS` allows (run-transitions.ts). */
export const RunRecord = z.object({
  schemaVersion: z.literal(1),
  runId: z.string(),
  status: RunRecordStatus,
  reason: z.string().optional(),
  attempt: z.number().int().positive(),
  attempts: z.array(RunAttempt),
  baseCommitSha: z.string().optional(),
  headCommitSha: z.string().optional(),
  headTreeSha: z.string().optional(),
  agentBranch: z.string(),
  progressCommentId: z.number().int().optional(),
  /** The approval gate a NEEDS_APPROVAL attempt waits on; `/agent approve` passes it. */
  pendingGate: z.string().optional(),
  pullRequest: z.object({ number: z.number().int(), url: z.string() }).optional(),
  updatedAt: z.string(),
});
export type RunRecord = z.infer<typeof RunRecord>;

/** `approval-request.json`: why an attempt stopped for a human, and what they can do. */
export const ApprovalRequest = z.object({
  schemaVersion: z.literal(1),
  runId: z.string(),
  attempt: z.number().int().positive(),
  baseCommitSha: z.string(),
  /** The worker's gate id; the publisher recomputes the gate (`control/gate-<n>.json`) and approvals take that one. */
  gateId: z.string(),
  reason: z.string(),
  /** Every changed path and its new blob id: what the publisher recomputes the gate over. */
  changes: z.array(GateChange).max(10000).default([]),
  violations: z.array(z.object({ rule: z.string(), path: z.string().optional(), message: z.string() })),
  options: z.array(z.object({ id: z.string(), description: z.string() })),
  recommended: z.string(),
  evidence: z.array(z.string()),
});
export type ApprovalRequest = z.infer<typeof ApprovalRequest>;
