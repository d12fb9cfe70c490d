import picomatch from 'picomatch';

/**
 * What the git boundary needs to know about the repository's write policy. The policy module
 * implements it; the git boundary only asks. Paths are normalised repository paths.
 */
export interface WritePolicy {
  /** Forbidden by the policy (e.g. `infra/**`, secrets files). */
  isForbidden(path: string): boolean;
  /** Allowed by the policy's write allowlist (true when the policy has none). */
  isAllowed(path: string): boolean;
  /** Inside the task's scope (true when the task has none). */
  inTaskScope(path: string): boolean;
  isLockfile(path: string): boolean;
  isGenerated(path: string): boolean;
  readonly allowLockfiles: boolean;
  readonly allowGenerated: boolean;
}

const LOCKFILES = new Set([
  'package-lock.json',
  'npm-shrinkwrap.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  'bun.lockb',
  'poetry.lock',
  'Pipfile.lock',
  'uv.lock',
  'Cargo.lock',
  'go.sum',
  'Gemfile.lock',
  'composer.lock',
  'gradle.lockfile',
  'packages.lock.json',
]);

/** True for the lockfile names the package managers write. */
export function isLockfilePath(path: string): boolean {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return LOCKFILES.has(name);
}

const GENERATED_GLOBS = ['**/dist/**', '**/build/**', '**/target/**', '**/generated/**', '**/generated-sources/**', '**/*.min.js', '**/*.pb.go', '**/*_pb2.py', '**/node_modules/**', '**/vendor/**'];
const generatedMatcher = picomatch(GENERATED_GLOBS, { dot: true });

/** A conservative guess at generated or vendored output, by path. */
export function isGeneratedPath(path: string): boolean {
  return generatedMatcher(path);
}

/** Workflow files: the App has no `workflows` permission, so these can never be published. */
export function isWorkflowPath(path: string): boolean {
  return path.startsWith('.github/workflows/');
}

export interface GlobWritePolicyOptions {
  forbidden?: string[];
  /** Write allowlist; absent or empty = everything not forbidden. */
  allowed?: string[];
  /** Task scope globs; absent or empty = whole repository. A plain directory means dir/**. */
  scope?: string[];
  allowLockfiles?: boolean;
  allowGenerated?: boolean;
}

function expand(globs: string[]): string[] {
  return globs.flatMap((g) => (/[*?[\]{}]/.test(g) ? [g] : [g, `${g.replace(/\/$/, '')}/**`]));
}

/**
 * A glob-based `WritePolicy`, for the CLI without a policy file and for tests; the policy module
 * provides the real one.
 */
export function createGlobWritePolicy(options: GlobWritePolicyOptions = {}): WritePolicy {
  const match = (globs: string[] | undefined) => (globs && globs.length > 0 ? picomatch(expand(globs), { dot: true }) : undefined);
  const forbidden = match(options.forbidden);
  const allowed = match(options.allowed);
  const scope = match(options.scope);
  return {
    isForbidden: (p) => (forbidden ? forbidden(p) : false),
    isAllowed: (p) => (allowed ? allowed(p) : true),
    inTaskScope: (p) => (scope ? scope(p) : true),
    isLockfile: isLockfilePath,
    isGenerated: isGeneratedPath,
    allowLockfiles: options.allowLockfiles ?? false,
    allowGenerated: options.allowGenerated ?? false,
  };
}
