import type { BumpDependencyStep } from '../../task/recipe-steps.js';
import { bumpCargo, bumpGoMod, bumpNpm, bumpPyproject, bumpRequirements } from './bump-ecosystems.js';
import { bumpGradle, bumpGradleCatalog, type TextBump } from './bump-gradle.js';
import { bumpMaven } from './bump-maven.js';
import { manifestKindFor } from '../../manifests/manifest-kinds.js';
import type { ManifestKind } from '../../manifests/manifest-schema.js';
import { bumpSetupCfg, bumpSetupPy } from './manifests/python-setup.js';
import type { DependencyUpdate, FileRecipeResult, PendingMavenProperty, SpanEdit } from './recipe-types.js';
import { splitVersion } from './version-edit.js';
import { updateType, type VersionScheme } from '../../versions/versions.js';
import { applySpanEdits } from './span-edits.js';

/** The manifest kinds bump-dependency edits, each with its editor (poms have their own, with parent properties). */
type BumpKind =
  | 'maven'
  | 'gradle-build'
  | 'gradle-settings'
  | 'gradle-script'
  | 'gradle-catalog'
  | 'package.json'
  | 'go.mod'
  | 'requirements'
  | 'pyproject'
  | 'setup-py'
  | 'setup-cfg'
  | 'cargo';

const BUMPERS: Record<Exclude<BumpKind, 'maven'>, (text: string, step: BumpDependencyStep) => TextBump> = {
  'gradle-build': bumpGradle,
  'gradle-settings': bumpGradle,
  'gradle-script': bumpGradle,
  'gradle-catalog': bumpGradleCatalog,
  'package.json': bumpNpm,
  'go.mod': bumpGoMod,
  requirements: bumpRequirements,
  pyproject: bumpPyproject,
  'setup-py': bumpSetupPy,
  'setup-cfg': bumpSetupCfg,
  cargo: bumpCargo,
};

/** Manifest kinds a package name can belong to: `g:a` is Maven/Gradle coordinates, anything else is not Maven. */
export function manifestKindsForPackage(pkg: string): BumpKind[] {
  const gradle: BumpKind[] = ['gradle-build', 'gradle-settings', 'gradle-script', 'gradle-catalog'];
  if (/^[^:\s]+:[^:\s]+$/.test(pkg)) return ['maven', ...gradle];
  return [...gradle, 'package.json', 'go.mod', 'requirements', 'pyproject', 'setup-py', 'setup-cfg', 'cargo'];
}

/** The bump editor's kind of a path, when bump-dependency edits files of that kind for `pkg`. */
export function bumpKindFor(path: string, pkg: string): BumpKind | undefined {
  const kind: ManifestKind | undefined = manifestKindFor(path);
  return manifestKindsForPackage(pkg).find((k) => k === kind);
}

/** The version scheme a manifest's versions follow. */
const SCHEMES: Record<BumpKind, VersionScheme> = {
  maven: 'maven',
  'gradle-build': 'maven',
  'gradle-settings': 'maven',
  'gradle-script': 'maven',
  'gradle-catalog': 'maven',
  'package.json': 'semver',
  cargo: 'semver',
  'go.mod': 'go',
  requirements: 'pep440',
  pyproject: 'pep440',
  'setup-py': 'pep440',
  'setup-cfg': 'pep440',
};

/** The version scheme of a manifest kind bump-dependency edits; undefined for any other kind. */
export function versionSchemeOf(kind: ManifestKind): VersionScheme | undefined {
  return (SCHEMES as Partial<Record<ManifestKind, VersionScheme>>)[kind];
}

/**
 * Bump one dependency in one manifest, editing only the version text. For a pom whose version
 * is a `${property}` defined elsewhere, `pending` names the property to resolve in a parent pom.
 * Each edit is weighed by the ecosystem's own version order: a downgrade is left alone unless the
 * step allows it, and every update says its kind (major, minor, patch) for the PR body.
 */
export function applyBumpDependency(
  step: BumpDependencyStep,
  file: { path: string; text: string },
): (FileRecipeResult & { pending: PendingMavenProperty[] }) | undefined {
  const kind = bumpKindFor(file.path, step.package);
  if (!kind) return undefined;
  const bump: TextBump & { pending: PendingMavenProperty[] } =
    kind === 'maven' ? bumpMaven(file.text, step) : { pending: [], ...BUMPERS[kind](file.text, step) };
  const weighed = weighUpdates(step, file.text, bump.spans, SCHEMES[kind]);
  const notes = [...bump.notes, ...weighed.notes];
  const result = applySpanEdits(file.text, weighed.spans, notes);
  if (result) return { ...result, updates: weighed.updates, pending: bump.pending };
  return bump.pending.length || notes.length ? { text: file.text, edits: [], notes, pending: bump.pending } : undefined;
}

/** The version edits a step may make, each with its update kind; downgrades refused unless `allowDowngrade`. */
export function weighUpdates(
  step: BumpDependencyStep,
  text: string,
  spans: readonly SpanEdit[],
  scheme: VersionScheme,
): { spans: SpanEdit[]; notes: string[]; updates: DependencyUpdate[] } {
  const out: { spans: SpanEdit[]; notes: string[]; updates: DependencyUpdate[] } = { spans: [], notes: [], updates: [] };
  for (const span of spans) {
    const from = splitVersion(text.slice(span.start, span.end)).bare;
    const to = splitVersion(span.text).bare;
    const type = updateType(scheme, from, to) ?? 'other';
    if (type === 'downgrade' && !step.allowDowngrade) {
      out.notes.push(`${step.package} ${from} → ${to} is a downgrade; left alone (add \`allowDowngrade: true\` to the step to apply it)`);
      continue;
    }
    out.spans.push(span);
    out.updates.push({ package: step.package, from, to, updateType: type });
  }
  return out;
}

/** The declarations of the package in one manifest left alone because they neither are nor admit the step's `from`. */
export function bumpMismatches(step: BumpDependencyStep, file: { path: string; text: string }): string[] {
  const kind = bumpKindFor(file.path, step.package);
  if (!kind || step.from === undefined) return [];
  const bump = kind === 'maven' ? bumpMaven(file.text, step) : BUMPERS[kind](file.text, step);
  return bump.mismatches ?? [];
}
