import picomatch from 'picomatch';
import type { RiskLevel } from './repo-map-schema.js';

export interface PathRisk {
  level: RiskLevel;
  reason: string;
}

/**
 * The slice of the repository policy that the map and target selection need. The policy module
 * implements it from `.agent-policy.yaml`; `createGlobPathRules` is a small glob-based version
 * for the CLI defaults and for tests.
 */
export interface PathRules {
  isForbidden(path: string): boolean;
  requiresApproval(path: string): boolean;
  /** False when an allow-list exists and the path is outside it. */
  isAllowed(path: string): boolean;
  isLockfile(path: string): boolean;
  isGenerated(path: string): boolean;
  /** The policy's own risk rule for a path, if any (it wins over the default rules). */
  riskFor(path: string): PathRisk | undefined;
}

export interface GlobPathRulesOptions {
  forbidden?: string[];
  requireApproval?: string[];
  /** When present and non-empty, only these paths are allowed. */
  allowed?: string[];
  lockfiles?: string[];
  generated?: string[];
  risk?: { pattern: string; level: RiskLevel; reason: string }[];
}

const DEFAULT_LOCKFILES = [
  '**/package-lock.json', '**/npm-shrinkwrap.json', '**/yarn.lock', '**/pnpm-lock.yaml', '**/go.sum', '**/Cargo.lock',
  '**/poetry.lock', '**/Pipfile.lock', '**/uv.lock', '**/Gemfile.lock', '**/composer.lock', '**/gradle.lockfile', '**/packages.lock.json',
];
const DEFAULT_GENERATED = ['**/generated/**', '**/*.generated.*', '**/*.pb.go', '**/*_pb2.py', '**/*.min.js', '**/__generated__/**'];

/** A plain directory in a glob list means `dir/**` (DESIGN §6). */
export function expandGlob(glob: string): string[] {
  const g = glob.replace(/^\.\//, '').replace(/\/+$/, '');
  if (/[*?[\]{}]/.test(g)) return [g];
  return [g, `${g}/**`];
}

export function globMatcher(globs: string[]): (path: string) => boolean {
  if (globs.length === 0) return () => false;
  return picomatch(globs.flatMap(expandGlob), { dot: true });
}

/** Glob-based `PathRules`; the lockfile and generated lists default to the common names. */
export function createGlobPathRules(options: GlobPathRulesOptions = {}): PathRules {
  const forbidden = globMatcher(options.forbidden ?? []);
  const approval = globMatcher(options.requireApproval ?? []);
  const allowed = options.allowed && options.allowed.length > 0 ? globMatcher(options.allowed) : () => true;
  const lockfile = globMatcher(options.lockfiles ?? DEFAULT_LOCKFILES);
  const generated = globMatcher(options.generated ?? DEFAULT_GENERATED);
  const risk = (options.risk ?? []).map((r) => ({ match: globMatcher([r.pattern]), level: r.level, reason: r.reason }));
  return {
    isForbidden: forbidden,
    requiresApproval: approval,
    isAllowed: allowed,
    isLockfile: lockfile,
    isGenerated: generated,
    riskFor(path) {
      let found: PathRisk | undefined;
      for (const r of risk) if (r.match(path)) found = { level: r.level, reason: r.reason };
      return found;
    },
  };
}
