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
