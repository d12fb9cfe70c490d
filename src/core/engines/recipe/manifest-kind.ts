import { isRequirementsFile } from '../../paths/requirements-file.js';
import { lockfileKindOf } from '../../policy/lockfiles.js';

/** Dependency manifests bump-dependency edits, by file name. */
export type ManifestKind = 'maven' | 'gradle' | 'gradle-catalog' | 'npm' | 'go-mod' | 'requirements' | 'pyproject' | 'setup-py' | 'setup-cfg' | 'cargo';

function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

export function manifestKindForPath(path: string): ManifestKind | undefined {
  const name = baseName(path);
  if (name === 'pom.xml' || name.endsWith('.pom')) return 'maven';
  if (/^(build|settings)\.gradle(\.kts)?$/.test(name) || /\.gradle(\.kts)?$/.test(name)) return 'gradle';
  if (name.endsWith('.versions.toml')) return 'gradle-catalog';
  if (name === 'package.json') return 'npm';
  if (name === 'go.mod') return 'go-mod';
  if (isRequirementsFile(path)) return 'requirements';
  if (name === 'pyproject.toml') return 'pyproject';
  if (name === 'setup.py') return 'setup-py';
  if (name === 'setup.cfg') return 'setup-cfg';
  if (name === 'Cargo.toml') return 'cargo';
  return undefined;
}

/** The command that refreshes the lockfile at `path` for `pkg`; undefined for an unknown lockfile name. */
export function lockfileRefreshCommand(path: string, pkg: string): string | undefined {
  return lockfileKindOf(baseName(path))?.refresh.replace('{pkg}', pkg);
}
