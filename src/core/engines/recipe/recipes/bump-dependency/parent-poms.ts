import { bumpMavenProperty, scanPom } from '../../bump-maven.js';
import { dirname } from '../../manifests/follow-types.js';
import type { PendingMavenProperty } from '../../recipe-types.js';
import type { RecipeRun } from '../../recipe-run.js';
import { applySpanEdits } from '../../span-edits.js';
import { weighUpdates } from '../../bump-dependency-recipe.js';
import type { BumpDependencyStep } from '../../../../task/recipe-steps.js';

function joinPath(dir: string, relative: string): string | undefined {
  const parts = dir ? dir.split('/') : [];
  for (const segment of relative.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (!parts.length) return undefined;
      parts.pop();
    } else parts.push(segment);
  }
  return parts.join('/');
}

/** The parent pom `<parent><relativePath>` (default `../pom.xml`) names, when it is in the workspace and not seen yet. */
async function parentPom(run: RecipeRun, current: string, seen: Set<string>): Promise<string | undefined> {
  const facts = scanPom(await run.workspace.readText(current));
  if (!facts.hasParent) return undefined;
  const relative = facts.parentRelativePath || '../pom.xml';
  let parent = joinPath(dirname(current), relative);
  if (parent !== undefined && !/\.(xml|pom)$/.test(parent)) parent = parent ? `${parent}/pom.xml` : 'pom.xml';
  if (parent === undefined || seen.has(parent) || !run.workspace.entry(parent)) return undefined;
  seen.add(parent);
  return parent;
}

/**
 * Follow the parents up the repository to the pom defining the property: its path and text when
 * it can be edited; otherwise a note says why (unreadable, outside the scope, not defined).
 */
export async function parentDefining(run: RecipeRun, pom: string, property: string): Promise<{ path: string; text: string } | undefined> {
  let current = pom;
  const seen = new Set<string>([pom]);
  for (let depth = 0; depth < 20; depth++) {
    const parent = await parentPom(run, current, seen);
    if (parent === undefined) break;
    const readable = await run.read(parent);
    if ('reason' in readable) {
      run.result.skipped.push({ path: parent, reason: readable.reason });
      run.notes.add(`${pom}: the version property \${${property}} may be defined in ${parent}, which cannot be edited`);
      return undefined;
    }
    if (!scanPom(readable.text).properties.has(property)) {
      current = parent;
      continue;
    }
    if (!run.inScope.has(parent)) {
      run.result.skipped.push({ path: parent, reason: 'NOT_EDITABLE' });
      run.notes.add(`${pom}: the version property \${${property}} is defined in ${parent}, outside the scope; not edited`);
      return undefined;
    }
    return { path: parent, text: readable.text };
  }
  run.notes.add(`${pom}: the version property \${${property}} is not defined in this repository's poms; not edited`);
  return undefined;
}

/** Edit the property where a parent pom defines it. */
export async function resolveParentProperty(run: RecipeRun, pom: string, pending: PendingMavenProperty, step: BumpDependencyStep): Promise<void> {
  const parent = await parentDefining(run, pom, pending.property);
  if (!parent) return;
  const bump = bumpMavenProperty(parent.text, pending, step.to);
  const weighed = weighUpdates(step, parent.text, bump.spans, 'maven');
  const out = applySpanEdits(parent.text, weighed.spans, weighed.notes);
  if (out) await run.write(parent.path, { ...out, updates: weighed.updates });
  else for (const note of weighed.notes) run.notes.add(`${parent.path}: ${note}`);
}
