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
 * Each lockfile name this engine knows: the command that refreshes it (`{pkg}` is the package
 * being bumped) and the manifest kinds it belongs to. Which files are lockfiles is decided by
 * the policy's lockfile patterns, not by this table.
 */
const LOCKFILE_TABLE: Record<string, { command: string; kinds: ManifestKind[] }> = {
  'package-lock.json': { command: 'npm install --package-lock-only', kinds: ['npm'] },
  'npm-shrinkwrap.json': { command: 'npm install --package-lock-only', kinds: ['npm'] },
  'pnpm-lock.yaml': { command: 'pnpm install --lockfile-only', kinds: ['npm'] },
  'yarn.lock': { command: 'yarn install --mode update-lockfile', kinds: ['npm'] },
  'bun.lockb': { command: 'bun install', kinds: ['npm'] },
  'bun.lock': { command: 'bun install', kinds: ['npm'] },
  'go.sum': { command: 'go mod tidy', kinds: ['go-mod'] },
  'Cargo.lock': { command: 'cargo update -p {pkg}', kinds: ['cargo'] },
  'poetry.lock': { command: 'poetry lock', kinds: ['pyproject'] },
  'uv.lock': { command: 'uv lock', kinds: ['pyproject'] },
  'pdm.lock': { command: 'pdm lock', kinds: ['pyproject'] },
  'Pipfile.lock': { command: 'pipenv lock', kinds: [] },
  'Gemfile.lock': { command: 'bundle lock', kinds: [] },
  'composer.lock': { command: 'composer update --lock', kinds: [] },
  'packages.lock.json': { command: 'dotnet restore --force-evaluate', kinds: [] },
  'gradle.lockfile': { command: './gradlew dependencies --write-locks', kinds: ['gradle', 'gradle-catalog'] },
  'buildscript-gradle.lockfile': { command: './gradlew dependencies --write-locks', kinds: ['gradle'] },
  'settings-gradle.lockfile': { command: './gradlew dependencies --write-locks', kinds: ['gradle'] },
};

/** The refresh command of each known lockfile name. */
export const LOCKFILES: Record<string, string> = Object.fromEntries(Object.entries(LOCKFILE_TABLE).map(([name, entry]) => [name, entry.command]));

/** The command that refreshes the lockfile at `path` for `pkg`; undefined for an unknown lockfile name. */
export function lockfileRefreshCommand(path: string, pkg: string): string | undefined {
  return LOCKFILES[baseName(path)]?.replace('{pkg}', pkg);
}

/** Which lockfiles belong to which manifest kind (from the same table). */
export const LOCKFILES_FOR_KIND: Partial<Record<ManifestKind, string[]>> = {};
for (const [name, entry] of Object.entries(LOCKFILE_TABLE)) {
  for (const kind of entry.kinds) (LOCKFILES_FOR_KIND[kind] ??= []).push(name);
}

/** A lockfile by the default lockfile patterns. */
export const isLockfile: (path: string) => boolean = compileGlobs(DEFAULT_LOCKFILE_PATTERNS);
