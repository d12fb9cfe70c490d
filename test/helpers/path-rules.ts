import { compilePathRules, type PathRules } from '../../src/core/paths/path-rules.js';
import { scopePathRules, type WritePolicy } from '../../src/core/paths/write-rules.js';
import { AgentPolicy } from '../../src/core/policy/agent-policy.js';

export interface PathRulesOptions {
  forbidden?: string[];
  requireApproval?: string[];
  /** Write allowlist; absent = everything not forbidden. */
  allowed?: string[];
  lockfiles?: string[];
  generated?: string[];
  risk?: { glob: string; level: 'LOW' | 'MEDIUM' | 'HIGH'; reason: string }[];
  allowLockfiles?: boolean;
  allowGenerated?: boolean;
}

/** Path rules compiled from a policy holding just these settings (everything else default). */
export function pathRulesFor(options: PathRulesOptions = {}): PathRules {
  const policy = AgentPolicy.parse({
    version: 1,
    agent: {
      forbiddenPaths: options.forbidden ?? [],
      requireApprovalFor: options.requireApproval ?? [],
      ...(options.allowed && options.allowed.length > 0 ? { allowedPaths: options.allowed } : {}),
      riskRules: options.risk ?? [],
    },
    editRules: {
      lockfiles: { default: options.allowLockfiles ? 'allowed' : 'blocked' },
      generatedFiles: { default: options.allowGenerated ? 'allowed' : 'blocked' },
      ...(options.lockfiles ? { lockfilePatterns: options.lockfiles } : {}),
      ...(options.generated ? { generatedPatterns: options.generated } : {}),
    },
  });
  return compilePathRules(policy);
}

/** The same, narrowed to a task scope (absent or empty = the whole repository). */
export function writePolicyFor(options: PathRulesOptions & { scope?: string[] } = {}): WritePolicy {
  return scopePathRules(pathRulesFor(options), options.scope);
}
