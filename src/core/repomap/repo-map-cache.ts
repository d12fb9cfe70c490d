import { mapKey } from '../artifacts/keys.js';
import type { ArtifactStore } from '../ports.js';
import { canonicalJson } from '../util/digest.js';
import { RepoMap } from './repo-map-schema.js';

export interface RepoMapCacheKey {
  owner: string;
  repo: string;
  /** A full commit SHA: a branch name is never a cache key (it moves). */
  commit: string;
  scannerVersion: string;
  policyDigest: string;
}

/** `maps/<owner>/<repo>/<commit>/<scannerVersion>-<policyDigest>.json` (`mapKey`); anything but a commit SHA is refused. */
export function repoMapCacheKey(key: RepoMapCacheKey): string {
  return mapKey(key.owner, key.repo, key.commit, key.scannerVersion, key.policyDigest);
}

/**
 * A cached map for exactly this key, or a freshly built one that is then stored. A hit is one
 * key lookup and one parse; the stored identity must match the key, else the entry is ignored
 * and rebuilt. Only maps of an unmodified workspace are stored (an overlay is not a commit).
 */
export async function loadOrBuildRepoMap(options: {
  store: ArtifactStore;
  key: RepoMapCacheKey;
  build: () => Promise<RepoMap>;
}): Promise<{ map: RepoMap; cacheHit: boolean; key: string }> {
  const key = repoMapCacheKey(options.key);
  const stored = await options.store.get(key);
  if (stored) {
    const parsed = RepoMap.safeParse(safeJson(new TextDecoder().decode(stored.body)));
    if (parsed.success && sameIdentity(parsed.data, options.key)) return { map: parsed.data, cacheHit: true, key };
  }
  const map = await options.build();
  if (map.identity.workspaceDigest.startsWith('tree:') && sameIdentity(map, options.key)) {
    await options.store.put(key, canonicalJson(map), { contentType: 'application/json' });
  }
  return { map, cacheHit: false, key };
}

function sameIdentity(map: RepoMap, key: RepoMapCacheKey): boolean {
  const id = map.identity;
  return (
    id.owner === key.owner &&
    id.repo === key.repo &&
    id.commit === key.commit &&
    id.scannerVersion === key.scannerVersion &&
    id.policyDigest === key.policyDigest
  );
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
