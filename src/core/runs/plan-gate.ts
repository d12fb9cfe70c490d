import { z } from 'zod';
import type { AgentPolicy } from '../policy/agent-policy.js';
import { sha256Hex } from '../util/digest.js';
import type { RunRequest } from './run-request.js';

/*
 * The plan gate (docs/policy-reference.md, "A plan to approve"): with `agent.requirePlanApproval`
 * (or `/agent plan` on one issue) an attempt stops after planning, before any change, and writes
 * `plan.json`. The publisher digests the stored bytes and records the gate
 * (`control/gate-<n>.json`, id `plan-<digest>`); `/agent approve` copies the plan's digest and
 * files from that record into the next attempt's trusted request and approval marker, and the
 * scope guard holds the change to those files (`OUTSIDE_PLAN`).
 */

/** The reason an attempt stops at the plan gate, and the violation the gate names. */
export const PLAN_APPROVAL = 'PLAN_APPROVAL';

const MAX_FILES = 10_000;
const TEXT = 2000;
const RepoPath = z.string().min(1).max(4096);

/** `attempts/<n>/plan.json`: what the attempt would do, for a maintainer to approve before any change. Written by the worker. */
export const PlanDocument = z.object({
  schemaVersion: z.literal(1),
  runId: z.string(),
  attempt: z.number().int().positive(),
  baseCommitSha: z.string().regex(/^[0-9a-f]{40}$/),
  strategy: z.enum(['recipe', 'llm']),
  reason: z.string().max(TEXT),
  /** The files target selection chose, best first, with why. */
  targets: z.array(z.object({ path: RepoPath, reasons: z.array(z.string().max(TEXT)).max(20) })).max(MAX_FILES),
  /** One segment per recipe step or model change, and the files each may change. */
  segments: z
    .array(
      z.object({ id: z.string().max(200), engine: z.enum(['recipe', 'llm']), recipe: z.string().max(200).optional(), files: z.array(RepoPath).max(MAX_FILES) }),
    )
    .max(100),
  /** Every file the change is expected to touch: what an approval holds the change to. */
  files: z.array(RepoPath).max(MAX_FILES),
  /** What the change may spend on model calls: none for recipes; for a model, the attempt's limits. */
  estimatedSpend: z.object({
    modelCallsAtMost: z.number().int().nonnegative(),
    costUsdAtMost: z.number().nonnegative().optional(),
    basis: z.string().max(TEXT),
  }),
});
export type PlanDocument = z.infer<typeof PlanDocument>;

/** An approved plan as the trusted writers carry it: the digest of the stored `plan.json` and its files. */
export const ApprovedPlan = z.object({
  digest: z.string().regex(/^[0-9a-f]{64}$/),
  files: z.array(RepoPath).max(MAX_FILES),
});
export type ApprovedPlan = z.infer<typeof ApprovedPlan>;

/** The digest of `plan.json` as stored: the bytes a maintainer was shown, not a re-serialisation. */
export function planDigest(bytes: Uint8Array): string {
  return sha256Hex(bytes);
}

/** The gate id of a plan: an approval of it binds to the plan's digest. */
export function planGateId(digest: string): string {
  return `plan-${digest.slice(0, 16)}`;
}

/** Whether a run stops at the plan gate: the trusted policy asks it of every run, or the run was asked for by `/agent plan`. */
export function planGateRequired(request: Pick<RunRequest, 'trigger'>, policy: AgentPolicy): boolean {
  return policy.agent.requirePlanApproval || request.trigger.command === 'plan';
}
