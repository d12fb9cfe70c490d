import { resolveCatalogReferences } from './gradle-catalogs.js';
import { resolveGradleProperties } from './gradle-properties.js';
import type { ManifestRecord } from './manifest-schema.js';
import { resolveMavenProperties } from './maven-reactor.js';

/**
 * The pass after every manifest is parsed: a version that one file uses and another writes (a
 * Maven property in a parent pom, a Gradle version catalog entry) gets `resolvedVersion` and the
 * `versionAt` a bump edits (a catalog accessor first, then a gradle.properties or `ext` property
 * for what is still unresolved). Pure: records in, records out, nothing read.
 */
export function resolveManifests(manifests: readonly ManifestRecord[]): ManifestRecord[] {
  return resolveGradleProperties(resolveCatalogReferences(resolveMavenProperties(manifests)));
}
