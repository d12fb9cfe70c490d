/**
 * A repository's `owner/name` from where it lives (docs/campaigns.md, "From the CLI"): the
 * campaign CLI names each `--repos` so the spec's `list` and `select.names` apply to it, and
 * the CLI's storage identity of a URL (`src/app/git/repo-identity.ts`) takes the same two
 * segments.
 */

/** A repository name as `owner` and `repo`, unchecked: the segments as the location spells them. */
export interface OwnerName {
  owner: string;
  repo: string;
}

/** `[user@]host:path` (git's scp-like syntax): no scheme, a colon before the first slash. */
const SCP_LIKE = /^(?:[^@/]+@)?[^/:]+:(?!\/\/)(.*)$/;
const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

/** The last two segments of a path, `.git` and trailing slashes dropped; undefined when there are fewer than two. */
function lastTwo(path: string): OwnerName | undefined {
  const parts = path.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.length < 2) return undefined;
  const repo = parts[parts.length - 1].replace(/\.git$/, '');
  const owner = parts[parts.length - 2];
  return repo && owner ? { owner, repo } : undefined;
}

/**
 * `owner/name` of a remote: the last two path segments of a URL (`https://host/acme/web.git`,
 * `ssh://git@host/acme/web`, `file:///srv/git/acme/web.git`), of git's scp-like form
 * (`git@host:acme/web.git`) or of a plain path (`/srv/git/acme/web.git`). Undefined when it has
 * fewer than two segments or is not a URL at all.
 */
export function ownerNameOfUrl(location: string): OwnerName | undefined {
  const text = location.trim();
  if (SCHEME.test(text)) {
    try {
      return lastTwo(new URL(text).pathname);
    } catch {
      return undefined;
    }
  }
  const scp = SCP_LIKE.exec(text);
  if (scp && !text.startsWith('/')) return lastTwo(scp[1]);
  return text.startsWith('/') ? lastTwo(text) : undefined;
}

/** The name a local checkout goes by when its remote names none: `local/<directory name>` (`.git` dropped from a bare repository's). */
export function localRepositoryName(directoryName: string): string {
  return `local/${directoryName.replace(/\.git$/, '') || 'repo'}`;
}
