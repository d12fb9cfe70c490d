/**
 * The limits ingestion enforces. Structurally the `ingestion` section of `.agent-policy.yaml`
 * plus the forbidden paths; the integrator maps the real policy onto it, so ingestion does not
 * depend on the policy schema.
 */
export interface IngestionPolicy {
  /** opaque: gitlinks kept as they are (never fetched or edited); block: refuse the repository. */
  submodules: 'opaque' | 'block';
  allowLfs: boolean;
  maxRepoSizeMb: number;
  maxFileSizeMb: number;
  maxFileCount: number;
  maxPathDepth: number;
  maxPathLength: number;
  /** Globs relative to the repository root; a plain path means itself and everything under it. */
  forbiddenPaths: string[];
  /** A scoped path that matches nothing: fail, or continue with a warning. */
  scopeMissing: 'error' | 'warn';
  /** Repositories reported over this size are fetched without blobs; default `BLOBLESS_OVER_MB`. */
  bloblessOverMb?: number;
}

/** Conservative defaults, used by tests and by callers without a policy file. */
export const DEFAULT_INGESTION_POLICY: IngestionPolicy = {
  submodules: 'opaque',
  allowLfs: false,
  maxRepoSizeMb: 1024,
  maxFileSizeMb: 5,
  maxFileCount: 100_000,
  maxPathDepth: 32,
  maxPathLength: 255,
  forbiddenPaths: ['.github/workflows/**'],
  scopeMissing: 'error',
};
