import { compileGlobs } from '../paths/glob.js';
import { ignoredDirOf, isBinaryByName } from '../paths/path-classes.js';
import type { PathRules } from '../paths/path-rules.js';
import type { TaskContract } from '../task/task-contract.js';
import type { Workspace } from '../workspace/workspace.js';
import type { SelectionScope } from './selection-context.js';
import type { TargetWarning } from './target-selection-schema.js';

const everywhere = (): boolean => true;

/** Warns of scope entries that match nothing or name forbidden files (which are excluded). */
function checkScopeGlobs(scopeGlobs: string[], all: string[], rules: PathRules, warnings: TargetWarning[], excluded: Map<string, string>): void {
  for (const glob of scopeGlobs) {
    const m = compileGlobs([glob]);
    const hits = all.filter((p) => m(p));
    if (hits.length === 0) warnings.push({ code: 'SCOPE_PATH_MISSING', message: `scope entry matches no file: ${glob}`, data: { glob } });
    const forbidden = hits.filter((p) => rules.isForbidden(p));
    if (forbidden.length > 0) {
      warnings.push({ code: 'FORBIDDEN_PATH_IN_SCOPE', message: `the scope names forbidden paths: ${glob}`, data: { glob, paths: forbidden.slice(0, 20) } });
      for (const p of forbidden) excluded.set(p, 'FORBIDDEN_PATH_IN_SCOPE: forbidden by policy');
    }
  }
}

/** A file with content a search can read: not a symbolic link or a submodule, not in an ignored directory, not binary. */
function isSearchable(workspace: Workspace, path: string): boolean {
  const entry = workspace.entry(path);
  if (!entry || entry.mode === '120000' || entry.mode === '160000') return false;
  return !ignoredDirOf(path) && !isBinaryByName(path);
}

/** The policy filter and skip list: what is never searched; forbidden files are excluded with a reason. */
function searchCandidates(all: string[], inScope: (p: string) => boolean, workspace: Workspace, rules: PathRules, excluded: Map<string, string>): string[] {
  const candidates: string[] = [];
  for (const p of all) {
    if (!inScope(p) || !isSearchable(workspace, p)) continue;
    if (rules.isForbidden(p)) {
      if (!excluded.has(p)) excluded.set(p, 'forbidden path');
      continue;
    }
    if (rules.isAllowed(p) && !rules.isGenerated(p)) candidates.push(p);
  }
  return candidates;
}

/**
 * The explicit scope (task paths, narrowed by per-step paths when every step has them) and the
 * policy filter. Warnings and exclusions are added to the lists given.
 */
export function selectionScope(input: {
  task: TaskContract;
  workspace: Workspace;
  rules: PathRules;
  all: string[];
  warnings: TargetWarning[];
  excluded: Map<string, string>;
}): SelectionScope {
  const { task, workspace, rules, all } = input;
  const scopeGlobs = task.paths ?? [];
  const inTaskScope = scopeGlobs.length ? compileGlobs(scopeGlobs) : everywhere;
  const stepGlobs = task.steps.length > 0 && task.steps.every((s) => s.paths) ? task.steps.flatMap((s) => s.paths!) : [];
  const inStepScope = stepGlobs.length ? compileGlobs(stepGlobs) : everywhere;
  const inScope = (p: string): boolean => inTaskScope(p) && inStepScope(p);
  checkScopeGlobs(scopeGlobs, all, rules, input.warnings, input.excluded);
  const candidates = searchCandidates(all, inScope, workspace, rules, input.excluded);
  // Forbidden files are reported when they would have matched, so a reviewer sees what was left out.
  const forbiddenInScope = all.filter((p) => inScope(p) && rules.isForbidden(p) && !ignoredDirOf(p) && !isBinaryByName(p));
  return { scopeGlobs, inTaskScope, inScope, candidates, forbiddenInScope };
}
