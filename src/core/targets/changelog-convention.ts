import { baseName, dirName } from '../paths/path-classes.js';

/**
 * How a project records a change for its users: a fragments directory where each change adds a
 * new small file (towncrier's `changelog.d/`, `changes/`, `newsfragments/`, changesets'
 * `.changeset/`), one changelog file edited by hand (`CHANGES.md`, `CHANGELOG.md`), or none.
 */
export type ChangelogConvention = { kind: 'fragments'; directory: string } | { kind: 'file'; path: string } | { kind: 'none' };

/** Directory names used for changelog fragments by the common tools (towncrier, scriv, changesets, reno, chloggen). */
const FRAGMENT_DIRS = new Set([
  'changelog.d',
  'changes',
  'newsfragments',
  'news',
  'changelog',
  '.changeset',
  '.changes',
  '.changelog',
  'unreleased',
  '.chloggen',
  'fragments',
]);
const CHANGELOG_FILE = /^(?:CHANGELOG|CHANGES|HISTORY|NEWS|RELEASE[-_]?NOTES)(?:\.(?:md|markdown|rst|txt|adoc))?$/i;
/** Fragments are prose or data, never code: `123.bugfix.rst`, `brave-cats-sing.md`, `fix-x.yaml`, `.gitignore`. */
const FRAGMENT_FILE = /^(?:[^.]+|.*\.(?:md|markdown|rst|txt|adoc|ya?ml|toml|json|feature|bugfix|fix|misc|removal|doc|change))$/i;
/** A towncrier configuration naming its directory: `directory = "changes"`. */
const TOWNCRIER_DIRECTORY = /^\s*directory\s*=\s*["']([^"'\n]+)["']/m;

const depth = (p: string): number => p.split('/').length;

/**
 * The project's changelog convention from its file list (and a towncrier configuration's
 * `directory`, when given): a fragments directory holding two or more files that are not
 * themselves a changelog, nearest the root; else the changelog file nearest the root; else none.
 */
export function changelogConvention(paths: readonly string[], towncrierConfig?: string): ChangelogConvention {
  const configured = towncrierConfig ? TOWNCRIER_DIRECTORY.exec(towncrierConfig)?.[1]?.replace(/\/+$/, '') : undefined;
  const counts = new Map<string, number>();
  for (const p of paths) {
    const dir = dirName(p);
    const name = baseName(dir);
    const fragment = FRAGMENT_FILE.test(baseName(p)) && !CHANGELOG_FILE.test(baseName(p));
    if (fragment && ((dir && dir === configured) || FRAGMENT_DIRS.has(name.toLowerCase()))) counts.set(dir, (counts.get(dir) ?? 0) + 1);
  }
  const dirs = [...counts]
    .filter(([d, n]) => n >= 2 || d === configured)
    .map(([d]) => d)
    .sort((a, b) => Number(b === configured) - Number(a === configured) || depth(a) - depth(b) || (a < b ? -1 : 1));
  if (dirs.length > 0 && depth(dirs[0]) <= 3) return { kind: 'fragments', directory: dirs[0] };
  const files = paths.filter((p) => CHANGELOG_FILE.test(baseName(p)) && depth(p) <= 2).sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : 1));
  return files.length > 0 ? { kind: 'file', path: files[0] } : { kind: 'none' };
}

/** The files a towncrier configuration may be in. */
export const TOWNCRIER_CONFIGS = ['towncrier.toml', 'pyproject.toml', '.towncrier.toml'];
