/**
 * Every lockfile this project knows, once: its file name (a `*` prefix matches any start), the
 * command that refreshes it (`{pkg}` is the package being bumped), and the manifest kinds whose
 * bumps make it stale. The policy's default lockfile patterns and the recipes' refresh hints
 * are both derived from this table.
 */
export interface LockfileKind {
  file: string;
  refresh: string;
  manifests: readonly string[];
}

export const LOCKFILE_KINDS: readonly LockfileKind[] = [
  { file: 'package-lock.json', refresh: 'npm install --package-lock-only', manifests: ['package.json'] },
  { file: 'npm-shrinkwrap.json', refresh: 'npm install --package-lock-only', manifests: ['package.json'] },
  { file: 'yarn.lock', refresh: 'yarn install --mode update-lockfile', manifests: ['package.json'] },
  { file: 'pnpm-lock.yaml', refresh: 'pnpm install --lockfile-only', manifests: ['package.json'] },
  { file: 'bun.lockb', refresh: 'bun install', manifests: ['package.json'] },
  { file: 'bun.lock', refresh: 'bun install', manifests: ['package.json'] },
  { file: 'go.sum', refresh: 'go mod tidy', manifests: ['go.mod'] },
  { file: 'Cargo.lock', refresh: 'cargo update -p {pkg}', manifests: ['cargo'] },
  { file: 'poetry.lock', refresh: 'poetry lock', manifests: ['pyproject'] },
  { file: 'Pipfile.lock', refresh: 'pipenv lock', manifests: [] },
  { file: 'uv.lock', refresh: 'uv lock', manifests: ['pyproject'] },
  { file: 'pdm.lock', refresh: 'pdm lock', manifests: ['pyproject'] },
  { file: 'Gemfile.lock', refresh: 'bundle lock', manifests: [] },
  { file: 'composer.lock', refresh: 'composer update --lock', manifests: [] },
  {
    file: 'gradle.lockfile',
    refresh: './gradlew dependencies --write-locks',
    manifests: ['gradle-build', 'gradle-settings', 'gradle-script', 'gradle-catalog'],
  },
  { file: '*-gradle.lockfile', refresh: './gradlew dependencies --write-locks', manifests: [] },
  { file: 'buildscript-gradle.lockfile', refresh: './gradlew dependencies --write-locks', manifests: ['gradle-build', 'gradle-settings', 'gradle-script'] },
  { file: 'settings-gradle.lockfile', refresh: './gradlew dependencies --write-locks', manifests: ['gradle-build', 'gradle-settings', 'gradle-script'] },
  { file: 'packages.lock.json', refresh: 'dotnet restore --force-evaluate', manifests: [] },
];

const matches = (kind: LockfileKind, name: string) => (kind.file.startsWith('*') ? name.endsWith(kind.file.slice(1)) : name === kind.file);

/** The lockfile kind of a file name (exact names first, then `*` patterns); undefined for any other file. */
export function lockfileKindOf(name: string): LockfileKind | undefined {
  return LOCKFILE_KINDS.find((k) => !k.file.startsWith('*') && matches(k, name)) ?? LOCKFILE_KINDS.find((k) => matches(k, name));
}

/** The policy's default lockfile patterns: one per kind, names a `*` pattern already covers left out. */
export const DEFAULT_LOCKFILE_PATTERNS: string[] = LOCKFILE_KINDS.filter(
  (k) => !LOCKFILE_KINDS.some((o) => o !== k && o.file.startsWith('*') && matches(o, k.file)),
).map((k) => `**/${k.file}`);

/** The exact lockfile names that belong to a manifest kind. */
export function lockfilesForManifest(kind: string): string[] {
  return LOCKFILE_KINDS.filter((k) => !k.file.startsWith('*') && k.manifests.includes(kind)).map((k) => k.file);
}

/** The command that refreshes the lockfile at `path` for `pkg`; undefined for an unknown lockfile name. */
export function lockfileRefreshCommand(path: string, pkg: string): string | undefined {
  return lockfileKindOf(path.slice(path.lastIndexOf('/') + 1))?.refresh.replace('{pkg}', pkg);
}
