import { createHash } from 'node:crypto';
import { basename, resolve } from 'node:path';
import { ownerNameOfUrl } from '../../core/campaign/repository-name.js';

/** Owner/repo used in storage keys. */
export interface RepoIdentity {
  owner: string;
  repo: string;
}

const SAFE = /[^A-Za-z0-9._-]/g;

/** `host/o/r(.git)` -> `o`/`r` (the campaign's `owner/name` of a URL, made safe for keys). Credentials in the URL are ignored (and refused elsewhere). */
export function identityFromUrl(url: string): RepoIdentity {
  const named = ownerNameOfUrl(url);
  if (named) return { owner: named.owner.replace(SAFE, '_'), repo: named.repo.replace(SAFE, '_') };
  const parsed = new URL(url);
  const only = (parsed.pathname.split('/').filter((p) => p !== '')[0] ?? parsed.hostname).replace(/\.git$/, '');
  return { owner: parsed.hostname.replace(SAFE, '_'), repo: only.replace(SAFE, '_') || 'repo' };
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
