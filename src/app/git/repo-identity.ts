import { createHash } from 'node:crypto';
import { basename, resolve } from 'node:path';

/** Owner/repo used in storage keys. */
export interface RepoIdentity {
  owner: string;
  repo: string;
}

const SAFE = /[^A-Za-z0-9._-]/g;

/** `host/o/r(.git)` -> `o`/`r`. Credentials in the URL are ignored (and refused elsewhere). */
export function identityFromUrl(url: string): RepoIdentity {
  const parsed = new URL(url);
  const parts = parsed.pathname.split('/').filter((p) => p !== '');
  if (parts.length < 2) {
    const only = (parts[0] ?? parsed.hostname).replace(/\.git$/, '');
    return { owner: parsed.hostname.replace(SAFE, '_'), repo: only.replace(SAFE, '_') || 'repo' };
  }
  const owner = parts[parts.length - 2];
  const repo = parts[parts.length - 1].replace(/\.git$/, '');
  return { owner: owner.replace(SAFE, '_'), repo: repo.replace(SAFE, '_') };
}

/** `local` / `<dirname>-<first 8 hex of sha256(absolute path)>`. */
export function identityFromLocalPath(path: string): RepoIdentity {
  const absolute = resolve(path);
  const digest = createHash('sha256').update(absolute).digest('hex').slice(0, 8);
  const name = (basename(absolute) || 'root').replace(SAFE, '_');
  return { owner: 'local', repo: `${name}-${digest}` };
}

/** The URL without user info, query or fragment: safe for logs, reports and errors. */
export function displayUrl(url: string): string {
  const parsed = new URL(url);
  parsed.username = '';
  parsed.password = '';
  parsed.search = '';
  parsed.hash = '';
  return parsed.toString();
}
