import { compileGlobs } from '../../paths/glob.js';
import { DEFAULT_LOCKFILE_PATTERNS } from '../../policy/agent-policy.js';

/** Dependency manifests bump-dependency edits, by file name. */
export type ManifestKind = 'maven' | 'gradle' | 'gradle-catalog' | 'npm' | 'go-mod' | 'requirements' | 'pyproject' | 'cargo';

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
  if (/^requirements.*\.(txt|in)$/.test(name) || (/\.txt$/.test(name) && /(^|\/)requirements\//.test(path))) return 'requirements';
  if (name === 'pyproject.toml') return 'pyproject';
  if (name === 'Cargo.toml') return 'cargo';
  return undefined;
}

/**
 * The command that refreshes each lockfile (`{pkg}` is the package being bumped). Which files are
 * lockfiles is decided by the policy's lockfile patterns, not by this table.
 */
export const LOCKFILES: Record<string, string> = {
  'package-lock.json': 'npm install --package-lock-only',
  'npm-shrinkwrap.json': 'npm install --package-lock-only',
  'pnpm-lock.yaml': 'pnpm install --lockfile-only',
  'yarn.lock': 'yarn install --mode update-lockfile',
  'bun.lockb': 'bun install',
  'bun.lock': 'bun install',
  'go.sum': 'go mod tidy',
  'Cargo.lock': 'cargo update -p {pkg}',
  'poetry.lock': 'poetry lock',
  'uv.lock': 'uv lock',
  'pdm.lock': 'pdm lock',
  'Pipfile.lock': 'pipenv lock',
  'Gemfile.lock': 'bundle lock',
  'composer.lock': 'composer update --lock',
  'packages.lock.json': 'dotnet restore --force-evaluate',
  'gradle.lockfile': './gradlew dependencies --write-locks',
  'buildscript-gradle.lockfile': './gradlew dependencies --write-locks',
  'settings-gradle.lockfile': './gradlew dependencies --write-locks',
};

/** The command that refreshes the lockfile at `path` for `pkg`; undefined for an unknown lockfile name. */
export function lockfileRefreshCommand(path: string, pkg: string): string | undefined {
  return LOCKFILES[baseName(path)]?.replace('{pkg}', pkg);
}

/** Which lockfiles belong to which manifest kind. */
export const LOCKFILES_FOR_KIND: Partial<Record<ManifestKind, string[]>> = {
  npm: ['package-lock.json', 'npm-shrinkwrap.json', 'pnpm-lock.yaml', 'yarn.lock', 'bun.lockb', 'bun.lock'],
  'go-mod': ['go.sum'],
  cargo: ['Cargo.lock'],
  pyproject: ['poetry.lock', 'uv.lock', 'pdm.lock'],
  gradle: ['gradle.lockfile', 'buildscript-gradle.lockfile', 'settings-gradle.lockfile'],
  'gradle-catalog': ['gradle.lockfile'],
};

/** A lockfile by the default lockfile patterns. */
export const isLockfile: (path: string) => boolean = compileGlobs(DEFAULT_LOCKFILE_PATTERNS);
