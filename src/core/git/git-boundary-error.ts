import { AgentError } from '../errors.js';

/** Every way the git boundary refuses an operation. Closed: callers branch on these. */
export const GIT_BOUNDARY_REASONS = [
  'NOTHING_STAGED',
  'EMPTY_MESSAGE',
  'INVALID_COMMIT_MESSAGE',
  'DENIED_PATH_STAGED',
  'SECRET_DETECTED',
  'VERIFICATION_FAILED',
  'WORKSPACE_NOT_CLEAN',
  'BASE_MISMATCH',
  'INVALID_BRANCH_NAME',
  'BRANCH_OWNED_BY_OTHER_RUN',
  'WORKFLOW_CHANGE_NOT_PERMITTED',
  'PATH_OUTSIDE_WORKSPACE',
  'PATH_THROUGH_SYMLINK',
  'PATH_NOT_CHANGED',
  'LOCKFILE_NOT_ALLOWED',
  'GENERATED_NOT_ALLOWED',
  'FORBIDDEN_PATH',
  'OUT_OF_SCOPE',
  'NOT_ALLOWED_BY_POLICY',
  'SUBMODULE_CHANGE_NOT_PERMITTED',
  'TREE_MISMATCH',
  'BLOB_MISMATCH',
  'BLOB_MISSING',
  'BRANCH_EXISTS_AT_OTHER_COMMIT',
  'BUDGET_EXCEEDED',
  'CANDIDATE_INVALID',
  'PATCH_INVALID',
  'PATCH_MISMATCH',
  'HEAD_NOT_FOUND',
] as const;
export type GitBoundaryReason = (typeof GIT_BOUNDARY_REASONS)[number];

/** A refused git-boundary operation; `data` names the paths and rules involved, never secrets. */
export class GitBoundaryError extends AgentError<GitBoundaryReason> {}
