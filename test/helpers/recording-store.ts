import type { ArtifactStore } from '../../src/core/ports.js';

/**
 * The same store, telling `onPut` the key and duration of each `put` once it succeeded: how the
 * App harness and the webhook benchmark learn which deliveries the webhook stored for the intake.
 */
export function recordingPuts(store: ArtifactStore, onPut: (key: string, ms: number) => void): ArtifactStore {
  return {
    get: (key) => store.get(key),
    list: (prefix) => store.list(prefix),
    delete: (key) => store.delete(key),
    putIfAbsent: (key, body, o) => store.putIfAbsent(key, body, o),
    putIfMatch: (key, body, etag, o) => store.putIfMatch(key, body, etag, o),
    async put(key, body, o) {
      const start = performance.now();
      const etag = await store.put(key, body, o);
      onPut(key, performance.now() - start);
      return etag;
    },
  };
}
