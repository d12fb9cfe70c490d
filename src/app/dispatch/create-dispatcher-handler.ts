import { z } from 'zod';
import { putArtifactIfAbsent, putArtifactIfMatch, readArtifactIfPresent, readArtifactVersioned } from '../../core/artifacts/artifact-io.js';
import { runKeys } from '../../core/artifacts/keys.js';
import { QUEUE_PREFIX } from '../../core/artifacts/queue-keys.js';
import type { AdmitReport } from '../../core/runs/admit-waiting.js';
import type { ArtifactStore, Clock, Logger } from '../../core/ports.js';
import { RunRequest } from '../../core/runs/run-request.js';
import { decodeS3EventKey } from '../aws/s3-artifact-store.js';
import { CancelMarker } from '../../core/runs/run-state.js';
import { PublishRecord } from '../../core/runs/publish-record.js';
import { trustedAttemptState } from '../../core/runs/attempts.js';
import { continuationRefusal, type ContinuationRefusal } from '../../core/runs/continuations.js';
import {
  CAPABILITY_TTL_MS,
  ContinuationGrant,
  continuationGrantKey,
  MAX_DISPATCHES_PER_GRANT,
  DispatchRecord,
  dispatchKey,
  newCapability,
  RunSessionError,
  type WorkerInvocation,
} from './dispatch-record.js';
import { withLogScope } from '../logger.js';
import { parseRunTrigger, triggerKey, type RunTrigger } from './run-key.js';
import { verifyResumeTrigger, verifyResumesOf } from './verify-resume.js';

/** The S3 notification shape (also what the EventBridge rule's input transformer renders). */
export const BucketEvent = z.object({
  Records: z.array(z.object({ eventName: z.string(), s3: z.object({ object: z.object({ key: z.string().min(1) }) }) })),
});

/** An SQS delivery (the run queue's wake-up queue): only that it came matters, never its body. */
export const QueueWakeEvent = z.object({ Records: z.array(z.object({ eventSource: z.literal('aws:sqs') }).passthrough()).min(1) });

export interface DispatcherDeps {
  /** Reads request.json, writes dispatch records; nothing else. */
  store: ArtifactStore;
  clock: Clock;
  logger: Logger;
  /** Starts the worker asynchronously (Lambda `InvocationType: 'Event'`). */
  invokeWorker: (invocation: WorkerInvocation) => Promise<void>;
  /** Random bytes for capabilities; node's CSPRNG unless a test fixes them. */
  random?: (size: number) => Uint8Array;
  /** One admission pass of the run queue (src/app/queue/run-admission.ts), run on every wake-up. */
  admit?: () => Promise<AdmitReport>;
}

export type DispatchOutcome =
  | { key: string; dispatched: true; attempt: number; continuation: number }
  | { key: string; dispatched: false; reason: string }
  /** A wake-up of the run queue: the runs it admitted (their request.json starts them) and how many still wait. */
  | { key: typeof QUEUE_PREFIX; admitted: string[]; waiting: number };

/**
 * The dispatcher: the bucket's target for trigger keys. It accepts only exact trigger keys of a
 * run whose webhook-written request.json exists and names the same repository, mints a fresh
 * capability for this one invocation, records only its digest under `dispatch/` (which no
 * worker can read or write), and starts the worker with `{key, capability}`. A message of the
 * run queue's wake-up queue runs one admission pass instead (docs/architecture.md, "The run queue").
 */
export function createDispatcherHandler(deps: DispatcherDeps) {
  return async (event: unknown): Promise<DispatchOutcome[]> => {
    const wake = QueueWakeEvent.safeParse(event);
    if (wake.success) {
      if (!deps.admit) throw new Error('a run queue wake-up, but the dispatcher has no admission pass');
      const report = await deps.admit();
      return [{ key: QUEUE_PREFIX, admitted: report.admitted, waiting: report.waiting.length }];
    }
    const parsed = BucketEvent.parse(event);
    const outcomes: DispatchOutcome[] = [];
    for (const record of parsed.Records) {
      const key = decodeS3EventKey(record.s3.object.key);
      const created = record.eventName.startsWith('ObjectCreated');
      const resume = created ? await verifyResumeTrigger(deps.store, key) : undefined;
      if (resume && 'refused' in resume) {
        deps.logger.warn('dispatcher refused a verification resume', { key: key.slice(0, 300), reason: resume.refused });
        outcomes.push({ key, dispatched: false, reason: resume.refused });
        continue;
      }
      const trigger = resume ?? (created ? parseRunTrigger(key) : undefined);
      if (!trigger) {
        deps.logger.warn('dispatcher ignored a key that is not a trigger', { key: key.slice(0, 300) });
        outcomes.push({ key, dispatched: false, reason: 'not a trigger key' });
        continue;
      }
      // A verification result resumes the attempt as the continuation it names: the worker gets that continuation's key.
      const workerKey = resume ? triggerKey(trigger) : key;
      outcomes.push(await withLogScope({ runId: trigger.runId, repository: `${trigger.owner}/${trigger.repo}` }, () => dispatchOne(deps, workerKey, trigger)));
    }
    return outcomes;
  };
}

async function dispatchOne(deps: DispatcherDeps, key: string, trigger: RunTrigger): Promise<DispatchOutcome> {
  const request = await readTrustedRequest(deps.store, trigger);
  if (!request) {
    deps.logger.warn('dispatcher found no request for the run', { key });
    return { key, dispatched: false, reason: 'no request.json' };
  }
  if (trigger.continuation > 0) {
    const refusal = await grantContinuation(deps.store, trigger);
    if (refusal) {
      deps.logger.warn('dispatcher refused a continuation', { key, reason: refusal });
      return { key, dispatched: false, reason: refusal };
    }
  }
  return invokeWorker(deps, key, trigger);
}

/**
 * A continuation key is the worker asking for another invocation; the grant is the
 * dispatcher's (docs/trust-chain.md, "Continuations"): the attempt's trusted request, the cancel
 * marker and the publish record decide; continuation k is granted after k-1, at most
 * MAX_GRANTED_CONTINUATIONS per attempt, and each grant starts at most
 * MAX_DISPATCHES_PER_GRANT workers (S3's duplicate notifications and Lambda's retries of this
 * event), counted in `dispatch/` where no worker reaches.
 */
async function grantContinuation(store: ArtifactStore, trigger: RunTrigger): Promise<ContinuationRefusal | 'DISPATCHED_ENOUGH' | undefined> {
  const keys = runKeys(trigger.owner, trigger.repo, trigger.runId);
  const cancel = await readArtifactIfPresent(store, keys.cancel, CancelMarker).catch(() => undefined);
  const published = await readArtifactIfPresent(store, keys.publish, PublishRecord).catch(() => undefined);
  const previous = { ...trigger, continuation: trigger.continuation - 1 };
  const refusal = continuationRefusal({
    attempt: trigger.attempt,
    continuation: trigger.continuation,
    attemptState: await trustedAttemptState(store, keys, trigger.runId, trigger.attempt),
    cancelledAttempt: cancel?.runId === trigger.runId ? cancel.attempt : undefined,
    publishedAttempt: published?.runId === trigger.runId ? published.attempt : undefined,
    previousGranted: trigger.continuation === 1 || (await store.get(continuationGrantKey(previous))) !== undefined,
    verifyResumes: await verifyResumesOf(store, trigger),
  });
  if (refusal) return refusal;
  return (await countDispatch(store, trigger)) ? undefined : 'DISPATCHED_ENOUGH';
}

/** One more dispatch of a granted continuation, by compare-and-swap; false once it had enough. */
async function countDispatch(store: ArtifactStore, trigger: RunTrigger): Promise<boolean> {
  const key = continuationGrantKey(trigger);
  const fresh: ContinuationGrant = { schemaVersion: 1, runId: trigger.runId, attempt: trigger.attempt, continuation: trigger.continuation, dispatches: 1 };
  for (let tries = 0; tries < 5; tries++) {
    const held = await readArtifactVersioned(store, key, ContinuationGrant);
    if (!held) {
      if (await putArtifactIfAbsent(store, key, ContinuationGrant, fresh)) return true;
      continue;
    }
    if (held.value.dispatches >= MAX_DISPATCHES_PER_GRANT) return false;
    if (await putArtifactIfMatch(store, key, ContinuationGrant, { ...held.value, dispatches: held.value.dispatches + 1 }, held.etag)) return true;
  }
  return false;
}

async function invokeWorker(deps: DispatcherDeps, key: string, trigger: RunTrigger): Promise<DispatchOutcome> {
  const capability = newCapability(deps.random);
  const now = deps.clock.now();
  const record: DispatchRecord = {
    schemaVersion: 1,
    key,
    owner: trigger.owner,
    repo: trigger.repo,
    runId: trigger.runId,
    attempt: trigger.attempt,
    continuation: trigger.continuation,
    createdAt: new Date(now).toISOString(),
    expiresAt: new Date(now + CAPABILITY_TTL_MS).toISOString(),
  };
  // A digest collision with an existing record would mean a repeated capability: refuse it.
  if (!(await putArtifactIfAbsent(deps.store, dispatchKey(trigger, capability), DispatchRecord, record))) {
    throw new RunSessionError('CAPABILITY_INVALID', 'A fresh capability collided with an existing dispatch record', { key });
  }
  await deps.invokeWorker({ key, capability });
  deps.logger.info('dispatched the worker', { key, attempt: trigger.attempt, continuation: trigger.continuation });
  return { key, dispatched: true, attempt: trigger.attempt, continuation: trigger.continuation };
}

/**
 * The run's request.json (only the webhook writes it), when it is a GitHub request for exactly
 * the repository and run the key names; undefined otherwise.
 */
export async function readTrustedRequest(store: ArtifactStore, trigger: Pick<RunTrigger, 'owner' | 'repo' | 'runId'>): Promise<RunRequest | undefined> {
  const request = await readArtifactIfPresent(store, runKeys(trigger.owner, trigger.repo, trigger.runId).request, RunRequest);
  if (!request) return undefined;
  if (request.owner !== trigger.owner || request.repo !== trigger.repo || request.runId !== trigger.runId || request.source.kind !== 'github') {
    throw new RunSessionError('RUN_REQUEST_MISMATCH', 'request.json does not describe the run its key names', {
      owner: trigger.owner,
      repo: trigger.repo,
      runId: trigger.runId,
    });
  }
  return request;
}
