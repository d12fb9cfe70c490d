import { z } from 'zod';
import { putArtifactIfAbsent, putArtifactIfMatch, readArtifactIfPresent, readArtifactVersioned } from '../../core/artifacts/artifact-io.js';
import type { ArtifactStore } from '../../core/ports.js';
import { MAX_VERIFY_RESUMES } from '../../core/runs/continuations.js';
import { isGitHubOwner, parseRunKey, type RunTrigger } from '../../core/runs/run-key.js';
import { VerifyResult } from '../../core/runs/verify-build.js';
import { dispatchPrefix } from './dispatch-record.js';

/** `dispatch/verify-resumes-<n>.json`: the continuations of attempt n the dispatcher granted for verification results. */
const VerifyResumes = z.strictObject({ schemaVersion: z.literal(1), continuations: z.array(z.number().int().positive()).max(MAX_VERIFY_RESUMES) });

function resumesKey(trigger: Pick<RunTrigger, 'owner' | 'repo' | 'runId' | 'attempt'>): string {
  return `${dispatchPrefix(trigger)}verify-resumes-${trigger.attempt}.json`;
}

/** How many verification resumes attempt n was granted (they raise its continuation limit). */
export async function verifyResumesOf(store: ArtifactStore, trigger: Pick<RunTrigger, 'owner' | 'repo' | 'runId' | 'attempt'>): Promise<number> {
  const held = await readArtifactIfPresent(store, resumesKey(trigger), VerifyResumes).catch(() => undefined);
  return held?.continuations.length ?? 0;
}

/**
 * A verifier's trusted result (`verify/<digest>/result.json`, which only the verifier writes)
 * asks to resume the attempt it names as the continuation it names. Undefined when the key is not
 * a result key; a refusal when the result does not describe its key or the attempt had every
 * resume it may; otherwise the trigger, counted once per continuation by compare-and-swap (the
 * dispatcher then grants it as any continuation: trusted request, cancel, publish, order).
 */
export async function verifyResumeTrigger(store: ArtifactStore, key: string): Promise<RunTrigger | { refused: string } | undefined> {
  const parsed = parseRunKey(key);
  if (parsed?.kind !== 'verify-result' || !isGitHubOwner(parsed.owner)) return undefined;
  const result = await readArtifactIfPresent(store, key, VerifyResult).catch(() => undefined);
  if (!result || result.runId !== parsed.runId || result.digest !== parsed.digest) return { refused: 'the result does not describe its key' };
  const trigger: RunTrigger = { owner: parsed.owner, repo: parsed.repo, runId: parsed.runId, attempt: result.attempt, continuation: result.continuation };
  for (let tries = 0; tries < 5; tries++) {
    const held = await readArtifactVersioned(store, resumesKey(trigger), VerifyResumes);
    const granted = held?.value.continuations ?? [];
    if (granted.includes(trigger.continuation)) return trigger;
    if (granted.length >= MAX_VERIFY_RESUMES) return { refused: 'LIMIT_REACHED' };
    const next = { schemaVersion: 1 as const, continuations: [...granted, trigger.continuation] };
    const written = held
      ? await putArtifactIfMatch(store, resumesKey(trigger), VerifyResumes, next, held.etag)
      : await putArtifactIfAbsent(store, resumesKey(trigger), VerifyResumes, next);
    if (written) return trigger;
  }
  return { refused: 'the resume count could not be written' };
}
