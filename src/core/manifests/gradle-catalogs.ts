import type { ManifestRecord } from './manifest-schema.js';

/** `libs.…` accessors in Gradle scripts resolved to the catalog entry that writes their version. */
export function resolveCatalogReferences(manifests: readonly ManifestRecord[]): ManifestRecord[] {
  return [...manifests];
}
