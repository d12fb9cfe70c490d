import { ignoredDirOf } from '../../../paths/path-classes.js';
import type { BumpDependencyStep } from '../../../task/recipe-steps.js';
import type { Workspace } from '../../../workspace/workspace.js';
import { applyBumpDependency, bumpKindFor } from '../bump-dependency-recipe.js';
import type { SkipReason } from '../recipe-types.js';
import { capNotes } from './follow-types.js';

export interface PinsLeftContext {
  /** The paths the step could edit. */
  inScope: ReadonlySet<string>;
  /** Manifests the step changed. */
  changed: ReadonlySet<string>;
  /** Candidates the step read but could not edit, with why. */
  skipped: ReadonlyMap<string, SkipReason>;
  isEditable(path: string): boolean;
  maxFileBytes?: number;
  /** The run's lockfiles (never pins to bump). */
  isLockfile(path: string): boolean;
}

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

async function textOf(workspace: Workspace, path: string, maxFileBytes = Infinity): Promise<string | undefined> {
  const entry = workspace.entry(path);
  if (!entry || (entry.mode !== '100644' && entry.mode !== '100755')) return undefined;
  const bytes = await workspace.read(path);
  if (bytes.length > maxFileBytes || bytes.includes(0)) return undefined;
  try {
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * Every manifest of the repository that pins the package but was not bumped, with the line and
 * why it was left (outside the scope, refused by the policy, a version other than `from`), so
 * a partial bump is never silent. Found by applying the bump in memory without `from`.
 */
export async function pinsLeft(step: BumpDependencyStep, workspace: Workspace, ctx: PinsLeftContext): Promise<string[]> {
  const anyVersion: BumpDependencyStep = { ...step, from: undefined };
  const notes: string[] = [];
  for (const path of workspace.paths()) {
    if (!bumpKindFor(path, step.package) || ctx.changed.has(path) || ctx.isLockfile(path) || ignoredDirOf(path)) continue;
    const text = await textOf(workspace, path);
    if (text === undefined) continue;
    const pin = applyBumpDependency(anyVersion, { path, text })?.edits[0];
    if (!pin) continue;
    let why: string;
    if (!ctx.isEditable(path)) why = 'the policy does not let recipes edit it';
    else if (ctx.skipped.has(path)) why = `not edited (${ctx.skipped.get(path)})`;
    else if (!ctx.inScope.has(path))
      why = ctx.maxFileBytes !== undefined && new TextEncoder().encode(text).length > ctx.maxFileBytes ? 'over the size limit' : 'outside the scope';
    else if (step.from !== undefined) why = `not at ${step.from}`;
    else continue;
    notes.push(`${path}:${pin.line} also pins ${step.package} (${pin.before.trim().slice(0, 120)}): ${why}; left as it is`);
  }
  return capNotes(notes, 20);
}

/**
 * A bumped `x.txt` beside an `x.in` is pip-compile output: its transitive pins are stale until
 * it is compiled again, which a text edit cannot do.
 */
export function compiledRequirements(changed: readonly string[], paths: ReadonlySet<string>): string[] {
  return changed
    .filter((p) => p.endsWith('.txt') && paths.has(p.replace(/\.txt$/, '.in')))
    .map((p) => `${p} is compiled from ${p.replace(/\.txt$/, '.in')}: rerun \`pip-compile ${p.replace(/\.txt$/, '.in')}\` to refresh its other pins`);
}
