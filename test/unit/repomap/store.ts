import type { ArtifactStore } from '../../../src/core/ports.js';
import { sha256Hex } from '../../../src/core/util/digest.js';

/** A minimal in-memory ArtifactStore for the cache tests. */
export function createLocalArtifactStoreForTest(): ArtifactStore {
  const data = new Map<string, Uint8Array>();
  const bytes = (b: Uint8Array | string) => (typeof b === 'string' ? new TextEncoder().encode(b) : b);
  return {
    async get(key) {
      const body = data.get(key);
      return body ? { body, etag: sha256Hex(body) } : undefined;
    },
    async put(key, body) {
      data.set(key, bytes(body));
      return sha256Hex(bytes(body));
    },
    async putIfAbsent(key, body) {
      if (data.has(key)) return false;
      data.set(key, bytes(body));
      return true;
    },
    async putIfMatch(key, body, etag) {
      const cur = data.get(key);
      if (!cur || sha256Hex(cur) !== etag) return false;
      data.set(key, bytes(body));
      return true;
    },
    async delete(key) {
      data.delete(key);
    },
    async list(prefix) {
      return [...data.keys()].filter((k) => k.startsWith(prefix)).sort();
    },
  };
}
