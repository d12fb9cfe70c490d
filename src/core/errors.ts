/**
 * Typed errors with closed sets of reason codes. Tests and callers branch on `reason`, never on
 * message text. `data` carries structured detail; it must never hold a credential.
 */
export class AgentError<R extends string = string> extends Error {
  readonly reason: R;
  readonly data: Record<string, unknown>;

  constructor(reason: R, message: string, data: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.reason = reason;
    this.data = data;
  }

  toJSON(): { name: string; reason: R; message: string; data: Record<string, unknown> } {
    return { name: this.name, reason: this.reason, message: this.message, data: this.data };
  }
}

/**
 * Thrown where the attempt must wait for something outside the invocation (a verification
 * build): the phase stops without failing, nothing of it is checkpointed, and the attempt ends
 * this invocation SUSPENDED; whoever finishes the work starts the next one (docs/architecture.md,
 * "Verification").
 */
export class AttemptSuspension extends AgentError<'AWAITING_VERIFICATION'> {}

export function isSuspension(error: unknown): error is AttemptSuspension {
  return error instanceof AttemptSuspension;
}

export const INGESTION_REASONS = [
  'REPOSITORY_NOT_FOUND',
  'REPOSITORY_ACCESS_DENIED',
  'BASE_REF_NOT_FOUND',
  'BASE_MOVED_DURING_FETCH',
  'CLONE_TIMEOUT',
  'CLONE_AUTH_FAILED',
  'REPO_TOO_LARGE',
  'FILE_TOO_LARGE',
  'SUBMODULE_BLOCKED',
  'SUBMODULE_IN_SCOPE',
  'LFS_BLOCKED',
  'FORBIDDEN_SYMLINK',
  'HOSTILE_TREE_ENTRY',
  'FILE_COUNT_EXCEEDED',
  'FORBIDDEN_PATH_IN_SCOPE',
  'SCOPE_PATH_MISSING',
  'WORKSPACE_NOT_CLEAN',
  'POLICY_FILE_INVALID',
  'POLICY_FILE_TOO_LARGE',
] as const;
export type IngestionReason = (typeof INGESTION_REASONS)[number];

export class IngestionError extends AgentError<IngestionReason> {}

export const POLICY_REASONS = ['POLICY_FILE_INVALID', 'POLICY_FILE_TOO_LARGE'] as const;
export type PolicyReason = (typeof POLICY_REASONS)[number];

/** Paths that would escape or corrupt the workspace. */
export const PATH_REASONS = ['PATH_EMPTY', 'PATH_ABSOLUTE', 'PATH_DOT_DOT', 'PATH_NUL', 'PATH_DOT_GIT', 'PATH_BACKSLASH'] as const;
export type PathReason = (typeof PATH_REASONS)[number];
export class PathError extends AgentError<PathReason> {}

/** Errors at the workspace boundary (writes refused, missing files). */
export type WorkspaceReason = PathReason | 'FILE_NOT_FOUND' | 'WRITE_THROUGH_SYMLINK' | 'IS_A_DIRECTORY' | 'READ_OUTSIDE_SCOPE';
export class WorkspaceError extends AgentError<WorkspaceReason> {}

/**
 * Coded failures that a later try of the same work may not meet (docs/architecture.md,
 * "Transient faults"): a store that stayed unavailable through its own retries, a GitHub rate
 * limit. Every other reason is deterministic. Model provider reasons (`MODEL_*`) are not here on
 * purpose: a failed model call ends its segment with MODEL_ERROR and `/agent retry` replays it.
 */
export const TRANSIENT_REASONS: ReadonlySet<string> = new Set(['STORE_UNAVAILABLE', 'GITHUB_RATE_LIMITED']);

/** Connection-level failures (Node, undici): the request may not have reached the server. */
const TRANSIENT_NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** Error names and S3 codes of throttling, timeouts and server trouble, whatever the status says. */
const TRANSIENT_NAMES: ReadonlySet<string> = new Set([
  'SlowDown',
  'Throttling',
  'ThrottlingException',
  'TooManyRequestsException',
  'RequestTimeout',
  'RequestTimeoutException',
  'InternalError',
  'ServiceUnavailable',
  'TimeoutError',
  'AbortError',
]);

/** The shape adapters' errors have: AWS SDK (`$metadata`, `Code`), Octokit (`status`), Node (`code`). */
interface FaultShape {
  name?: unknown;
  Code?: unknown;
  code?: unknown;
  status?: unknown;
  $metadata?: { httpStatusCode?: number };
  $response?: { statusCode?: number };
  cause?: unknown;
}

/** The HTTP status an adapter's error carries, if any. */
export function faultStatus(error: unknown): number | undefined {
  const e = error as FaultShape | undefined;
  const status = e?.$metadata?.httpStatusCode ?? e?.$response?.statusCode ?? e?.status;
  return typeof status === 'number' ? status : undefined;
}

/** The service's code for an adapter's error (S3's `Code`, the SDK's `name`, Node's `code`). */
export function faultCode(error: unknown): string | undefined {
  const e = error as FaultShape | undefined;
  const code = e?.Code ?? e?.name ?? e?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * The one table of transient faults (docs/architecture.md, "Transient faults"). An `AgentError`
 * is judged by its reason alone (`TRANSIENT_REASONS`). Any other error by its shape: throttling
 * (429, SlowDown, Throttling), any 5xx, timeouts (408, RequestTimeout, TimeoutError, AbortError),
 * S3's 409 ConditionalRequestConflict (two conditional writes racing) and connection resets; then
 * its `cause` (fetch wraps a reset as "fetch failed"). Never a 412 or any other 4xx, never an
 * error of unknown shape.
 */
export function isTransientFault(error: unknown): boolean {
  return transientAt(error, 0);
}

function transientAt(error: unknown, depth: number): boolean {
  if (error === null || typeof error !== 'object' || depth > 3) return false;
  if (error instanceof AgentError) return TRANSIENT_REASONS.has(error.reason);
  const status = faultStatus(error);
  const code = faultCode(error);
  if (status === 412) return false;
  if (status === 409) return code === 'ConditionalRequestConflict';
  if (status !== undefined && (status >= 500 || status === 429 || status === 408)) return true;
  if (code !== undefined && TRANSIENT_NAMES.has(code)) return true;
  if (status !== undefined) return false;
  const netCode = (error as FaultShape).code;
  if (typeof netCode === 'string' && TRANSIENT_NETWORK_CODES.has(netCode)) return true;
  return transientAt((error as FaultShape).cause, depth + 1);
}
