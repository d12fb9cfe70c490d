import { dirName } from '../paths/path-classes.js';
import type { ManifestDependency, ManifestRecord, VersionSite } from './manifest-schema.js';

/** Parent chains longer than this are not followed (real reactors have a handful of levels). */
const MAX_PARENT_DEPTH = 20;
/** A property whose value names another property is followed this many times. */
const MAX_REFERENCE_DEPTH = 10;
/** Longer versions are not interpolated (a hostile pom gains nothing from the pass). */
const MAX_VERSION_LENGTH = 500;

const SINGLE_REFERENCE = /^\$\{([^${}]+)\}$/;
const REFERENCE = /\$\{([^${}]+)\}/g;

/** A property's value and where it is written, when that is a line of a pom. */
interface Found {
  value: string;
  site?: VersionSite;
}

/** `relativePath` (a pom or a directory holding one) from a pom's directory; undefined when it leaves the repository. */
function pomAt(fromPom: string, relativePath: string): string | undefined {
  const parts = dirName(fromPom) ? dirName(fromPom).split('/') : [];
  for (const segment of relativePath.replace(/\\/g, '/').split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment !== '..') parts.push(segment);
    else if (parts.pop() === undefined) return undefined;
  }
  if (parts.length > 0 && /\.(xml|pom)$/.test(parts[parts.length - 1])) return parts.join('/');
  return [...parts, 'pom.xml'].join('/');
}

/** The poms of one repository, with each one's parent inside it. */
class Reactor {
  private readonly byPath = new Map<string, ManifestRecord>();
  private readonly byName = new Map<string, ManifestRecord>();

  constructor(poms: readonly ManifestRecord[]) {
    for (const pom of poms) {
      this.byPath.set(pom.path, pom);
      if (pom.name && !this.byName.has(pom.name)) this.byName.set(pom.name, pom);
    }
  }

  /** The parent pom: at `<relativePath>` (default `../pom.xml`) when it has the parent's coordinates, else by coordinates. */
  parentOf(pom: ManifestRecord): ManifestRecord | undefined {
    if (!pom.parent) return undefined;
    // An empty `<relativePath/>` tells Maven not to look on disk.
    if (pom.parent.relativePath !== '') {
      const at = pomAt(pom.path, pom.parent.relativePath ?? '../pom.xml');
      const candidate = at === undefined ? undefined : this.byPath.get(at);
      if (candidate && candidate !== pom && candidate.name === pom.parent.name) return candidate;
    }
    const named = this.byName.get(pom.parent.name);
    return named === pom ? undefined : named;
  }

  /** The pom and its parents inside the repository, nearest first; a cycle or a deep chain stops the walk. */
  chain(pom: ManifestRecord): ManifestRecord[] {
    const out = [pom];
    for (let at = this.parentOf(pom); at && !out.includes(at) && out.length <= MAX_PARENT_DEPTH; at = this.parentOf(at)) out.push(at);
    return out;
  }

  /** A property as the pom sees it: the project's own version properties, then `<properties>` up the parent chain. */
  lookup(pom: ManifestRecord, name: string): Found | undefined {
    const siteIn = (p: ManifestRecord, key: string): VersionSite | undefined => {
      const line = p.propertyLines?.[key];
      return line === undefined ? undefined : { path: p.path, line };
    };
    if (name === 'project.version' || name === 'pom.version') {
      if (pom.version === undefined) return undefined;
      // Without its own `<version>` a pom has its parent's, written in its `<parent>`.
      return { value: pom.version, site: siteIn(pom, 'project.version') ?? siteIn(pom, 'project.parent.version') };
    }
    if (name === 'project.parent.version' || name === 'parent.version') {
      return pom.parent?.version === undefined ? undefined : { value: pom.parent.version, site: siteIn(pom, 'project.parent.version') };
    }
    for (const p of this.chain(pom)) {
      if (p.properties && Object.hasOwn(p.properties, name)) return { value: p.properties[name], site: siteIn(p, name) };
    }
    return undefined;
  }

  /**
   * `${name}` followed to a literal: a value that is itself one `${other}` is followed on (the site
   * is the innermost definition), a value mixing text and references is interpolated (no site: no
   * one line holds it). Lookups start from the pom that uses the version, as Maven interpolates
   * after inheritance.
   */
  resolveReference(pom: ManifestRecord, name: string, seen: Set<string>): Found | undefined {
    if (seen.has(name) || seen.size >= MAX_REFERENCE_DEPTH) return undefined;
    const found = this.lookup(pom, name);
    if (!found || !found.value.includes('${')) return found;
    const next = new Set(seen).add(name);
    const single = SINGLE_REFERENCE.exec(found.value.trim());
    if (single) return this.resolveReference(pom, single[1], next);
    const value = this.interpolate(pom, found.value, next);
    return value === undefined ? undefined : { value };
  }

  /** Every `${…}` of a text replaced; undefined when one does not resolve. */
  interpolate(pom: ManifestRecord, text: string, seen: Set<string>): string | undefined {
    if (text.length > MAX_VERSION_LENGTH) return undefined;
    let unresolved = false;
    const value = text.replace(REFERENCE, (_whole, name: string) => {
      const found = this.resolveReference(pom, name, seen);
      if (!found) unresolved = true;
      return found?.value ?? '';
    });
    return unresolved ? undefined : value;
  }

  resolveDependency(pom: ManifestRecord, written: ManifestDependency): ManifestDependency {
    // Maven interpolates coordinates too (`gummy-bears-api-${version.android.sdk}`): the name is the one it resolves to.
    const name = written.name.includes('${') ? this.interpolate(pom, written.name, new Set()) : undefined;
    const dep = name ? { ...written, name } : written;
    const version = dep.version;
    if (!version?.includes('${') || version.length > MAX_VERSION_LENGTH) return dep;
    const single = SINGLE_REFERENCE.exec(version.trim());
    const references = [...version.matchAll(REFERENCE)].map((m) => m[1]);
    const out: ManifestDependency = { ...dep };
    if (references.length === 1) out.versionRef = references[0];
    if (single) {
      const found = this.resolveReference(pom, single[1], new Set());
      if (found) out.resolvedVersion = found.value;
      if (found?.site) out.versionAt = found.site;
      return out;
    }
    const value = this.interpolate(pom, version, new Set());
    if (value !== undefined) out.resolvedVersion = value;
    return out;
  }
}

/**
 * `${property}` versions resolved across the reactor: the pom itself, then its parents in the
 * repository. A resolved version gets `resolvedVersion`, `versionRef` and the `versionAt` a bump
 * edits (the line of the defining pom); an unresolvable one keeps no `versionAt`.
 */
export function resolveMavenProperties(manifests: readonly ManifestRecord[]): ManifestRecord[] {
  const poms = manifests.filter((m) => m.kind === 'maven' && !m.parseError);
  if (poms.length === 0) return [...manifests];
  const reactor = new Reactor(poms);
  return manifests.map((m) =>
    m.kind === 'maven' && !m.parseError && m.dependencies.some((d) => d.version?.includes('${') || d.name.includes('${'))
      ? { ...m, dependencies: m.dependencies.map((d) => reactor.resolveDependency(m, d)) }
      : m,
  );
}
