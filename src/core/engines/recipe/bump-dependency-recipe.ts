import type { BumpDependencyStep } from '../../task/recipe-steps.js';
import { bumpCargo, bumpGoMod, bumpNpm, bumpPyproject, bumpRequirements } from './bump-ecosystems.js';
import { bumpGradle, bumpGradleCatalog, type TextBump } from './bump-gradle.js';
import { bumpMaven } from './bump-maven.js';
import { manifestKindForPath, type ManifestKind } from './manifest-kind.js';
import { bumpSetupCfg, bumpSetupPy } from './manifests/python-setup.js';
import type { FileRecipeResult, PendingMavenProperty } from './recipe-types.js';
import { applySpanEdits } from './span-edits.js';

const BUMPERS: Record<Exclude<ManifestKind, 'maven'>, (text: string, step: BumpDependencyStep) => TextBump> = {
  gradle: bumpGradle,
  'gradle-catalog': bumpGradleCatalog,
  npm: bumpNpm,
  'go-mod': bumpGoMod,
  requirements: bumpRequirements,
  pyproject: bumpPyproject,
  'setup-py': bumpSetupPy,
  'setup-cfg': bumpSetupCfg,
  cargo: bumpCargo,
};

/** Manifest kinds a package name can belong to: `g:a` is Maven/Gradle coordinates, anything else is not Maven. */
export function manifestKindsForPackage(pkg: string): ManifestKind[] {
  if (/^[^:\s]+:[^:\s]+$/.test(pkg)) return ['maven', 'gradle', 'gradle-catalog'];
  return ['gradle', 'gradle-catalog', 'npm', 'go-mod', 'requirements', 'pyproject', 'setup-py', 'setup-cfg', 'cargo'];
}

/**
 * Bump one dependency in one manifest, editing only the version text. For a pom whose version
 * is a `${property}` defined elsewhere, `pending` names the property to resolve in a parent pom.
 */
export function applyBumpDependency(
  step: BumpDependencyStep,
  file: { path: string; text: string },
): (FileRecipeResult & { pending: PendingMavenProperty[] }) | undefined {
  const kind = manifestKindForPath(file.path);
  if (!kind || !manifestKindsForPackage(step.package).includes(kind)) return undefined;
  if (kind === 'maven') {
    const bump = bumpMaven(file.text, step);
    const result = applySpanEdits(file.text, bump.spans, bump.notes);
    if (result) return { ...result, pending: bump.pending };
    return bump.pending.length || bump.notes.length ? { text: file.text, edits: [], notes: bump.notes, pending: bump.pending } : undefined;
  }
  const bump = BUMPERS[kind](file.text, step);
  const result = applySpanEdits(file.text, bump.spans, bump.notes);
  if (result) return { ...result, pending: [] };
  return bump.notes.length ? { text: file.text, edits: [], notes: bump.notes, pending: [] } : undefined;
}
