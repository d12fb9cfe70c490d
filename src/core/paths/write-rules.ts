import { compileGlobs } from './glob.js';
import type { PathRules } from './path-rules.js';
import { symlinkAliases, symlinkChain, type SymlinkLookup } from './symlinks.js';

/**
 * The path rules of one run: the policy's rules narrowed to the task's scope. It is what edit,
 * stage, commit, the scope guard and publish-side re-validation all ask.
 */
export interface WritePolicy extends PathRules {
  /** Inside every scope the run was given (task `paths`, CLI `--paths`); true when none. */
  inTaskScope(path: string): boolean;
  /** In scope and not blocked by `editBlock`: what recipes and the model may change. */
  isEditable(path: string): boolean;
}

/**
 * Narrow `rules` to the intersection of `scopes` (each a glob list; absent or empty lists do not
 * narrow). The result is still the same rules object for every other question.
 */
export function scopePathRules(rules: PathRules, ...scopes: (readonly string[] | undefined)[]): WritePolicy {
  const matchers = scopes.filter((s): s is readonly string[] => s !== undefined && s.length > 0).map((s) => compileGlobs(s));
  const inTaskScope = (path: string) => matchers.every((m) => m(path));
  return { ...rules, inTaskScope, isEditable: (path) => inTaskScope(path) && rules.editBlock(path) === undefined };
}

export type WriteDenialReason =
  | 'PATH_THROUGH_SYMLINK'
  | 'WORKFLOW_CHANGE_NOT_PERMITTED'
  | 'FORBIDDEN_PATH'
  | 'NOT_ALLOWED_BY_POLICY'
  | 'OUT_OF_SCOPE'
  | 'LOCKFILE_NOT_ALLOWED'
  | 'GENERATED_NOT_ALLOWED';

export interface WriteDenial {
  path: string;
  reason: WriteDenialReason;
  message: string;
}

function denialOf(path: string, judged: string, policy: WritePolicy): Omit<WriteDenial, 'path'> | undefined {
  const via = judged === path ? '' : ` (through a symlinked directory, it is ${judged})`;
  if (policy.isWorkflow(judged))
    return { reason: 'WORKFLOW_CHANGE_NOT_PERMITTED', message: `workflow files cannot be changed: the App has no workflows permission${via}` };
  if (policy.isForbidden(judged)) return { reason: 'FORBIDDEN_PATH', message: `path is forbidden by the policy${via}` };
  if (!policy.isAllowed(judged)) return { reason: 'NOT_ALLOWED_BY_POLICY', message: `path is not in the policy write allowlist${via}` };
  if (!policy.inTaskScope(judged)) return { reason: 'OUT_OF_SCOPE', message: `path is outside the task scope${via}` };
  if (policy.isLockfile(judged) && !policy.allowLockfiles)
    return { reason: 'LOCKFILE_NOT_ALLOWED', message: `lockfile changes are not allowed by the policy${via}` };
  if (policy.isGenerated(judged) && !policy.allowGenerated)
    return { reason: 'GENERATED_NOT_ALLOWED', message: `generated file changes are not allowed by the policy${via}` };
  return undefined;
}

/**
 * Why writing `path` is refused, or undefined when it may be written. With the base tree's
 * symlinks, a path under a symlinked directory is judged on every name it goes by until it
 * lands (`ci -> .github/workflows` makes `ci/x.yml` a workflow) and on every name a link
 * pointing at one of its parents gives it (`.github/workflows -> ../ci` does too), and a path whose links leave
 * the repository or loop is refused outright.
 */
export function writeDenial(path: string, policy: WritePolicy, symlinks?: SymlinkLookup): WriteDenial | undefined {
  const chain = symlinks ? symlinkChain(path, symlinks) : [path];
  const aliases = symlinks ? symlinkAliases(path, symlinks) : [];
  if (chain === undefined || aliases === undefined)
    return { path, reason: 'PATH_THROUGH_SYMLINK', message: 'a symlinked parent directory leads outside the repository, into .git, or loops' };
  const judged = [...chain, ...aliases];
  for (const p of judged) {
    const denial = denialOf(path, p, policy);
    if (denial) return { path, ...denial };
  }
  return undefined;
}
