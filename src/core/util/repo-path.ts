import { PathError } from '../errors.js';

/**
 * Normalise a repository-relative path to POSIX form and refuse anything that could escape the
 * workspace or touch git's own metadata: empty paths, absolute paths, `..` segments, NUL,
 * backslashes and `.git` segments (in any case). `.` segments and duplicate slashes are removed.
 */
export function normalizeRepoPath(input: string): string {
  if (input.includes('\u0000')) throw new PathError('PATH_NUL', 'path contains a NUL byte', { path: input.replace(/\u0000/g, '\\0') });
  if (input.includes('\\')) throw new PathError('PATH_BACKSLASH', `path contains a backslash: ${input}`, { path: input });
  if (input.startsWith('/') || /^[A-Za-z]:/.test(input)) throw new PathError('PATH_ABSOLUTE', `path is absolute: ${input}`, { path: input });
  const segments: string[] = [];
  for (const segment of input.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') throw new PathError('PATH_DOT_DOT', `path leaves the workspace: ${input}`, { path: input });
    if (segment.toLowerCase() === '.git') throw new PathError('PATH_DOT_GIT', `path touches .git: ${input}`, { path: input });
    segments.push(segment);
  }
  if (segments.length === 0) throw new PathError('PATH_EMPTY', 'path is empty', { path: input });
  return segments.join('/');
}

/** True when `path` is `dir` or lies under it. */
export function isUnder(path: string, dir: string): boolean {
  return dir === '' || path === dir || path.startsWith(dir.endsWith('/') ? dir : `${dir}/`);
}

/** Resolve a symlink target relative to the link's directory; undefined when it leaves the root. */
export function resolveLinkTarget(linkPath: string, target: string): string | undefined {
  if (target.startsWith('/')) return undefined;
  const parts = linkPath.split('/').slice(0, -1);
  for (const segment of target.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (parts.length === 0) return undefined;
      parts.pop();
    } else parts.push(segment);
  }
  return parts.join('/');
}
