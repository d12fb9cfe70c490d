import { createHash } from 'node:crypto';
import { basename, resolve } from 'node:path';

/** Where a CLI `<repo>` argument points, and the owner/repo it is stored under (DESIGN §8). */
export interface SourceIdentity {
  kind: 'local' | 'url';
  owner: string;
  repo: string;
  /** Absolute path (local) or the URL without credentials (url). */
  location: string;
}

export class UsageError extends Error {}

/**
 * URL: `host/o/r(.git)` -> o/r. Local path: `local`/`<dirname>-<first 8 hex of sha256(abs path)>`.
 * Credentials in a URL are refused: tokens travel only through the token callback.
 */
export function sourceIdentity(arg: string, cwd: string): SourceIdentity {
  if (/^https?:\/\//i.test(arg)) {
    const url = new URL(arg);
    if (url.username || url.password) throw new UsageError('credentials in the repository URL are refused; use DRAFTSMAN_GIT_TOKEN');
    const parts = url.pathname.replace(/\/+$/, '').split('/').filter(Boolean);
    if (parts.length < 2) throw new UsageError(`cannot tell owner/repo from ${arg}`);
    const owner = safeSegment(parts[parts.length - 2]);
    const repo = safeSegment(parts[parts.length - 1].replace(/\.git$/, ''));
    return { kind: 'url', owner, repo, location: url.toString() };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(arg)) throw new UsageError(`unsupported repository URL scheme: ${arg}`);
  const absolute = resolve(cwd, arg);
  const digest = createHash('sha256').update(absolute).digest('hex').slice(0, 8);
  const name = safeSegment(basename(absolute).replace(/\.git$/, '') || 'repo');
  return { kind: 'local', owner: 'local', repo: `${name}-${digest}`, location: absolute };
}

function safeSegment(value: string): string {
  const cleaned = value.replace(/[^A-Za-z0-9._-]/g, '_');
  if (!cleaned || cleaned === '.' || cleaned === '..') return '_';
  return cleaned;
}
