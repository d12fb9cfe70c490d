import { baseName } from '../paths/path-classes.js';
import { isRequirementsFile } from '../paths/requirements-file.js';
import type { ManifestKind } from './manifest-schema.js';

/** Manifest kinds by exact file name. */
const KIND_BY_NAME = new Map<string, ManifestKind>([
  ['package.json', 'package.json'],
  ['pnpm-workspace.yaml', 'pnpm-workspace'],
  ['pom.xml', 'maven'],
  ['build.gradle', 'gradle-build'],
  ['build.gradle.kts', 'gradle-build'],
  ['settings.gradle', 'gradle-settings'],
  ['settings.gradle.kts', 'gradle-settings'],
  ['gradle.properties', 'gradle-properties'],
  ['go.mod', 'go.mod'],
  ['go.work', 'go.work'],
  ['Cargo.toml', 'cargo'],
  ['pyproject.toml', 'pyproject'],
  ['setup.cfg', 'setup-cfg'],
  ['setup.py', 'setup-py'],
  ['Gemfile', 'gemfile'],
  ['composer.json', 'composer'],
  ['Dockerfile', 'dockerfile'],
]);

/**
 * The manifest kind a path names, from its name alone (content is never sniffed for this): the
 * one rule the repository map's census and every recipe that edits manifests use.
 */
export function manifestKindFor(path: string): ManifestKind | undefined {
  const name = baseName(path);
  const byName = KIND_BY_NAME.get(name);
  if (byName) return byName;
  if (isRequirementsFile(path)) return 'requirements';
  if (name.endsWith('.pom')) return 'maven';
  if (name.endsWith('.versions.toml')) return 'gradle-catalog';
  if (/\.gradle(\.kts)?$/.test(name)) return 'gradle-script';
  if (name.endsWith('.csproj')) return 'csproj';
  if (/^Dockerfile\.[\w-]+$/.test(name) || name.endsWith('.dockerfile')) return 'dockerfile';
  if (/^(openapi|swagger)([-_.][\w.-]*)?\.(ya?ml|json)$/i.test(name)) return 'openapi';
  if (/^\.github\/workflows\/[^/]+\.ya?ml$/.test(path)) return 'github-workflow';
  return undefined;
}

/** Kinds whose files are Gradle scripts (build, settings, applied or precompiled scripts). */
export const GRADLE_SCRIPT_KINDS: ReadonlySet<ManifestKind> = new Set(['gradle-build', 'gradle-settings', 'gradle-script']);
