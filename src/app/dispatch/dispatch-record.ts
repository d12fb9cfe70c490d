import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { runKeys } from '../../core/artifacts/keys.js';
import { AgentError } from '../../core/errors.js';
import type { RunTrigger } from './run-key.js';

export const RUN_SESSION_REASONS = [
  'TRIGGER_KEY_INVALID',
  'RUN_REQUEST_MISSING',
  'RUN_REQUEST_MISMATCH',
  'CAPABILITY_INVALID',
  'CAPABILITY_EXPIRED',
  'SESSION_RESPONSE_INVALID',
  'SESSION_FUNCTION_FAILED',
] as const;
export type RunSessionReason = (typeof RUN_SESSION_REASONS)[number];

/** Dispatching or opening a run session was refused. `data` never holds a capability or credential. */
export class RunSessionError extends AgentError<RunSessionReason> {}

/**
 * How long a capability stays valid: the worker's async queue may hold an event for two hours
 * (serverless.yml `maximumEventAge`), plus one full invocation.
 */
export const CAPABILITY_TTL_MS = (7200 + 900) * 1000;

/** What the dispatcher hands the worker, and the worker hands run-session. */
export const WorkerInvocation = z
  .object({
    key: z.string().min(1).max(1024),
    capability: z.string().regex(/^[A-Za-z0-9_-]{43}$/),
  })
  .strict();
export type WorkerInvocation = z.infer<typeof WorkerInvocation>;

/**
 * `runs/<o>/<r>/<runId>/dispatch/<sha256(capability)>.json`: written by the dispatcher only.
 * Keyed by the digest, so a capability is looked up, never compared, and never stored.
 */
export const DispatchRecord = z
  .object({
    schemaVersion: z.literal(1),
    key: z.string(),
    owner: z.string(),
    repo: z.string(),
    runId: z.string(),
    attempt: z.number().int().positive(),
    continuation: z.number().int().nonnegative(),
    createdAt: z.string(),
    expiresAt: z.string(),
  })
  .strict();
export type DispatchRecord = z.infer<typeof DispatchRecord>;

/** 256 random bits, base64url (43 characters). */
export function newCapability(random: (size: number) => Uint8Array = randomBytes): string {
  return Buffer.from(random(32)).toString('base64url');
}

export function capabilityDigest(capability: string): string {
  return createHash('sha256').update(capability, 'utf8').digest('hex');
}

export function dispatchPrefix(trigger: Pick<RunTrigger, 'owner' | 'repo' | 'runId'>): string {
  return `${runKeys(trigger.owner, trigger.repo, trigger.runId).prefix}dispatch/`;
}

export function dispatchKey(trigger: Pick<RunTrigger, 'owner' | 'repo' | 'runId'>, capability: string): string {
  return `${dispatchPrefix(trigger)}${capabilityDigest(capability)}.json`;
}

/**
 * Workers one granted continuation may start: S3 may notify a key twice, and Lambda retries a
 * dispatcher event whose invoke failed. A worker that overwrites its key gets no more.
 */
export const MAX_DISPATCHES_PER_GRANT = 3;

/**
 * `dispatch/continuation-<n>-<k>.json`: the dispatcher granted continuation k of attempt n and
 * started `dispatches` workers for it (counted by compare-and-swap before each start).
 */
export const ContinuationGrant = z
  .object({
    schemaVersion: z.literal(1),
    runId: z.string(),
    attempt: z.number().int().positive(),
    continuation: z.number().int().positive(),
    dispatches: z.number().int().positive(),
  })
  .strict();
export type ContinuationGrant = z.infer<typeof ContinuationGrant>;

export function continuationGrantKey(trigger: Pick<RunTrigger, 'owner' | 'repo' | 'runId' | 'attempt' | 'continuation'>): string {
  return `${dispatchPrefix(trigger)}continuation-${trigger.attempt}-${trigger.continuation}.json`;
}
