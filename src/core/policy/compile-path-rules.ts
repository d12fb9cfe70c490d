import picomatch from 'picomatch';
import { normalizeRepoPath } from '../util/repo-path.js';
import type { AgentPolicy, RiskRule } from './agent-policy.js';

/** Forbidden whatever the policy says: the App has no `workflows` permission (DESIGN §9.7). */
export const ALWAYS_FORBIDDEN = ['.github/workflows/**'];

const GLOB_CHARS = /[*?[\]{}]|[!@+]\(/;

/**
 * Expand a policy or task glob: `dir/` means `dir/**`, and a pattern with no glob characters
 * (`src/main/java`, `pom.xml`) means the path itself or anything under it (DESIGN §6), so a plain
 * directory works without knowing the tree.
 */
export function expandGlob(glob: string): string[] {
  const trimmed = glob.replace(/^\.\//, '');
  if (trimmed.endsWith('/')) return [`${trimmed}**`];
  if (!GLOB_CHARS.test(trimmed)) return [trimmed, `${trimmed}/**`];
  return [trimmed];
}

export type PathMatcher = (path: string) => boolean;

/** One matcher for a list of globs (picomatch, `dot: true`), over already normalised paths. */
export function compileGlobs(globs: readonly string[], options: { nocase?: boolean } = {}): PathMatcher {
  const patterns = globs.flatMap(expandGlob);
  if (patterns.length === 0) return () => false;
  return picomatch(patterns, { dot: true, nocase: options.nocase ?? false });
}

/**
 * True when `path` matches any glob. The path is normalised first and refused (PathError) when
 * it is empty, absolute, climbs with `..`, holds NUL or a backslash, or touches `.git`: a path
 * like that must never reach a yes/no decision.
 */
export function matchesAny(globs: readonly string[], path: string): boolean {
  return compileGlobs(globs)(normalizeRepoPath(path));
}

export type EditBlock = 'FORBIDDEN' | 'OUTSIDE_ALLOWED_PATHS' | 'LOCKFILE' | 'GENERATED';

export interface PathRules {
  isForbidden(path: string): boolean;
  requiresApproval(path: string): boolean;
  /** In `agent.allowedPaths`; everything is allowed when the list is absent. */
  isAllowed(path: string): boolean;
  isLockfile(path: string): boolean;
  isGenerated(path: string): boolean;
  /** The highest-level risk rule matching the path (the first of equals), if any. */
  riskFor(path: string): RiskRule | undefined;
  /** Why an edit of `path` is refused, or undefined when it may be edited. */
  editBlock(path: string): EditBlock | undefined;
}

const LEVEL_ORDER = { LOW: 0, MEDIUM: 1, HIGH: 2 } as const;

/**
 * Compile the policy's path lists once into matchers. Every method normalises its argument and
 * throws PathError for a path that could escape the workspace (see `matchesAny`).
 */
export function compilePathRules(policy: AgentPolicy): PathRules {
  const alwaysForbidden = compileGlobs(ALWAYS_FORBIDDEN, { nocase: true });
  const forbidden = compileGlobs(policy.agent.forbiddenPaths);
  const approval = compileGlobs(policy.agent.requireApprovalFor);
  const allowed = policy.agent.allowedPaths ? compileGlobs(policy.agent.allowedPaths) : () => true;
  const lockfile = compileGlobs(policy.editRules.lockfilePatterns);
  const generated = compileGlobs(policy.editRules.generatedPatterns);
  const risks = policy.agent.riskRules.map((rule) => ({ rule, match: compileGlobs([rule.glob]) }));

  const rules: PathRules = {
    isForbidden: (path) => {
      const p = normalizeRepoPath(path);
      return alwaysForbidden(p) || forbidden(p);
    },
    requiresApproval: (path) => approval(normalizeRepoPath(path)),
    isAllowed: (path) => allowed(normalizeRepoPath(path)),
    isLockfile: (path) => lockfile(normalizeRepoPath(path)),
    isGenerated: (path) => generated(normalizeRepoPath(path)),
    riskFor: (path) => {
      const p = normalizeRepoPath(path);
      let best: RiskRule | undefined;
      for (const { rule, match } of risks) {
        if (match(p) && (!best || LEVEL_ORDER[rule.level] > LEVEL_ORDER[best.level])) best = rule;
      }
      return best;
    },
    editBlock: (path) => {
      if (rules.isForbidden(path)) return 'FORBIDDEN';
      if (!rules.isAllowed(path)) return 'OUTSIDE_ALLOWED_PATHS';
      if (policy.editRules.lockfiles.default === 'blocked' && rules.isLockfile(path)) return 'LOCKFILE';
      if (policy.editRules.generatedFiles.default === 'blocked' && rules.isGenerated(path)) return 'GENERATED';
      return undefined;
    },
  };
  return rules;
}
