import { AgentError } from '../errors.js';

/** Why an artifact could not be read, written, or addressed. */
export const ARTIFACT_REASONS = ['ARTIFACT_INVALID', 'ARTIFACT_MISSING', 'ARTIFACT_KEY_INVALID'] as const;
export type ArtifactReason = (typeof ARTIFACT_REASONS)[number];

/**
 * An artifact that failed its schema (on write or on read), is absent where it must exist, or a
 * key that would not address one safely. `data.key` names the artifact; `data.issues` holds the
 * zod issues (path, code, message: never the offending input, which could be a secret).
 */
export class ArtifactError extends AgentError<ArtifactReason> {}

/** Why a store operation failed after the adapter gave up. */
export const ARTIFACT_STORE_REASONS = ['STORE_UNAVAILABLE', 'STORE_REQUEST_FAILED'] as const;
export type ArtifactStoreReason = (typeof ARTIFACT_STORE_REASONS)[number];

/**
 * A store adapter's failure: STORE_UNAVAILABLE after retries on throttling/5xx ran out (the caller
 * may retry later, e.g. via the Lambda retry), STORE_REQUEST_FAILED for an error no retry fixes
 * (access denied, bad request). `data` has the operation, key, attempts and the store's code.
 */
export class ArtifactStoreError extends AgentError<ArtifactStoreReason> {}
