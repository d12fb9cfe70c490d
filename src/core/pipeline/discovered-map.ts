import { readArtifactIfPresent } from '../artifacts/artifact-io.js';
import { isTransientFault } from '../errors.js';
import { RepoMap } from '../repomap/repo-map-schema.js';
import type { DiscoveryOutput } from './phases/discovery-phase.js';
import type { PipelineEnv } from './pipeline-env.js';

/** Maps read per attempt environment: every segment (its prompt and its tools) shares one read and parse. */
const mapsRead = new WeakMap<PipelineEnv, Map<string, Promise<RepoMap | undefined>>>();

/**
 * The map discovery built: from the map cache key it names (valid whatever attempt ran
 * discovery), else this attempt's copy; without a discovery output, this attempt's copy only.
 * Undefined when none is there. Read once per attempt.
 */
export function discoveredMap(env: PipelineEnv, discovery: DiscoveryOutput | undefined): Promise<RepoMap | undefined> {
  const keys = [...(discovery ? [discovery.mapKey] : []), env.keys.attempt(env.attempt).repoMap];
  let byKey = mapsRead.get(env);
  if (!byKey) mapsRead.set(env, (byKey = new Map()));
  let map = byKey.get(keys[0]);
  if (!map) byKey.set(keys[0], (map = readFirst(env, keys)));
  return map;
}

async function readFirst(env: PipelineEnv, keys: string[]): Promise<RepoMap | undefined> {
  for (const key of keys) {
    // An invalid entry is passed over, as the map cache itself does; a transient fault is thrown on (docs/architecture.md, "Transient faults").
    const map = await readArtifactIfPresent(env.store, key, RepoMap).catch((error: unknown) => {
      if (isTransientFault(error)) throw error;
      return undefined;
    });
    if (map) return map;
  }
  return undefined;
}
