import { parse as parseToml } from 'smol-toml';
import { baseName, dirName } from '../paths/path-classes.js';
import { substituteReference } from './gradle-script-text.js';
import { GRADLE_SCRIPT_KINDS } from './manifest-kinds.js';
import type { ManifestDependency, ManifestRecord, VersionSite } from './manifest-schema.js';
import { record, str, type ParsedManifest } from './parse-util.js';

// ---- reading a catalog ----

/** Where every table header and key assignment of a TOML text is written (smol-toml keeps no positions). */
type TomlLines = (...keys: string[]) => number | undefined;

const BARE_KEY = /[A-Za-z0-9_-]+/y;

/** The dotted key at `i` (`foo`, `"foo.bar"`, `foo.bar`, `version.ref`), or undefined when the line does not start with one. */
function readKeys(s: string, i: number): { keys: string[]; end: number } | undefined {
  const keys: string[] = [];
  for (;;) {
    while (s[i] === ' ' || s[i] === '\t') i++;
    const q = s[i];
    if (q === '"' || q === "'") {
      let key = '';
      let j = i + 1;
      for (; j < s.length && s[j] !== q; j++) {
        if (q === '"' && s[j] === '\\') j++;
        key += s[j] ?? '';
      }
      if (j >= s.length) return undefined;
      keys.push(key);
      i = j + 1;
    } else {
      BARE_KEY.lastIndex = i;
      const m = BARE_KEY.exec(s);
      if (!m) return undefined;
      keys.push(m[0]);
      i = BARE_KEY.lastIndex;
    }
    while (s[i] === ' ' || s[i] === '\t') i++;
    if (s[i] !== '.') return { keys, end: i };
    i++;
  }
}

/** Line of each `[table]` header and `key = …` assignment, by full key path; the first wins. Multi-line strings are skipped. */
function tomlLines(text: string): TomlLines {
  const lines = new Map<string, number>();
  const put = (path: string[], line: number): void => {
    const key = path.join('\u0000');
    if (!lines.has(key)) lines.set(key, line);
  };
  let table: string[] = [];
  let multiline: string | undefined;
  const raws = text.split('\n');
  for (let n = 0; n < raws.length; n++) {
    const raw = raws[n];
    const s = raw.trimStart();
    if (multiline) {
      if ((raw.split(multiline).length - 1) % 2 === 1) multiline = undefined;
      continue;
    }
    if (s.startsWith('[[')) table = ['\u0001'];
    else if (s.startsWith('[')) {
      const k = readKeys(s, 1);
      if (k && s[k.end] === ']') put((table = k.keys), n + 1);
    } else {
      const k = readKeys(s, 0);
      if (k && s[k.end] === '=') put([...table, ...k.keys], n + 1);
    }
    for (const quotes of ['"""', "'''"]) if ((raw.split(quotes).length - 1) % 2 === 1) multiline = quotes;
  }
  return (...keys) => lines.get(keys.join('\u0000'));
}

/** Keys of a rich version (`{ strictly = "[1.0, 2.0[", prefer = "1.2" }`) in the order the version read from it: the one Gradle picks first. */
const RICH_KEYS = ['prefer', 'require', 'strictly'] as const;

function versionText(v: unknown): { value: string; key?: string } | undefined {
  if (typeof v === 'string') return { value: v };
  const r = record(v);
  for (const key of RICH_KEYS) if (typeof r[key] === 'string') return { value: r[key], key };
  return undefined;
}

interface CatalogVersion {
  value: string;
  at: VersionSite;
}

/** `[versions]`: plain strings and rich versions, inline or as `[versions.x]` sub-tables. */
function catalogVersions(table: Record<string, unknown>, lineOf: TomlLines, path: string): Map<string, CatalogVersion> {
  const versions = new Map<string, CatalogVersion>();
  for (const [key, v] of Object.entries(table)) {
    const text = versionText(v);
    const line = (text?.key ? lineOf('versions', key, text.key) : undefined) ?? lineOf('versions', key);
    if (text && line) versions.set(key, { value: text.value, at: { path, line } });
  }
  return versions;
}

type EntryVersion = Pick<ManifestDependency, 'version' | 'resolvedVersion' | 'versionRef' | 'versionAt'>;

/** An entry's `version`: `version.ref` / `version = { ref }` to `[versions]`, a string or a rich version written in the entry. */
function entryVersion(v: unknown, entry: string[], versions: Map<string, CatalogVersion>, lineOf: TomlLines, path: string): EntryVersion {
  if (v === undefined) return {};
  const ref = str(record(v).ref);
  if (ref !== undefined) {
    const target = versions.get(ref);
    return target ? { version: target.value, resolvedVersion: target.value, versionRef: ref, versionAt: target.at } : { versionRef: ref };
  }
  const text = versionText(v);
  if (!text) return {};
  const line = (text.key ? lineOf(...entry, 'version', text.key) : undefined) ?? lineOf(...entry, 'version') ?? lineOf(...entry);
  return { version: text.value, ...(line ? { versionAt: { path, line } } : {}) };
}

/** One `[libraries]` entry: `"g:a:v"`, `{ module = "g:a", … }` or `{ group, name, … }`; any other shape is skipped. */
function libraryEntry(alias: string, spec: unknown, versions: Map<string, CatalogVersion>, lineOf: TomlLines, path: string): ManifestDependency | undefined {
  const line = lineOf('libraries', alias);
  if (!line) return undefined;
  if (typeof spec === 'string') {
    const m = /^([^:\s]+):([^:\s]+)(?::([^:\s]+))?$/.exec(spec);
    if (!m) return undefined;
    return { name: `${m[1]}:${m[2]}`, kind: 'dependency', alias, line, ...(m[3] ? { version: m[3], versionAt: { path, line } } : {}) };
  }
  const r = record(spec);
  const group = str(r.group);
  const artifact = str(r.name);
  const name = str(r.module) ?? (group && artifact ? `${group}:${artifact}` : undefined);
  if (!name || !/^[^:\s]+:[^:\s]+$/.test(name)) return undefined;
  return { name, kind: 'dependency', alias, line, ...entryVersion(r.version, ['libraries', alias], versions, lineOf, path) };
}

/** One `[plugins]` entry: `{ id, version }`, `{ id, version.ref }` or `"id:version"`. */
function pluginEntry(alias: string, spec: unknown, versions: Map<string, CatalogVersion>, lineOf: TomlLines, path: string): ManifestDependency | undefined {
  const line = lineOf('plugins', alias);
  if (!line) return undefined;
  if (typeof spec === 'string') {
    const colon = spec.lastIndexOf(':');
    if (colon <= 0) return { name: spec, kind: 'plugin', alias, line };
    return { name: spec.slice(0, colon), kind: 'plugin', alias, line, version: spec.slice(colon + 1), versionAt: { path, line } };
  }
  const id = str(record(spec).id);
  if (!id) return undefined;
  return { name: id, kind: 'plugin', alias, line, ...entryVersion(record(spec).version, ['plugins', alias], versions, lineOf, path) };
}

/**
 * A version catalog (`gradle/libs.versions.toml`): `[libraries]` and `[plugins]` entries as
 * dependencies with their alias, `[versions]` as properties with their lines, `[bundles]` by name.
 */
export function parseGradleCatalog(text: string, path: string): ParsedManifest {
  const doc = record(parseToml(text));
  const lineOf = tomlLines(text);
  const versions = catalogVersions(record(doc.versions), lineOf, path);
  const dependencies: ManifestDependency[] = [];
  for (const [alias, spec] of Object.entries(record(doc.libraries))) {
    const dep = libraryEntry(alias, spec, versions, lineOf, path);
    if (dep) dependencies.push(dep);
  }
  const plugins: string[] = [];
  for (const [alias, spec] of Object.entries(record(doc.plugins))) {
    const dep = pluginEntry(alias, spec, versions, lineOf, path);
    if (dep) dependencies.push(dep);
    if (dep) plugins.push(dep.name);
  }
  const bundles = Object.keys(record(doc.bundles));
  return {
    properties: Object.fromEntries([...versions].map(([k, v]) => [k, v.value])),
    propertyLines: Object.fromEntries([...versions].map(([k, v]) => [k, v.at.line])),
    dependencies,
    plugins: [...new Set(plugins)].sort(),
    ...(bundles.length ? { facts: { bundles: bundles.join(', ') } } : {}),
  };
}

// ---- resolving accessors ----

interface CatalogEntry {
  /** The library's `group:artifact` or the plugin's id; absent for a `[versions]` entry. */
  name?: string;
  version?: string;
  versionAt?: VersionSite;
}

interface Catalog {
  name: string;
  /** The build directory the catalog belongs to: `X` for `X/gradle/<name>.versions.toml`. */
  root: string;
  /** By accessor path after the catalog name: `androidx.core.ktx`, `plugins.kotlin.jvm`, `versions.kotlin`. */
  entries: Map<string, CatalogEntry>;
}

/** An alias as its accessor spells it: `-`, `_` and `.` all separate segments (`androidx-core_ktx` is `androidx.core.ktx`). */
const accessorPath = (alias: string): string => alias.split(/[-_.]/).join('.');

function catalogOf(m: ManifestRecord): Catalog {
  const dir = dirName(m.path);
  const entries = new Map<string, CatalogEntry>();
  for (const dep of m.dependencies) {
    if (dep.alias === undefined) continue;
    const key = (dep.kind === 'plugin' ? 'plugins.' : '') + accessorPath(dep.alias);
    if (!entries.has(key)) entries.set(key, { name: dep.name, version: dep.version, versionAt: dep.versionAt });
  }
  for (const [key, value] of Object.entries(m.properties ?? {})) {
    const line = m.propertyLines?.[key];
    entries.set(`versions.${accessorPath(key)}`, { version: value, ...(line ? { versionAt: { path: m.path, line } } : {}) });
  }
  return {
    name: baseName(m.path).slice(0, -'.versions.toml'.length),
    root: baseName(dir) === 'gradle' ? dirName(dir) : dir,
    entries,
  };
}

const within = (root: string, dir: string): boolean => root === '' || dir === root || dir.startsWith(`${root}/`);

/** A script's dependency through a catalog accessor, given the entry it names. */
function throughEntry(dep: ManifestDependency, entry: CatalogEntry): ManifestDependency {
  const out: ManifestDependency = { ...dep };
  if (entry.name !== undefined) out.name = entry.name;
  if (entry.version !== undefined)
    out.resolvedVersion = entry.name === undefined && dep.version ? substituteReference(dep.version, entry.version) : entry.version;
  if (entry.versionAt) out.versionAt = entry.versionAt;
  return out;
}

/**
 * `libs.…` accessors in Gradle scripts resolved to the catalog entry they name: the script's
 * dependency takes the entry's `group:artifact` (or plugin id), its version as `resolvedVersion`
 * and the catalog line a bump edits as `versionAt`; `versionRef` keeps the accessor. A script sees
 * the catalogs of the nearest enclosing build that has one (`gradle/libs.versions.toml` is `libs`,
 * `gradle/<name>.versions.toml` is `<name>`), so buildSrc falls back to the root build's catalog.
 */
export function resolveCatalogReferences(manifests: readonly ManifestRecord[]): ManifestRecord[] {
  const catalogs = manifests.filter((m) => m.kind === 'gradle-catalog' && !m.parseError).map(catalogOf);
  if (catalogs.length === 0) return [...manifests];
  const catalogFor = (name: string, scriptPath: string): Catalog | undefined => {
    const dir = dirName(scriptPath);
    let best: Catalog | undefined;
    for (const c of catalogs) if (c.name === name && within(c.root, dir) && (!best || c.root.length > best.root.length)) best = c;
    return best;
  };
  return manifests.map((m) => {
    if (!GRADLE_SCRIPT_KINDS.has(m.kind)) return m;
    const plugins = new Set(m.plugins ?? []);
    const dependencies = m.dependencies.map((dep) => {
      if (dep.versionRef === undefined || dep.resolvedVersion !== undefined) return dep;
      const dot = dep.versionRef.indexOf('.');
      const entry = dot > 0 ? catalogFor(dep.versionRef.slice(0, dot), m.path)?.entries.get(dep.versionRef.slice(dot + 1)) : undefined;
      if (!entry) return dep;
      if (dep.kind === 'plugin' && entry.name !== undefined) plugins.add(entry.name);
      return throughEntry(dep, entry);
    });
    return { ...m, dependencies, ...(plugins.size ? { plugins: [...plugins].sort() } : {}) };
  });
}
