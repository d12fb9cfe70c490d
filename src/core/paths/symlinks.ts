import { resolveLinkTarget } from '../util/repo-path.js';

/**
 * The symlinks of the base tree, by path: the link's stored target (relative to the link's own
 * directory, as git stores it), or undefined when `path` is not a symlink.
 */
export type SymlinkLookup = ((path: string) => string | undefined) & {
  /** Every link, when known: what `symlinkAliases` needs to find the links that point at a path. */
  readonly entries?: readonly { path: string; target: string }[];
};

/** Links followed before a path counts as a loop, as the kernel's ELOOP limit. */
const MAX_HOPS = 40;

/** A lookup over `{ path, target }` entries (e.g. the repository map's `filesystem.symlinks`). */
export function symlinkLookup(entries: readonly { path: string; target: string }[]): SymlinkLookup {
  const byPath = new Map(entries.map((e) => [e.path, e.target]));
  return Object.assign((path: string) => byPath.get(path), { entries });
}

/** Aliases followed before giving up: a tree with more link aliases than this is refused. */
const MAX_ALIASES = 64;

/**
 * The other names a file at `path` is reachable by through symlinked directories pointing at
 * one of its parents: with `.github/workflows -> ../ci`, `ci/build.yml` is also
 * `.github/workflows/build.yml`. Undefined when there are more than the bound allows.
 */
export function symlinkAliases(path: string, lookup: SymlinkLookup): string[] | undefined {
  const links = (lookup.entries ?? []).flatMap((l) => {
    const dir = resolveLinkTarget(l.path, l.target);
    return dir === undefined ? [] : [{ link: l.path, dir }];
  });
  const found = new Set<string>();
  const queue = [path];
  while (queue.length > 0) {
    const current = queue.shift()!;
    for (const { link, dir } of links) {
      if (dir !== '' && !current.startsWith(`${dir}/`)) continue;
      const alias = dir === '' ? `${link}/${current}` : `${link}${current.slice(dir.length)}`;
      if (alias === path || found.has(alias)) continue;
      if (found.size >= MAX_ALIASES) return undefined;
      found.add(alias);
      queue.push(alias);
    }
  }
  return [...found];
}

/**
 * Every name a write to `path` goes by as each symlinked parent directory is followed, `path`
 * first and where it really lands last: with `ci -> .github/workflows`, `ci/deploy.yml` is also
 * `.github/workflows/deploy.yml`. Only parents are followed (the last segment is the file being
 * written). Undefined when a link leaves the repository, enters `.git` or the chain loops: such
 * a path cannot be judged and must be refused.
 */
export function symlinkChain(path: string, lookup: SymlinkLookup): string[] | undefined {
  const chain = [path];
  let segments = path.split('/');
  for (let i = 1; i < segments.length;) {
    const dir = segments.slice(0, i).join('/');
    const target = lookup(dir);
    if (target === undefined) {
      i++;
      continue;
    }
    if (chain.length > MAX_HOPS) return undefined;
    const resolved = resolveLinkTarget(dir, target);
    if (resolved === undefined) return undefined;
    const head = resolved === '' ? [] : resolved.split('/');
    if (head.some((s) => s.toLowerCase() === '.git')) return undefined;
    segments = [...head, ...segments.slice(i)];
    chain.push(segments.join('/'));
    i = 1;
  }
  return chain;
}

/** Where `path` really lands once every symlinked parent is followed (see `symlinkChain`). */
export function resolveSymlinkedPath(path: string, lookup: SymlinkLookup): string | undefined {
  return symlinkChain(path, lookup)?.at(-1);
}

/**
 * Read every symlink among `entries` (path and git mode of a tree) into a lookup. Trees hold few
 * symlinks, so reading all of them is cheap and follows chains through unrelated links too.
 */
export async function collectSymlinks(entries: Iterable<[string, { mode: string }]>, readTarget: (path: string) => Promise<string>): Promise<SymlinkLookup> {
  const found: { path: string; target: string }[] = [];
  for (const [path, entry] of entries) if (entry.mode === '120000') found.push({ path, target: await readTarget(path) });
  return symlinkLookup(found);
}
